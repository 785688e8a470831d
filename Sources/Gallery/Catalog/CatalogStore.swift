import Foundation
import ImagePipeline
import Synchronization

/// Holds the current catalog and keeps it in line with the folder from a background thread;
/// a new snapshot replaces the old one only when the fingerprint changed (or the index
/// brought new dates for albums sorted by date). Requests never wait for a scan.
///
/// With a library index, the first catalog comes from the index (no folder is read before
/// the first page is served). Then one process, the index's writer, watches: a full scan at
/// start and every 10 minutes, and in between inotify's notices name the folders to list
/// again (`FolderChanges.swift`); polling folder mtimes every `refreshInterval` seconds where
/// inotify is not available. The other processes never scan: they follow the index's
/// generation and read only the albums it changed (`IndexFollower.swift`), and one of them
/// takes over when the writer is gone.
public final class CatalogStore: Sendable {
    let scanner: CatalogScanner
    let state: Mutex<(catalog: Catalog, publicView: Catalog, fingerprint: UInt64)>
    /// What the snapshot was made from: the manifest (a per-folder patch needs it) and the
    /// index generation it reflects (what a following process has read up to).
    let basis: Mutex<(manifest: Manifest?, generation: Int)>
    /// What the watching process remembers of each folder (relative path) the snapshot was
    /// built from, so that a change lists only the changed folders: a fingerprint and the
    /// subfolders, not the listing (the photos are in the snapshot's rows: `FolderMarks.swift`).
    let folderMarks = Mutex<[String: FolderMark]>([:])
    /// Whether `folderMarks` holds every folder (a scan or a whole rebuild made them); false
    /// after a start from the index until the first walk finishes: a folder without a mark is
    /// then told from the snapshot (`FolderMark(told:)`), so a change is patched in at once.
    let marksWhole = Atomic<Bool>(false)
    /// The stamp of `gallery.json` the snapshot was last built with: a following process
    /// builds again when it moved, and the writer's walk then scans whole (`checkFolders`).
    let followedManifest = Mutex<FileStamp?>(nil)
    /// Folders whose change the removal guard holds back (`applyFolderChanges`).
    let heldFolders = Mutex<Set<String>>([])
    /// Folders listed from the file system so far (tests count them).
    let foldersListed = Atomic<Int>(0)
    private let refreshInterval: Double
    let log: @Sendable (String) -> Void
    private let started = Atomic<Bool>(false)
    /// Held by the watcher thread around each step of work; closed by `stopWatching`.
    private let gate = WorkGate()
    /// The index the first catalog came from (nil: scanned), and its writer in this process
    /// (nil while another process writes; made by `makeIndexer` when this one takes over).
    let index: LibraryIndex?
    private let indexerSlot: Mutex<LibraryIndexer?>
    private let makeIndexer: (@Sendable (LibraryIndex) -> LibraryIndexer)?
    /// This process's indexer, when it is the index's writer.
    public var indexer: LibraryIndexer? { indexerSlot.withLock { $0 } }
    /// Folder fingerprint at the last check and when the last full scan ran (uptime seconds).
    private let lastCheck = Mutex<(directories: UInt64, fullScanAt: Double)>((0, 0))
    /// A full scan runs at least this often (seconds) even when no folder changed, to catch
    /// files rewritten in place and changes behind symlinked folders. With inotify watching
    /// every folder, changes are noticed anyway, and the full scan is only a safety net.
    private let fullScanInterval: Double = 60
    private let fullScanIntervalWatched: Double = 600
    /// A process that does not index reads the index's generation this often (seconds), and
    /// tries to become the writer every `takeOverInterval` seconds.
    private let followInterval: Double = 1
    private let takeOverInterval: Double = 5
    /// Holds back scans that would drop much of the library at once (an empty mount).
    let removalGuard: RemovalGuard
    /// The file whose presence accepts what the guard holds back (nil without an index).
    private let acceptFile: String?
    /// Why the last scan was held back (nil: it was applied), for `/metrics` and the log.
    private let suspect = Mutex<String?>(nil)
    /// Whether the first catalog came from the index (else from a scan of the folder).
    private let startedFromIndex: Bool
    /// Whether this process compared its snapshot with the index once (`safetyWalk`).
    private let reconciled = Atomic<Bool>(false)

