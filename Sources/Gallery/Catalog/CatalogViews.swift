/// The parts of the library a request may see, as catalogs of their own: pages made from a
/// view can only list, link or serve what the view holds, so a private album cannot leak
/// through a cover, a count, a neighbour link or a breadcrumb that someone forgot to filter.
extension Catalog {
    /// Everything but private albums (and their photos): what the public routes serve. A
    /// private root leaves an empty gallery.
    public func publicView() -> Catalog {
        var view = self
        guard let root = albums[rootID] else { return self }
        guard root.privateRoot == nil else {
            var empty = root
            empty.albumIDs = []
            empty.itemIDs = []
            empty.videoCount = 0
            view.albums = [rootID: empty]
            view.items = items.restricted(to: [rootID], count: 0)
            return view
        }
        // Nothing private: the view is the catalog itself (a copy of its album table took 3 MB
        // and a set of every album id at a million photos in 10,000 albums).
        guard albums.values.contains(where: { $0.privateRoot != nil }) else { return self }
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
        var view = self
        view.rootID = albumID
        view.linkPrefix = linkPrefix
        var source = self
        source.albums[albumID] = top
        source.copy(from: albumID, into: &view) { $0.privateRoot == nil || $0.privateRoot == privacy }
        return view
    }

    /// Gives `view` the album `id` and, depth first, every album below it that `keep` accepts;
    /// album lists keep only the kept albums. The view's items are this catalog's table
    /// restricted to those albums: no item is copied (`CatalogItems`).
    private func copy(from id: String, into view: inout Catalog, keep: (CatalogAlbum) -> Bool) {
        var kept: [String: CatalogAlbum] = [:]
        var itemCount = 0
        var stack = [id]
        while let next = stack.popLast() {
            guard kept[next] == nil, var album = albums[next] else { continue }
            album.albumIDs = album.albumIDs.filter { albums[$0].map(keep) ?? false }
            itemCount += album.itemIDs.count
            kept[next] = album
            stack.append(contentsOf: album.albumIDs)
        }
        view.albums = kept
        view.items = items.restricted(to: Set(kept.keys), count: itemCount)
    }
}
