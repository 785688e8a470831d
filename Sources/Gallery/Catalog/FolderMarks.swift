import ImagePipeline

/// What the watching process remembers of each folder between changes, instead of its whole
/// listing: the listing's fingerprint, its subfolders and whether it has symlinked photos. A
/// folder's photos, their stamps, companions and sidecars are in the snapshot's rows already,
/// so a change that needs a folder's entries again (a rebuild after folders came or went, an
/// album made again in date order) takes them from the catalog (`entries(of:in:)`), and lists
/// from the file system only folders that cannot be told from it. Before, the kept listings
/// cost about 48 bytes a file (48 MB at a million photos); a mark costs its subfolders' names.
struct FolderMark: Sendable {
    /// `FolderEntries.fingerprint` of the folder's last listing.
    var fingerprint: UInt64
    /// Names and real paths of its subfolders (the tree is built from them).
    var subfolders: [(name: String, real: String)]
    /// The folder's real path when the file system listed it.
    var real: String?
    /// Some photos are symlinks: which of them an album may list depends on privacy, so such
    /// a folder is always listed again rather than told from the catalog.
    var hasSymlinks: Bool

    init(_ entries: CatalogScanner.FolderEntries) {
        fingerprint = entries.fingerprint
        subfolders = entries.subfolders
        real = entries.real
        hasSymlinks = !entries.symlinkTargets.isEmpty
    }

    /// The mark of a folder no listing left one for, told from the album at `relativePath`
    /// in `catalog` (built from the index): its subfolders are the child albums, at their
    /// places below `realRoot`; no fingerprint (fingerprint 0: the caller treats the folder as
    /// changed). A subfolder that is no album (empty of photos) or is a symlink makes the
    /// listing differ from it, and the caller then builds the catalog whole, as without a mark.
    /// nil when `catalog` has no album there.
    init?(told relativePath: String, in catalog: Catalog, realRoot: String) {
        guard let albumID = catalog.albumID(at: relativePath), let album = catalog.albums[albumID] else { return nil }
        fingerprint = 0
        real = relativePath.isEmpty ? realRoot : realRoot + "/" + relativePath
        subfolders = album.albumIDs.compactMap { id in
            guard let child = catalog.albums[id] else { return nil }
            let name = child.relativePath.split(separator: "/").last.map(String.init) ?? child.relativePath
            return (name, realRoot + "/" + child.relativePath)
        }
        hasSymlinks = false
    }
}

extension CatalogScanner {
    /// The entries of the folder `relativePath` as its last listing had them (`mark`), told
    /// from the album's rows in `catalog`: each photo with its stamp, its companions (a Live
    /// Photo's movie, a raw) as photos of their own so that pairing makes them again, and the
    /// sidecars the photos took. Sidecars no photo took are not in the catalog and not needed
    /// (they only make a folder's fingerprint, which the mark keeps). nil when the folder has
    /// symlinked photos or no album in `catalog`: the caller lists it from the file system.
    func entries(of relativePath: String, mark: FolderMark, in catalog: Catalog) -> FolderEntries? {
        guard !mark.hasSymlinks, let albumID = catalog.albumID(at: relativePath), let album = catalog.albums[albumID] else { return nil }
        var entries = FolderEntries(subfolders: mark.subfolders)
        entries.real = mark.real
        entries.fingerprint = mark.fingerprint
        entries.images.reserveCapacity(album.itemIDs.count)
        for id in album.itemIDs {
            guard let item = catalog.items[id], case .file = item.source, let stamp = item.stamp else { continue }
            let name = item.fileName
            entries.images.append((name, stamp))
            for companion in item.companions { entries.images.append((companion.name, companion.stamp)) }
            if let sidecar = item.sidecar {
                // A catalog made from the index's listing knows a sidecar's stamp, not its name.
                if sidecar.name.isEmpty {
                    entries.listedSidecars[name] = sidecar.stamp
                } else {
                    entries.sidecars[sidecar.name.lowercased()] = sidecar
                }
            }
        }
        return entries
    }
}