    /// Takes the catalog from `index` when it has one, else scans once now (so the first
    /// request sees the library). `makeIndexer` makes this process's indexer if it becomes
    /// the index's writer later (the writer before it exited).
    public init(scanner: CatalogScanner, refreshInterval: Double = 3, index: LibraryIndex? = nil, indexer: LibraryIndexer? = nil,
                makeIndexer: (@Sendable (LibraryIndex) -> LibraryIndexer)? = nil,
                removalGuard: RemovalGuard = RemovalGuard(), log: @escaping @Sendable (String) -> Void) {
        self.scanner = scanner
        self.indexerSlot = Mutex(indexer)
        self.makeIndexer = makeIndexer
        self.removalGuard = removalGuard
        self.acceptFile = index.map { RemovalGuard.acceptFile(indexPath: $0.path) }
        self.refreshInterval = max(0.2, refreshInterval)
        self.log = log
        self.index = index
        let start = CatalogStore.now()
        // Read before the listing: a pass that lands in between is read again, never missed.
        let generation = index?.generation() ?? 0
        // Each folder's photos are read from the index when the build reaches it: no listing
        // of the whole library is held beside the catalog being built (`IndexedFolders`).
        // An index of another folder counts as none (`LibraryRootMark.swift`).
        let realRoot = ImageFiles.realPath(scanner.root) ?? scanner.root
        let ofThisLibrary = index?.holdsLibrary(at: realRoot) ?? false
        if let index, !ofThisLibrary { log("index: \(index.path) holds another folder's library; \(realRoot) is scanned and indexed") }
        if ofThisLibrary, let fromIndex = index?.readFolders({ scanner.build(from: &$0) }) {
            startedFromIndex = true
            let built = CatalogStore.now()
            state = Mutex((fromIndex.catalog, fromIndex.catalog.publicView(), fromIndex.fingerprint))
            basis = Mutex((fromIndex.manifest, generation))
            // The build's garbage (growing tables, per-folder listings, SQLite's pages) would
            // otherwise stay in RSS as malloc's free memory.
            MemoryTrim.releaseFreedMemory()
            func ms(_ seconds: Double) -> Int { Int(seconds * 1000) }
            log("catalog: \(fromIndex.catalog.albums.count) albums, \(fromIndex.catalog.items.count) items from the index in "
                + "\(ms(CatalogStore.now() - start)) ms (read and built \(ms(built - start)), public view \(ms(CatalogStore.now() - built))); "
                + (indexer != nil ? "scanning in the background" : "following the index another process writes"))
        } else {
            startedFromIndex = false
            var kept: [String: FolderMark] = [:]
            let first = scanner.build { relativePath, absolute, state in
                let entries = scanner.listFolder(relativePath: relativePath, absolute: absolute, realRoot: state.realRoot)
                if !entries.unreadable { kept[relativePath] = FolderMark(entries) }
                return entries
            }
            for w in first.warnings { log("catalog: \(w)") }
            state = Mutex((first.catalog, first.catalog.publicView(), first.fingerprint))
            basis = Mutex((first.manifest, generation))
            folderMarks.withLock { $0 = kept }
            marksWhole.store(true, ordering: .relaxed)
            // The polling watcher's baseline (the inotify one needs none; tests call
            // refreshIfFoldersChanged without starting a watcher).
            lastCheck.withLock { $0 = (scanner.directoryFingerprint(), start) }
        }
        let manifestStamp = manifestFileStamp()
        followedManifest.withLock { $0 = manifestStamp }
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The watcher's step when polling: a full scan only when a folder's mtime moved or the
    /// full-scan interval has passed. Returns true when the catalog changed.
    @discardableResult
    public func refreshIfFoldersChanged() -> Bool {
        let directories = scanner.directoryFingerprint()
        let now = CatalogStore.now()
        let due = lastCheck.withLock { last -> Bool in
            let due = last.directories != directories || now - last.fullScanAt >= fullScanInterval
            if due { last = (directories, now) }
            return due
        }
        return due ? refresh() : false
    }

    /// The latest snapshot.
    public var catalog: Catalog { state.withLock { $0.catalog } }

    /// The latest snapshot without private albums (`Catalog.publicView`), made once per scan.
    public var publicCatalog: Catalog { state.withLock { $0.publicView } }

    /// The latest snapshot and its fingerprint (which changes whenever the snapshot does).
    public var versioned: (catalog: Catalog, fingerprint: UInt64) { state.withLock { ($0.catalog, $0.fingerprint) } }

    /// Re-scans now; returns true when something changed. `force` swaps in the new snapshot
    /// even when no file changed (the index learned dates that reorder albums).
    @discardableResult
    public func refresh(force: Bool = false) -> Bool {
        scan(force: force, giveWay: nil) ?? false
    }

    /// `refresh`, giving up (nil, nothing replaced) as soon as `giveWay` says so between two
    /// folders: the folders not listed yet count as empty, so the build ends at once.
    func scan(force: Bool, giveWay: (@Sendable () -> Bool)?) -> Bool? {
        var kept: [String: FolderMark] = [:]
        var gaveWay = false
        let current = catalog
        let manifestStamp = manifestFileStamp()
        let result = scanner.build(expected: current.items.count + current.albums.count) { relativePath, absolute, state in
            if gaveWay || giveWay?() == true {
                gaveWay = true
                return CatalogScanner.FolderEntries()
            }
            let entries = scanner.listFolder(relativePath: relativePath, absolute: absolute, realRoot: state.realRoot)
            foldersListed.add(1, ordering: .relaxed)
            if !entries.unreadable { kept[relativePath] = FolderMark(entries) }
            return entries
        }
        if gaveWay { return nil }
        if held(next: result.catalog, unreadable: result.unreadableFolders) { return false }
        heldFolders.withLock { $0 = [] }
        folderMarks.withLock { $0 = kept }
        marksWhole.store(true, ordering: .relaxed)
        basis.withLock { $0.manifest = result.manifest }
        followedManifest.withLock { $0 = manifestStamp }
        let changed = state.withLock { current -> Bool in
            guard force || current.fingerprint != result.fingerprint else { return false }
            current = (result.catalog, result.catalog.publicView(), result.fingerprint)
            return true
        }
        // The scan's own garbage (and the replaced snapshot, once requests let go of it).
        MemoryTrim.releaseFreedMemory()
        if changed {
            for w in result.warnings { log("catalog: \(w)") }
            log("catalog: rescanned, \(result.catalog.albums.count) albums, \(result.catalog.items.count) items")
        }
        return changed
    }

    /// Whether the catalog `next` (with the folders its scan could not read) is held back by
    /// the removal guard (logged when the reason changes). An accept file (left by
    /// `gallery index --accept-removals`) lets it through once.
    func held(next: Catalog, unreadable: Set<String>) -> Bool {
        let problem = removalGuard.problem(current: catalog, next: next, unreadable: unreadable)
        if problem != nil, let acceptFile, unlink(acceptFile) == 0 {
            log("catalog: removals accepted by the operator: \(problem!)")
            suspect.withLock { $0 = nil }
            return false
        }
        let previous = suspect.withLock { state -> String? in
            defer { state = problem }
            return state
        }
        if let problem, problem != previous {
            log("catalog: scan held back, the library is kept as it was: \(problem). It is applied when the folder is back; "
                + "if the photos are really gone, run gallery index --accept-removals")
        } else if problem == nil, let previous {
            log("catalog: scan applied again (held back before: \(previous))")
        }
        return problem != nil
    }

    /// Why scans are held back now, nil when they are applied (`/metrics`).
    public var heldBack: String? { suspect.withLock { $0 } }

    /// Scans, then lets the indexer read what changed; albums whose order or pairing depends
    /// on what it learned are made again from the snapshot's rows. Returns the indexing pass's
    /// summary (nil without an indexer in this process).
    @discardableResult
    public func refreshAndIndex(force: Bool = false) -> LibraryIndexer.Summary? {
        let changed = refresh(force: force)
        index?.flushPlaceholders()
        guard changed || force else { return nil }
        return indexPass(folders: nil)
    }

    /// Lets the indexer read what the current catalog has and the index has not (in
    /// `folders` only, when given); when it changed anything, the albums among those it
    /// changed that sort by date or pair by content identifier are made again
    /// (`reorderByIndex`), without a scan.
    @discardableResult
    func indexPass(folders: Set<String>?) -> LibraryIndexer.Summary? {
        guard let indexer else { return nil }
        let summary = indexer.refresh(catalog, folders: folders)
        if summary.changed {
            log("index: \(summary.read) read, \(summary.removed) removed, \(summary.failed) failed, \(summary.photos) photos in "
                + "\(String(format: "%.3f", summary.seconds)) s, generation \(summary.generation ?? 0)")
            if let generation = summary.generation { basis.withLock { $0.generation = generation } }
            reorderByIndex(summary.albums)
        }
        return summary
    }

    /// Starts the background thread (once): a first scan and indexing pass at once, then
    /// inotify (or polling) for changes. In a process that is not the index's writer, the
    /// thread follows the index instead, and takes over when the writer is gone.
    public func startWatching() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread { [self] in watchLoop() }
    }

