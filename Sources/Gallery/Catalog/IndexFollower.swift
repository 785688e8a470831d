import ImagePipeline

/// How a process that does not index (another worker of `spawn-fcgi -F N`) keeps its
/// snapshot current without reading a folder: about once a second it reads the index's
/// generation (one indexed row); when it moved, it reads which albums the passes since its
/// snapshot changed, and only those albums' photos, and patches them into its catalog. The
/// rest of the snapshot is shared with the old one. An album that came or went (or many at
/// once, as after a first build) makes it build the catalog from the index's whole listing,
/// as at start. So does a changed `gallery.json` (one `stat` a step): titles, order and
/// privacy come from it, not from the index.
extension CatalogStore {
    /// More changed albums than this (or than an eighth of the catalog's) are read as one
    /// listing of the whole index rather than album by album.
    static let followPatchLimit = 64

    /// One step of following; true when the snapshot changed.
    @discardableResult
    public func followIndex() -> Bool {
        guard let index, let generation = index.generation() else { return false }
        let (known, manifest) = basis.withLock { ($0.generation, $0.manifest) }
        let manifestStamp = manifestFileStamp()
        let manifestMoved = manifestStamp != followedManifest.withLock { $0 }
        guard generation != known || manifestMoved else { return false }
        let current = catalog
        let start = CatalogStore.now()
        var next: Catalog?
        // A lower generation: the file was replaced by a new index; read it whole.
        if manifestMoved {
            next = nil
        } else if generation > known, let changed = index.albumsChanged(since: known), changed.isEmpty {
            basis.withLock { $0.generation = generation }
            return false
        } else if generation > known, let changed = index.albumsChanged(since: known),
           changed.count <= min(Self.followPatchLimit, max(1, current.albums.count / 8)) {
            var folders: [(relativePath: String, entries: CatalogScanner.FolderEntries)] = []
            for album in changed {
                guard album.photos > 0, current.albumID(at: album.path) != nil, let listed = index.folderListing(album.path) else {
                    folders = []
                    break
                }
                folders.append((album.path, CatalogScanner.FolderEntries(listed: listed, base: "")))
            }
            if !folders.isEmpty { next = scanner.patch(current, folders: folders, manifest: manifest) }
        }
        var newManifest = manifest
        if next == nil {
            guard let result = index.readFolders({ scanner.build(from: &$0) }) else { return false }
            next = result.catalog
            newManifest = result.manifest
        }
        guard let next else { return false }
        followedManifest.withLock { $0 = manifestStamp }
        var hash = FNV1a()
        hash.add(versioned.fingerprint)
        hash.add(UInt64(generation))
        state.withLock { $0 = (next, next.publicView(), hash.value) }
        basis.withLock { $0 = (newManifest, generation) }
        log("catalog: generation \(generation) of the index read in \(Int((CatalogStore.now() - start) * 1000)) ms: "
            + "\(next.albums.count) albums, \(next.items.count) items")
        return true
    }

    /// The stamp of the library's `gallery.json` (nil when there is none).
    func manifestFileStamp() -> FileStamp? {
        FileStamp.of(path: (ImageFiles.realPath(scanner.root) ?? scanner.root) + "/" + Manifest.fileName)
    }
}
