import Foundation
import Synchronization

/// Holds the current catalog and re-scans the folder in the background every
/// `refreshInterval` seconds; a new snapshot replaces the old one only when the fingerprint
/// changed. Requests never wait for a scan.
public final class CatalogStore: Sendable {
    private let scanner: CatalogScanner
    private let state: Mutex<(catalog: Catalog, publicView: Catalog, fingerprint: UInt64)>
    private let refreshInterval: Double
    private let log: @Sendable (String) -> Void
    private let started = Atomic<Bool>(false)
    /// Folder fingerprint at the last check and when the last full scan ran (uptime seconds).
    private let lastCheck = Mutex<(directories: UInt64, fullScanAt: Double)>((0, 0))
    /// A full scan runs at least this often (seconds) even when no folder changed, to catch
    /// files rewritten in place and changes behind symlinked folders.
    private let fullScanInterval: Double = 60

    /// Scans once now (so the first request sees the library).
    public init(scanner: CatalogScanner, refreshInterval: Double = 3, log: @escaping @Sendable (String) -> Void) {
        self.scanner = scanner
        self.refreshInterval = max(0.2, refreshInterval)
        self.log = log
        let first = scanner.scan()
        for w in first.warnings { log("catalog: \(w)") }
        state = Mutex((first.catalog, first.catalog.publicView(), first.fingerprint))
        lastCheck.withLock { $0 = (scanner.directoryFingerprint(), CatalogStore.now()) }
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The watcher's step: a full scan only when a folder's mtime moved or the full-scan
    /// interval has passed. Returns true when the catalog changed.
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

    /// Re-scans now; returns true when something changed.
    @discardableResult
    public func refresh() -> Bool {
        let result = scanner.scan()
        let changed = state.withLock { current -> Bool in
            guard current.fingerprint != result.fingerprint else { return false }
            current = (result.catalog, result.catalog.publicView(), result.fingerprint)
            return true
        }
        if changed {
            for w in result.warnings { log("catalog: \(w)") }
            log("catalog: rescanned, \(result.catalog.albums.count) albums, \(result.catalog.items.count) items")
        }
        return changed
    }

    /// Starts the background re-scan thread (once).
    public func startWatching() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let interval = refreshInterval
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: interval)
                self.refreshIfFoldersChanged()
            }
        }
    }
}