    /// Stops the watcher thread for good: the indexing pass under way stops after the files
    /// being read now, and no later step starts. Waits up to `timeout` seconds; false when a
    /// step was still running then. Call it before the process exits.
    @discardableResult
    public func stopWatching(timeout: Double) -> Bool {
        indexer?.cancel()
        return gate.close(timeout: timeout)
    }

    /// Whether this process only follows the index another process writes.
    var isFollower: Bool { index != nil && indexer == nil }

    /// Becomes the index's writer when the lock is free (the writer exited or died: the
    /// kernel released its `flock`); true when this process took over.
    @discardableResult
    public func tryTakeOver() -> Bool {
        guard let index, let makeIndexer, isFollower, index.claimWriter() else { return false }
        indexerSlot.withLock { $0 = makeIndexer(index) }
        log("index: the indexing process is gone; this process (pid \(getpid())) watches and indexes now")
        return true
    }

    private func watchLoop() {
        var lastTry = CatalogStore.now()
        while isFollower {
            Thread.sleep(forTimeInterval: followInterval)
            let ran = gate.run {
                // The patch copied the row table; the replaced one is gone once this returns.
                if followIndex() { MemoryTrim.releaseFreedMemory() }
                if CatalogStore.now() - lastTry >= takeOverInterval {
                    lastTry = CatalogStore.now()
                    tryTakeOver()
                }
            }
            guard ran else { return }
        }
        watchFolders()
    }

