import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Originals of remote images on disk, shared by every worker process of a host.
///
/// Layout in `directory`: `<sha256(url)>` holds the bytes, `<sha256(url)>.json` the metadata,
/// `<sha256(url)>.lock` is the flock that keeps a download (or revalidation) single across
/// processes. Bytes and metadata are each written to a temp file in the same folder and
/// fsynced, then renamed into place one right after the other. A revalidation may replace an
/// entry while other processes read it, and two renames are not one atomic step, so a reader
/// checks the bytes against the metadata's version (their SHA-256; once per data file per
/// process, see `verified`) and reads again once when they disagree: it sees a whole entry, old
/// or new, or none. The data file's mtime is its last access (one futimens per hit, no rewrite
/// of the JSON), which is what LRU eviction sorts by.
final class DiskDataCache: Sendable {
    /// Length of an entry's key: hex SHA-256 of its URL.
    static let keyLength = 64
    static let metadataSuffix = ".json"
    static let lockSuffix = ".lock"
    /// What a new entry's metadata file is counted as before eviction measures it, in bytes
    /// (a typical one is 250-450).
    static let metadataAllowance = 512
    /// Age in seconds after which a crashed writer's temp file or a failed fetch's lock file
    /// is removed: an hour, far longer than any write or fetch takes.
    static let staleAfter: Double = 3600
    /// Interval in seconds between log lines about a disk that refuses writes.
    static let failureLogInterval: Double = 60

    let directory: String
    /// Bound on the bytes of all entries (data + metadata).
    let maxBytes: Int
    /// Eviction stops once the total is at or below this.
    let lowWaterBytes: Int
    let clock: PipelineClock
    let log: @Sendable (String) -> Void
    private let writer: AtomicFileWriter
    private let reportFailure: LogThrottle
    /// Bytes of entries this process knows of; rescanned from disk whenever eviction runs.
    private let total = Mutex(0)

    /// A data file this process has matched to its version: its inode and size at the time.
    private struct Verified: Equatable {
        var inode: UInt64
        var size: Int
        var version: String
    }
    /// By entry key. A read whose data file still has the recorded inode and size, under
    /// metadata naming the same version, skips hashing the bytes: a replacement brings a new
    /// inode (a renamed temp file, created while the old file was still linked), so a torn pair
    /// never matches. Hashing costs about 4 ms per MB; this makes it once per entry per process.
    /// A file damaged in place while this process runs keeps its inode and is not noticed until
    /// the next start (as with the length check before versions were checked at all).
    private let verified = BoundedMap<String, Verified>(limit: 100_000)

