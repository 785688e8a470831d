import ImagePipeline

/// One folder's photos replaced in a catalog without building the rest again: what a change
/// in one album costs when the album itself stays (its subfolders, privacy and place in the
/// tree are the same). A new snapshot shares every other album and item with the old one.
extension CatalogScanner {
    /// `catalog` with the photos of the albums at the given relative paths made from their
    /// entries, as a scan would make them (order, pairing, sidecars, manifest text; a photo
    /// that stays keeps its id); the item table is patched once for all of them (`PackedItemTable.patched`). nil when a
    /// change is not one a patch can make: no such album, symlinked photos (whose listing
    /// depends on privacy), an unreadable folder, or more than `maxItems` photos; the caller
    /// then builds the catalog whole.
    func patch(_ catalog: Catalog, folders: [(relativePath: String, entries: FolderEntries)], manifest: Manifest?) -> Catalog? {
        let old = catalog.items.table
        // What leaves the old rows, and the items made for the patched albums, by id.
        var dropped = Set<Int>()
        var added: [String: CatalogItem] = [:]
        var count = old.count
        var albums = catalog.albums
        let fallbackRoot = old.root ?? catalog.anyRoot ?? LibraryRoot(ImageFiles.realPath(root) ?? root)
        func taken(_ id: String) -> Bool {
            added[id] != nil || albums[id] != nil || old.row(of: id).map { !dropped.contains($0) } ?? false
        }
        for (relativePath, entries) in folders {
            guard !entries.unreadable, entries.symlinkTargets.isEmpty, let albumID = catalog.albumID(at: relativePath),
                  var album = albums[albumID] else { return nil }
            var images = CatalogNaming.sortedByName(entries.images, name: \.name)
            if order(of: relativePath, manifest: manifest) == .date, let datesTaken {
                images = CatalogNaming.sortedByDate(images, name: \.name, dates: datesTaken(relativePath))
            }
            let paired = CompanionPairing.pair(images, contentIdentifiers: { contentIdentifiers?(relativePath) ?? [:] })
            guard count - album.itemIDs.count + paired.items.count <= maxItems else { return nil }
            count += paired.items.count - album.itemIDs.count
            // The ids the album's photos had, by relative path: a photo that stays keeps its id.
            var previous: [String: String] = [:]
            for id in album.itemIDs {
                if let item = added.removeValue(forKey: id) {
                    if let rel = item.relativePath { previous[rel] = id }
                } else if let row = old.row(of: id), !dropped.contains(row) {
                    if let rel = old.item(atRow: row).relativePath { previous[rel] = id }
                    dropped.insert(row)
                }
            }
            var itemIDs = ItemIDList()
            var videoCount = 0
            for image in paired.items {
                let rel = relativePath.isEmpty ? image.name : relativePath + "/" + image.name
                let id = previous[rel] ?? Self.freshID("item:" + rel, taken: taken)
                let text = manifest?.items?[rel]
                var item = CatalogItem(id: id, albumID: albumID, givenTitle: nonEmpty(text?.title), caption: nonEmpty(text?.caption),
                                       source: .file(relativePath: rel, root: fallbackRoot), stamp: image.stamp)
                item.companions = paired.companions[image.name] ?? []
                item.sidecar = Self.sidecar(of: image.name, in: entries.sidecars)
                    ?? entries.listedSidecars[image.name].map { SidecarFile(name: "", stamp: $0) }
                added[id] = item
                itemIDs.append(id)
                if ImageFiles.isMovie(name: image.name) { videoCount += 1 }
            }
            album.itemIDs = itemIDs
            album.videoCount = videoCount
            albums[albumID] = album
        }
        let table = old.patched(dropping: dropped, adding: Array(added.values))
        if !table.sharesRows(with: old) {
            // The items were copied into rows of their own: the lists that read the old rows take
            // their ids as numbers, so that those rows are freed with the old snapshot.
            for (id, album) in albums where album.itemIDs.reads(old.sharedRows) { albums[id]?.itemIDs = album.itemIDs.detached() }
        }
        var patched = Catalog(siteTitle: catalog.siteTitle, rootID: catalog.rootID, albums: albums, table: table)
        patched.showLocation = catalog.showLocation
        return patched
    }

    /// The id a scan gives `key`, re-hashed with a counter while another item or album has it.
    private static func freshID(_ key: String, taken: (String) -> Bool) -> String {
        var id = StableID.make(key)
        var n = 1
        while taken(id) {
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