    /// The writer's loop (and every process's without an index).
    private func watchFolders() {
        // The folders are watched before the first pass, so a change made while it runs (a
        // first indexing of a large library takes minutes) is queued and handled right after
        // it, instead of waiting for the next full scan; the folders that pass found are
        // watched once it is done.
        let watcher = DirectoryWatcher()
        let root = ImageFiles.realPath(scanner.root) ?? scanner.root
        var watching = watcher.map { $0.watch(folders(), root: root) != nil } ?? false
        // Walks given up for a change since the last finished one (`fullWalk`).
        var walksGivenUp = 0
        let started = gate.run {
            if !fullWalk(giveWay: watching ? watcher?.noticesWaiting : nil) { walksGivenUp = 1 }
            // Notices that came during the pass stay pending: the loop applies them next.
            if let watcher, watching { watching = watcher.watch(folders(), root: root) != nil }
        }
        guard started else { return }
        if watcher == nil { log("catalog: inotify unavailable; polling folders every \(refreshInterval) s") }
        if watcher != nil && !watching { log("catalog: inotify refused a watch (fs.inotify.max_user_watches?); polling folders") }
        var lastFull = CatalogStore.now()
        while true {
            if let watcher, watching {
                // Wake every few seconds to write placeholders, even when nothing changes.
                _ = watcher.waitForChange(timeout: 5)
                let ran = gate.run {
                    let before = versioned.fingerprint
                    defer { if versioned.fingerprint != before { MemoryTrim.releaseFreedMemory() } }
                    let due = walksGivenUp > 0 || CatalogStore.now() - lastFull >= fullScanIntervalWatched
                    let changes = watcher.takeChanges()
                    // A due walk gives way to changes, a few times in a row; then it runs
                    // through and covers them (a sync client writing all day must not starve it).
                    if due && (changes.isEmpty || walksGivenUp >= Self.walkGiveWayLimit) {
                        let yielding = walksGivenUp < Self.walkGiveWayLimit ? watcher.noticesWaiting : nil
                        if fullWalk(giveWay: yielding) {
                            walksGivenUp = 0
                            lastFull = CatalogStore.now()
                        } else {
                            walksGivenUp += 1
                        }
                    } else {
                        if due { walksGivenUp += 1 }
                        switch changes {
                        case .everything:
                            refreshAndIndex()
                        case .folders(let changed) where !changed.isEmpty:
                            applyFolderChanges(changed)
                        case .folders:
                            index?.flushPlaceholders()
                        }
                    }
                    // Folders new since the last step are watched now; what was written in
                    // them before their watch began is found by listing them once more.
                    if let added = watcher.watch(folders(), root: root) {
                        if !added.isEmpty { applyFolderChanges(Set(added)) }
                    } else {
                        watching = false
                        log("catalog: inotify refused a watch (fs.inotify.max_user_watches?); polling folders")
                    }
                }
                guard ran else { return }
            } else {
                Thread.sleep(forTimeInterval: refreshInterval)
                let ran = gate.run {
                    if refreshIfFoldersChanged() {
                        indexPass(folders: nil)
                    } else {
                        index?.flushPlaceholders()
                    }
                }
                guard ran else { return }
            }
        }
    }

