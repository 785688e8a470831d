import ImagePipeline

/// What one batch of inotify notices costs the watching process: the folders named are
/// listed again, and nothing else is read. When only photos changed in albums that stay
/// (the usual case: a photo copied in, deleted, rewritten), their albums are patched into
/// the snapshot (`CatalogScanner.patch`); when folders came or went, or the root changed (its
/// manifest), the catalog is built again from the snapshot's rows (`FolderMarks.swift`),
/// listing from the file system only the folders not listed before or not told by the rows. The indexer then compares the stamps of those albums
/// only, and its pass stamps them with a new generation for the other processes.
extension CatalogStore {
    /// Applies changes in `changed` (relative folder paths); returns the indexing pass's
    /// summary (nil when nothing changed, the change was held back, or this process does not
    /// index).
    @discardableResult
    func applyFolderChanges(_ named: Set<String>) -> LibraryIndexer.Summary? {
        // Folders of a change held back are judged again with every batch, so that the
        // snapshot stays one (a change elsewhere waits too) and is applied once they are back.
        let changed = named.union(heldFolders.withLock { $0 })
        guard let realRoot = ImageFiles.realPath(scanner.root) else { return refreshAndIndex() }
        let start = CatalogStore.now()
        let (current, fingerprint) = versioned
        let marks = folderMarks.withLock { $0 }
        let manifest = basis.withLock { $0.manifest }
        var fresh: [String: CatalogScanner.FolderEntries] = [:]
        var whole = changed.contains("")
        var told = Set<String>()
        for folder in changed.sorted() {
            let entries = scanner.listFolder(relativePath: folder, absolute: realRoot + "/" + folder, realRoot: realRoot)
            foldersListed.add(1, ordering: .relaxed)
            guard let before = mark(of: folder, marks: marks, in: current, realRoot: realRoot) else {
                whole = true
                fresh[folder] = entries
                continue
            }
            if marks[folder] == nil { told.insert(folder) }
            guard told.contains(folder) || entries.fingerprint != before.fingerprint || entries.unreadable else { continue }
            fresh[folder] = entries
            if entries.unreadable || !entries.symlinkTargets.isEmpty || before.hasSymlinks
                || !Self.sameFolders(entries.subfolders, before.subfolders) {
                whole = true
            }
        }
        guard !fresh.isEmpty else {
            // Back as they were listed: what was held back is over.
            if heldBack != nil, !held(next: current, unreadable: []) { heldFolders.withLock { $0 = [] } }
            return nil
        }

        var next: Catalog
        var nextFingerprint: UInt64
        var unreadable = Set<String>()
        var listed = marks
        var touched = Set(fresh.keys)
        // The stamp of the manifest a whole build read (a patch does not read it).
        var manifestStamp: FileStamp??
        let patched = whole ? nil : scanner.patch(current, folders: fresh.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                                                  manifest: manifest)
        if let patched {
            next = patched
            nextFingerprint = fingerprint
            for (folder, entries) in fresh {
                // A told mark has no fingerprint of its own: the folder's term is added.
                let was = marks[folder].map { CatalogScanner.folderFingerprint(folder, $0.fingerprint) } ?? 0
                nextFingerprint = nextFingerprint &- was &+ CatalogScanner.folderFingerprint(folder, entries.fingerprint)
                listed[folder] = FolderMark(entries)
            }
        } else {
            manifestStamp = manifestFileStamp()
            // Built whole from the snapshot's rows: only folders not listed before (new ones,
            // ones whose listing failed, ones with symlinked photos) are read from the file system.
            listed = [:]
            let result = scanner.build { relativePath, absolute, state in
                var entries: CatalogScanner.FolderEntries
                if let known = fresh[relativePath], !known.unreadable {
                    entries = known
                } else if fresh[relativePath] == nil, let mark = marks[relativePath],
                          let told = scanner.entries(of: relativePath, mark: mark, in: current) {
                    entries = told
                } else {
                    entries = scanner.listFolder(relativePath: relativePath, absolute: absolute, realRoot: state.realRoot)
                    foldersListed.add(1, ordering: .relaxed)
                }
                if !entries.unreadable { listed[relativePath] = FolderMark(entries) }
                return entries
            }
            next = result.catalog
            nextFingerprint = result.fingerprint
            unreadable = result.unreadableFolders
            marksWhole.store(true, ordering: .relaxed)
            basis.withLock { $0.manifest = result.manifest }
            // Albums that came or went are the indexer's business too.
            let before = Set(current.albums.values.map(\.relativePath)), after = Set(next.albums.values.map(\.relativePath))
            touched.formUnion(before.symmetricDifference(after))
            for w in result.warnings { log("catalog: \(w)") }
        }
        if held(next: next, unreadable: unreadable) {
            heldFolders.withLock { $0.formUnion(changed) }
            return nil
        }
        heldFolders.withLock { $0 = [] }
        if let manifestStamp { followedManifest.withLock { $0 = manifestStamp } }
        folderMarks.withLock { $0 = listed }
        state.withLock { $0 = (next, next.publicView(), nextFingerprint) }
        log("catalog: \(touched.count) folder(s) changed, \(patched == nil ? "rebuilt from the snapshot" : "patched") in "
            + "\(Int((CatalogStore.now() - start) * 1000)) ms: \(next.albums.count) albums, \(next.items.count) items")
        return indexPass(folders: touched)
    }

