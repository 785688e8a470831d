import ImagePipeline

/// One folder's photos replaced in a catalog without building the rest again: what a change
/// in one album costs when the album itself stays (its subfolders, privacy and place in the
/// tree are the same). A new snapshot shares every other album and item with the old one.
extension CatalogScanner {
    /// `catalog` with the photos of the albums at the given relative paths made from their
    /// entries, as a scan would make them (order, pairing, sidecars, manifest text; a photo
    /// that stays keeps its id); the item table is copied once for all of them. nil when a
    /// change is not one a patch can make: no such album, symlinked photos (whose listing
    /// depends on privacy), an unreadable folder, or more than `maxItems` photos; the caller
    /// then builds the catalog whole.
    func patch(_ catalog: Catalog, folders: [(relativePath: String, entries: FolderEntries)], manifest: Manifest?) -> Catalog? {
        var table = catalog.items.table
        var albums = catalog.albums
        let fallbackRoot = catalog.anyRoot ?? LibraryRoot(ImageFiles.realPath(root) ?? root)
        for (relativePath, entries) in folders {
            guard !entries.unreadable, entries.symlinkTargets.isEmpty, let albumID = catalog.albumID(at: relativePath),
                  var album = albums[albumID] else { return nil }
            var images = CatalogNaming.sortedByName(entries.images, name: \.name)
            if order(of: relativePath, manifest: manifest) == .date, let datesTaken {
                images = CatalogNaming.sortedByDate(images, name: \.name, dates: datesTaken(relativePath))
            }
            let paired = CompanionPairing.pair(images, contentIdentifiers: { contentIdentifiers?(relativePath) ?? [:] })
            guard table.count - album.itemIDs.count + paired.items.count <= maxItems else { return nil }
            // The ids the album's photos had, by relative path: a photo that stays keeps its id.
            var previous: [String: String] = [:]
            for id in album.itemIDs {
                if let rel = table[id]?.relativePath { previous[rel] = id }
                table[id] = nil
            }
            var itemIDs: [String] = []
            var videoCount = 0
            for image in paired.items {
                let rel = relativePath.isEmpty ? image.name : relativePath + "/" + image.name
                let id = previous[rel] ?? Self.freshID("item:" + rel, table: table, albums: albums)
                let text = manifest?.items?[rel]
                var item = CatalogItem(id: id, albumID: albumID, givenTitle: nonEmpty(text?.title), caption: nonEmpty(text?.caption),
                                       source: .file(relativePath: rel, root: fallbackRoot), stamp: image.stamp)
                item.companions = paired.companions[image.name] ?? []
                item.sidecar = Self.sidecar(of: image.name, in: entries.sidecars)
                    ?? entries.listedSidecars[image.name].map { SidecarFile(name: "", stamp: $0) }
                table[id] = item
                itemIDs.append(id)
                if ImageFiles.isMovie(name: image.name) { videoCount += 1 }
            }
            album.itemIDs = itemIDs
            album.videoCount = videoCount
            albums[albumID] = album
        }
        var patched = Catalog(siteTitle: catalog.siteTitle, rootID: catalog.rootID, albums: albums, items: table)
        patched.showLocation = catalog.showLocation
        return patched
    }

    /// The id a scan gives `key`, re-hashed with a counter while another item or album has it.
    private static func freshID(_ key: String, table: [String: CatalogItem], albums: [String: CatalogAlbum]) -> String {
        var id = StableID.make(key)
        var n = 1
        while table[id] != nil || albums[id] != nil {
            id = StableID.make(key + "#\(n)")
            n += 1
        }
        return id
    }
}

extension Catalog {
    /// The id of the album at `relativePath` (its stable id, else a search for the rare album
    /// whose id was re-hashed after a collision).
    func albumID(at relativePath: String) -> String? {
        let id = StableID.make("album:" + relativePath)
        if albums[id]?.relativePath == relativePath { return id }
        return albums.values.first { $0.relativePath == relativePath }?.id
    }

    /// The library root shared by the file items (nil when the catalog has none).
    var anyRoot: LibraryRoot? {
        for album in albums.values {
            for id in album.itemIDs {
                if case .file(_, let root)? = items[id]?.source { return root }
            }
        }
        return nil
    }
}