    /// The safety-net walk (at start and every 10 minutes), on a thread at the lowest
    /// priority: the index is the truth, so this walk is a check, and at start it used to take
    /// a core from the first page views. Each folder is listed and compared with the snapshot
    /// (`checkFolders`); only the folders that differ are applied, as a change inotify names
    /// (`applyFolderChanges`); a tree the check cannot judge gets the whole scan. A walk stops
    /// as soon as inotify has notices (between two folders): the change is applied first, at
    /// normal priority, and the walk starts again after it. False when it stopped so.
    private func fullWalk(giveWay: (@Sendable () -> Bool)?) -> Bool {
        let finished = Atomic<Bool>(false)
        BackgroundLanes.runAtIdle(name: "library-walk") { [self] in
            finished.store(safetyWalk(giveWay: giveWay), ordering: .relaxed)
        }
        return finished.load(ordering: .relaxed)
    }

    /// The walk's work on the calling thread (tests call it); false when it gave way.
    func safetyWalk(giveWay: (@Sendable () -> Bool)?) -> Bool {
        let start = CatalogStore.now(), listedBefore = foldersListed.load(ordering: .relaxed)
        switch checkFolders(giveWay: giveWay) {
        case .gaveWay:
            return false
        case .needsScan:
            guard scan(force: true, giveWay: giveWay) != nil else { return false }
            index?.flushPlaceholders()
            reconciled.store(true, ordering: .relaxed)
            indexPass(folders: nil)
            markLibrary()
        case .listed(let changed):
            log("catalog: walk listed \(foldersListed.load(ordering: .relaxed) - listedBefore) folders in "
                + "\(Int((CatalogStore.now() - start) * 1000)) ms, \(changed.count) differ from the snapshot")
            // Folders held back before are judged again with them (and let go when back).
            if !changed.isEmpty || !heldFolders.withLock({ $0.isEmpty }) { applyFolderChanges(changed) }
            // Every folder has a mark now, but those whose change the removal guard held back.
            if heldFolders.withLock({ $0.isEmpty }) { marksWhole.store(true, ordering: .relaxed) }
            index?.flushPlaceholders()
            if !reconciled.exchange(true, ordering: .relaxed) {
                // Once per process, what the index itself may lack: a snapshot scanned from the
                // folder was never compared with the index; one from the index only needs the
                // folders whose rows an older build read (their facts are read again).
                if startedFromIndex, let index {
                    if let older = index.foldersWithOlderFacts(), !older.isEmpty { indexPass(folders: older) }
                    index.markFactsCurrent()
                } else {
                    indexPass(folders: nil)
                }
                markLibrary()
            }
        }
        if index?.coverFolderListings() == true { log("index: folder listings are read from their own index now") }
        return true
    }

    /// Marks the index as this folder's library once a pass compared its rows with the folder
    /// (not when the pass was cancelled or the removal guard holds a scan back: the rows may
    /// still be another library's, as in a file from before the mark).
    private func markLibrary() {
        guard let index, let indexer, !indexer.isCancelled, heldBack == nil else { return }
        index.markLibrary(at: ImageFiles.realPath(scanner.root) ?? scanner.root)
    }

    /// How many walks in a row give way to changes before one runs through.
    static let walkGiveWayLimit = 3

    /// Relative paths of the root ("") and every album folder of the current catalog.
    private func folders() -> [String] {
        catalog.albums.values.map(\.relativePath)
    }
}
