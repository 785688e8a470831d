/// The parts of the library a request may see, as catalogs of their own: pages made from a
/// view can only list, link or serve what the view holds, so a private album cannot leak
/// through a cover, a count, a neighbour link or a breadcrumb that someone forgot to filter.
extension Catalog {
    /// Everything but private albums (and their photos): what the public routes serve. A
    /// private root leaves an empty gallery.
    public func publicView() -> Catalog {
        var view = Catalog(siteTitle: siteTitle, rootID: rootID, albums: [:], items: [:])
        view.showLocation = showLocation
        guard let root = albums[rootID] else { return self }
        guard root.privateRoot == nil else {
            var empty = root
            empty.albumIDs = []
            empty.itemIDs = []
            view.albums[rootID] = empty
            return view
        }
        copy(from: rootID, into: &view) { $0.privateRoot == nil }
        return view
    }

    /// What the share link of `albumID` opens: that album as the root (no parent, so no
    /// breadcrumbs above it) and the albums below it that share its privacy: all of them
    /// below a private album; below a public one only the public ones (a private album inside
    /// is shared by a link of its own). Links carry `linkPrefix`. Nil for an unknown album.
    public func sharedView(of albumID: String, linkPrefix: String) -> Catalog? {
        guard var top = albums[albumID] else { return nil }
        let privacy = top.privateRoot
        top.parentID = nil
        var view = Catalog(siteTitle: siteTitle, rootID: albumID, albums: [:], items: [:])
        view.showLocation = showLocation
        view.linkPrefix = linkPrefix
        var source = self
        source.albums[albumID] = top
        source.copy(from: albumID, into: &view) { $0.privateRoot == nil || $0.privateRoot == privacy }
        return view
    }

    /// Copies the album `id` and, depth first, every album below it that `keep` accepts, with
    /// their items; album lists keep only the kept albums.
    private func copy(from id: String, into view: inout Catalog, keep: (CatalogAlbum) -> Bool) {
        var stack = [id]
        while let next = stack.popLast() {
            guard view.albums[next] == nil, var album = albums[next] else { continue }
            album.albumIDs = album.albumIDs.filter { albums[$0].map(keep) ?? false }
            for itemID in album.itemIDs { view.items[itemID] = items[itemID] }
            view.albums[next] = album
            stack.append(contentsOf: album.albumIDs)
        }
    }
}