    /// The mark of `folder`: the one its last listing left, else, while the marks are not
    /// whole (a start from the index, before the first walk finished), one told from the
    /// snapshot's album there (`FolderMark(told:)`); nil when neither.
    func mark(of folder: String, marks: [String: FolderMark], in catalog: Catalog, realRoot: String) -> FolderMark? {
        if let mark = marks[folder] { return mark }
        guard !marksWhole.load(ordering: .relaxed) else { return nil }
        return FolderMark(told: folder, in: catalog, realRoot: realRoot)
    }

    /// Whether two listings have the same subfolders (names and real paths).
    static func sameFolders(_ a: [(name: String, real: String)], _ b: [(name: String, real: String)]) -> Bool {
        a.count == b.count && Set(a.map { $0.name + "\u{0}" + $0.real }) == Set(b.map { $0.name + "\u{0}" + $0.real })
    }

    /// Makes the albums at `folders` again from the snapshot's rows, without reading a folder,
    /// where what the index just learned changes them: albums sorted by date take the new
    /// dates, and albums with movies pair a Live Photo by its content identifier.
    func reorderByIndex(_ folders: Set<String>) {
        guard scanner.datesTaken != nil || scanner.contentIdentifiers != nil else { return }
        let manifest = basis.withLock { $0.manifest }
        let marks = folderMarks.withLock { $0 }
        let current = catalog
        let realRoot = ImageFiles.realPath(scanner.root) ?? scanner.root
        let redo = folders.sorted().compactMap { folder -> (String, CatalogScanner.FolderEntries)? in
            let dated = scanner.datesTaken != nil && scanner.order(of: folder, manifest: manifest) == .date
            guard dated || scanner.contentIdentifiers != nil, let mark = mark(of: folder, marks: marks, in: current, realRoot: realRoot),
                  let entries = scanner.entries(of: folder, mark: mark, in: current) else { return nil }
            let movies = scanner.contentIdentifiers != nil && entries.images.contains { ImageFiles.isMovie(name: $0.name) }
            return dated || movies ? (folder, entries) : nil
        }
        // Only this thread replaces snapshots, so the one patched is still the current one.
        guard !redo.isEmpty, let patched = scanner.patch(current, folders: redo, manifest: manifest) else { return }
        state.withLock { $0 = (patched, patched.publicView(), $0.fingerprint &+ 1) }
    }
}
