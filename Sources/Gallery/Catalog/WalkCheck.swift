import ImagePipeline

/// The safety-net walk as a check of the snapshot, folder by folder, instead of a second
/// catalog. It lists every folder as a scan does, but compares each listing with what the
/// snapshot holds there (the folder's mark, else its album's rows) and keeps nothing but the
/// marks; only the folders that differ go through `applyFolderChanges`, as inotify's notices
/// do. At a million photos the walk built a whole catalog beside the served one (about 90 MB
/// and 15 s of CPU at nice 19) to find, almost always, that nothing had changed.
///
/// A tree the check cannot judge folder by folder (a symlinked folder, whose album depends
/// on where its target is listed; the manifest changed; the root gone) gets the whole scan.
extension CatalogStore {
    /// What the check found.
    enum WalkCheck: Equatable, Sendable {
        /// Every folder was listed: `changed` differ from the snapshot (or could not be read).
        case listed(changed: Set<String>)
        /// A change waited (`giveWay`): the check stopped, nothing learned.
        case gaveWay
        /// The tree needs the whole scan.
        case needsScan
    }

    /// Lists every folder and compares it with the snapshot; the marks of the folders that
    /// did not change are stored (so the next walk compares fingerprints only).
    func checkFolders(giveWay: (@Sendable () -> Bool)?) -> WalkCheck {
        guard let realRoot = ImageFiles.realPath(scanner.root), manifestFileStamp() == followedManifest.withLock({ $0 })
        else { return .needsScan }
        let current = catalog
        let marks = folderMarks.withLock { $0 }
        var changed = Set<String>()
        var unchanged: [String: FolderMark] = [:]
        var pending: [(folder: String, depth: Int)] = [("", 0)]
        while let (folder, depth) = pending.popLast() {
            if giveWay?() == true { return .gaveWay }
            let absolute = folder.isEmpty ? realRoot : realRoot + "/" + folder
            let entries = scanner.listFolder(relativePath: folder, absolute: absolute, realRoot: realRoot)
            foldersListed.add(1, ordering: .relaxed)
            guard !entries.unreadable else {
                changed.insert(folder)
                continue
            }
            for subfolder in entries.subfolders {
                let relative = folder.isEmpty ? subfolder.name : folder + "/" + subfolder.name
                // A symlinked folder: which album it is depends on the whole tree.
                guard subfolder.real == realRoot + "/" + relative else { return .needsScan }
                if depth < scanner.maxDepth { pending.append((relative, depth + 1)) }
            }
            if isUnchanged(folder, entries: entries, marks: marks, in: current, realRoot: realRoot) {
                unchanged[folder] = FolderMark(entries)
            } else {
                changed.insert(folder)
            }
        }
        folderMarks.withLock { $0.merge(unchanged) { _, listed in listed } }
        return .listed(changed: changed)
    }

    /// Whether `entries` (the file system's listing of `folder`) make the same album as the
    /// snapshot holds: the fingerprint of its last listing, else (a start from the index,
    /// before a listing) the same photos with the same stamps, companions and sidecars as
    /// the album's rows, and the child albums as subfolders.
    private func isUnchanged(_ folder: String, entries: CatalogScanner.FolderEntries, marks: [String: FolderMark],
                             in catalog: Catalog, realRoot: String) -> Bool {
        guard entries.symlinkTargets.isEmpty else { return false }
        if let mark = marks[folder] {
            return !mark.hasSymlinks && mark.fingerprint == entries.fingerprint && Self.sameFolders(mark.subfolders, entries.subfolders)
        }
        guard !marksWhole.load(ordering: .relaxed), let told = FolderMark(told: folder, in: catalog, realRoot: realRoot),
              Self.sameFolders(told.subfolders, entries.subfolders),
              let albumID = catalog.albumID(at: folder), let album = catalog.albums[albumID] else { return false }
        var listed: [String: FileStamp] = [:]
        listed.reserveCapacity(entries.images.count)
        for image in entries.images { listed[image.name] = image.stamp }
        var rows = 0
        for id in album.itemIDs {
            guard let item = catalog.items[id] else { return false }
            guard case .file = item.source else { continue }
            let name = item.fileName
            guard let stamp = item.stamp, listed[name] == stamp,
                  CatalogScanner.sidecar(of: name, in: entries.sidecars)?.stamp == item.sidecar?.stamp else { return false }
            rows += 1
            for companion in item.companions {
                guard listed[companion.name] == companion.stamp else { return false }
                rows += 1
            }
        }
        // A photo on disk that the rows lack (new, or one the index failed to read).
        return rows == listed.count
    }
}
