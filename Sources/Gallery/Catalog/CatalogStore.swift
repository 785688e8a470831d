import Foundation
import ImagePipeline
import Synchronization

/// Holds the current catalog and keeps it in line with the folder from a background thread;
/// a new snapshot replaces the old one only when the fingerprint changed (or the index
/// brought new dates for albums sorted by date). Requests never wait for a scan.
///
/// With a library index, the first catalog comes from the index (no folder is read before
/// the first page is served); the watcher then scans the folder, lets the indexer read what
/// changed, and watches the folders with inotify, falling back to polling folder mtimes every
/// `refreshInterval` seconds where inotify is not available.
public final class CatalogStore: Sendable {
    private let scanner: CatalogScanner
    private let state: Mutex<(catalog: Catalog, publicView: Catalog, fingerprint: UInt64)>
    private let refreshInterval: Double
    private let log: @Sendable (String) -> Void
    private let started = Atomic<Bool>(false)
    /// Held by the watcher thread around each step of work; closed by `stopWatching`.
    private let gate = WorkGate()
    /// The index the first catalog came from (nil: scanned), and its writer in this process.
    private let index: LibraryIndex?
    private let indexer: LibraryIndexer?
    /// Folder fingerprint at the last check and when the last full scan ran (uptime seconds).
    private let lastCheck = Mutex<(directories: UInt64, fullScanAt: Double)>((0, 0))
    /// A full scan runs at least this often (seconds) even when no folder changed, to catch
    /// files rewritten in place and changes behind symlinked folders. With inotify watching
    /// every folder, changes are noticed anyway, and the full scan is only a safety net.
    private let fullScanInterval: Double = 60
    private let fullScanIntervalWatched: Double = 600
    /// Holds back scans that would drop much of the library at once (an empty mount).
    let removalGuard: RemovalGuard
    /// The file whose presence accepts what the guard holds back (nil without an index).
    private let acceptFile: String?
    /// Why the last scan was held back (nil: it was applied), for `/metrics` and the log.
    private let suspect = Mutex<String?>(nil)

    /// Takes the catalog from `index` when it has one, else scans once now (so the first
    /// request sees the library).
    public init(scanner: CatalogScanner, refreshInterval: Double = 3, index: LibraryIndex? = nil, indexer: LibraryIndexer? = nil,
                removalGuard: RemovalGuard = RemovalGuard(), log: @escaping @Sendable (String) -> Void) {
        self.scanner = scanner
        self.removalGuard = removalGuard
        self.acceptFile = index.map { RemovalGuard.acceptFile(indexPath: $0.path) }
        self.refreshInterval = max(0.2, refreshInterval)
        self.log = log
        self.index = index
        self.indexer = indexer
        let start = CatalogStore.now()
        if let listing = index?.listing() {
            let fromIndex = scanner.build(from: listing)
            state = Mutex((fromIndex.catalog, fromIndex.catalog.publicView(), fromIndex.fingerprint))
            log("catalog: \(fromIndex.catalog.albums.count) albums, \(fromIndex.catalog.items.count) items from the index in "
                + "\(Int((CatalogStore.now() - start) * 1000)) ms; scanning in the background")
        } else {
            let first = scanner.scan()
            for w in first.warnings { log("catalog: \(w)") }
            state = Mutex((first.catalog, first.catalog.publicView(), first.fingerprint))
            // The polling watcher's baseline (the inotify one needs none; tests call
            // refreshIfFoldersChanged without starting a watcher).
            lastCheck.withLock { $0 = (scanner.directoryFingerprint(), start) }
        }
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

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
        let result = scanner.scan()
        if held(result) { return false }
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

    /// Whether `result` is held back by the removal guard (logged when the reason changes). An
    /// accept file (left by `gallery index --accept-removals`) lets it through once.
    private func held(_ result: CatalogScanner.Result) -> Bool {
        let problem = removalGuard.problem(current: catalog, next: result.catalog, unreadable: result.unreadableFolders)
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

    /// Scans, then lets the indexer read what changed; when it did, scans again so albums
    /// sorted by date take the new dates. Returns the indexing pass's summary (nil without an
    /// indexer in this process).
    @discardableResult
    public func refreshAndIndex(force: Bool = false) -> LibraryIndexer.Summary? {
        let changed = refresh(force: force)
        index?.flushPlaceholders()
        guard changed || force else { return nil }
        return indexPass()
    }

    /// Lets the indexer read what the current catalog has and the index has not; when it
    /// changed anything, scans again so albums sorted by date take the new dates.
    @discardableResult
    private func indexPass() -> LibraryIndexer.Summary? {
        guard let indexer else { return nil }
        let summary = indexer.refresh(catalog)
        if summary.changed {
            log("index: \(summary.read) read, \(summary.removed) removed, \(summary.failed) failed, \(summary.photos) photos in \(String(format: "%.1f", summary.seconds)) s")
            refresh(force: true)
        }
        return summary
    }

    /// Starts the background thread (once): a first scan and indexing pass at once, then
    /// inotify (or polling) for changes.
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

    private func watchLoop() {
        // The folders are watched before the first pass, so a change made while it runs (a
        // first indexing of a large library takes minutes) is queued and handled right after
        // it, instead of waiting for the next full scan; the folders that pass found are
        // watched once it is done.
        let watcher = DirectoryWatcher()
        var watching = watcher.map { $0.watch(folders()) } ?? false
        let started = gate.run {
            refreshAndIndex(force: true)
            if let watcher, watching { watching = watcher.watch(folders()) }
        }
        guard started else { return }
        if watcher == nil { log("catalog: inotify unavailable; polling folders every \(refreshInterval) s") }
        if watcher != nil && !watching { log("catalog: inotify refused a watch (fs.inotify.max_user_watches?); polling folders") }
        var lastFull = CatalogStore.now()
        while true {
            if let watcher, watching {
                // Wake every few seconds to write placeholders, even when nothing changes.
                let changed = watcher.waitForChange(timeout: 5)
                let ran = gate.run {
                    let due = CatalogStore.now() - lastFull >= fullScanIntervalWatched
                    if changed || due {
                        refreshAndIndex(force: due)
                        if due { lastFull = CatalogStore.now() }
                        watching = watcher.watch(folders())
                        if !watching { log("catalog: inotify refused a watch (fs.inotify.max_user_watches?); polling folders") }
                    } else {
                        index?.flushPlaceholders()
                    }
                }
                guard ran else { return }
            } else {
                Thread.sleep(forTimeInterval: refreshInterval)
                let ran = gate.run {
                    if refreshIfFoldersChanged() {
                        indexPass()
                    } else {
                        index?.flushPlaceholders()
                    }
                }
                guard ran else { return }
            }
        }
    }

    /// Real paths of the root and every album folder of the current catalog.
    private func folders() -> [String] {
        guard let root = ImageFiles.realPath(scanner.root) else { return [] }
        var out = [root]
        for album in catalog.albums.values where !album.relativePath.isEmpty {
            out.append(root + "/" + album.relativePath)
        }
        return out
    }
}