    init(directory: String, maxBytes: Int, lowWaterFraction: Double, clock: PipelineClock = .system,
         log: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.lowWaterBytes = Int(Double(maxBytes) * min(max(lowWaterFraction, 0), 1))
        self.clock = clock
        self.log = log
        writer = AtomicFileWriter(directory: directory)
        reportFailure = LogThrottle(interval: Self.failureLogInterval, clock: clock) { log($0 + " (serving from memory, uncached)") }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            log("disk cache: cannot create \(directory): \(error.localizedDescription); serving uncached")
        }
        let scanned = scan().reduce(0) { $0 + $1.bytes }
        total.withLock { $0 = scanned }
    }

    /// The file name of `url`'s entry: hex SHA-256 of the URL text.
    static func key(_ url: String) -> String { SHA256.hex(url) }

    func path(_ key: String, _ suffix: String = "") -> String { directory + "/" + key + suffix }

    /// The entry for `url`, or nil. An entry whose bytes do not match its metadata (length, then
    /// SHA-256 against the version) is read once more, in case a replacement was between its two
    /// renames, and then deleted (and reported) so the caller fetches it again. The hash is
    /// checked once per data file per process (`verified`); in exchange a version in a URL never
    /// names other bytes, whether the cause is a concurrent replacement or a file damaged
    /// before this process first read it.
    func read(_ url: String) -> (bytes: [UInt8], metadata: Metadata)? {
        let key = Self.key(url)
        var problem = ""
        for _ in 0..<2 {
            guard let meta = metadata(url) else { return nil }
            let fd = open(path(key), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                problem = "metadata without data"
                continue
            }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0 else {
                problem = "cannot stat data"
                continue
            }
            let file = Verified(inode: UInt64(st.st_ino), size: Int(st.st_size), version: meta.version)
            guard let bytes = LocalSource.readAll(fd: fd, maxBytes: meta.length), bytes.count == meta.length else {
                problem = "length does not match metadata \(meta.length)"
                continue
            }
            if verified[key] != file {
                guard PipelineEngine.version(of: bytes) == meta.version else {
                    problem = "bytes do not hash to version \(meta.version)"
                    continue
                }
                verified.set(file, for: key)
            }
            // Last access = mtime; a failure here (read-only disk) only makes the LRU coarser.
            markUsed { futimens(fd, $0) }
            return (bytes, meta)
        }
        remove(url, reason: problem)
        return nil
    }

    /// The metadata of `url`'s entry alone (no bytes read), or nil. Metadata that does not decode
    /// or names another URL removes the entry; data without metadata is removed too.
    func metadata(_ url: String) -> Metadata? {
        let key = Self.key(url)
        guard let metaBytes = FileManager.default.contents(atPath: path(key, Self.metadataSuffix)) else {
            if access(path(key), F_OK) == 0 { remove(url, reason: "data without metadata") }
            return nil
        }
        guard let meta = try? JSONDecoder().decode(Metadata.self, from: metaBytes), meta.url == url else {
            remove(url, reason: "unreadable metadata")
            return nil
        }
        return meta
    }

    /// Stores `bytes` for `metadata.url` atomically, replacing any entry it had. Both files are
    /// written and fsynced before either is renamed, so the window in which a reader can see
    /// one new file and one old is two renames long. Returns false (and logs, at most once a
    /// minute) when the disk refuses: read-only, full, or missing folder; the entry is then gone.
    /// Callers replacing an entry hold its entry lock.
    @discardableResult
    func write(_ bytes: [UInt8], metadata: Metadata) -> Bool {
        let key = Self.key(metadata.url)
        var old = stat()
        let replaced = stat(path(key), &old) == 0 ? Int(old.st_size) : 0
        var temps: [String] = []
        defer { for t in temps { unlink(t) } }
        do {
            let json = try JSONEncoder().encode(metadata)
            temps.append(try writer.writeTemp(bytes))
            temps.append(try writer.writeTemp(json))
            var st = stat()
            let written = stat(temps[0], &st) == 0 ? Verified(inode: UInt64(st.st_ino), size: bytes.count, version: metadata.version) : nil
            verified.remove(key)
            try writer.commit(temps[0], to: path(key))
            markUsed { utimensat(AT_FDCWD, path(key), $0, 0) }
            try writer.commit(temps[1], to: path(key, Self.metadataSuffix))
            temps = []
            // The caller made the version from these very bytes: no need to hash them again.
            if let written { verified.set(written, for: key) }
            writer.syncDirectory()
        } catch {
            unlink(path(key))
            reportFailure("disk cache: cannot store \(metadata.url): \(error)")
            return false
        }
        let now = total.withLock { t -> Int in
            t += bytes.count - replaced + (replaced > 0 ? 0 : Self.metadataAllowance)
            return t
        }
        if now > maxBytes { evict() }
        return true
    }

    /// Replaces the metadata of an entry whose bytes stay (a revalidation's outcome), atomically.
    /// False when the entry is gone (evicted meanwhile) or the disk refuses. Callers hold the
    /// entry lock.
    @discardableResult
    func updateMetadata(_ metadata: Metadata) -> Bool {
        let key = Self.key(metadata.url)
        guard access(path(key), F_OK) == 0 else { return false }
        do {
            let json = try JSONEncoder().encode(metadata)
            let temp = try writer.writeTemp(json)
            do { try writer.commit(temp, to: path(key, Self.metadataSuffix)) } catch {
                unlink(temp)
                throw error
            }
            writer.syncDirectory()
            return true
        } catch {
            reportFailure("disk cache: cannot update metadata of \(metadata.url): \(error)")
            return false
        }
    }

    /// Sets a data file's access and modification time to the clock's now: its mtime is what
    /// LRU eviction sorts by, so it follows the same (injectable) clock as everything else.
    private func markUsed(_ set: (UnsafePointer<timespec>) -> Int32) {
        let now = clock.now()
        let whole = now.rounded(.down)
        let t = timespec(tv_sec: Int(whole), tv_nsec: Int((now - whole) * 1e9))
        let times = [t, t]
        _ = times.withUnsafeBufferPointer { set($0.baseAddress!) }
    }

    /// Deletes `url`'s entry (corrupt, undecodable or evicted).
    func remove(_ url: String, reason: String) {
        let key = Self.key(url)
        log("disk cache: dropping entry for \(url): \(reason)")
        var st = stat()
        if stat(path(key), &st) == 0 { total.withLock { $0 -= Int(st.st_size) } }
        verified.remove(key)
        unlink(path(key))
        unlink(path(key, Self.metadataSuffix))
    }

    /// Bytes currently accounted for.
    var totalBytes: Int { total.withLock { $0 } }

    /// Sets the total after a scan measured it.
    func setTotal(_ bytes: Int) { total.withLock { $0 = bytes } }
}
