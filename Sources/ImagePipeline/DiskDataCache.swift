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
    /// What is known about an entry besides its bytes.
    struct Metadata: Codable, Sendable, Equatable {
        var url: String
        var length: Int
        var contentType: String
        /// First 12 hex digits of SHA-256 of the bytes.
        var version: String
        var etag: String?
        var lastModified: String?
        /// Seconds since 1970 when the origin answered.
        var fetchedAt: Double
        /// Seconds since 1970 when the origin last sent or confirmed these bytes; nil in entries
        /// written before revalidation existed, whose age counts from `fetchedAt`.
        var validatedAt: Double? = nil
        /// When the last revalidation failed, nil after a success. Kept on disk so that every
        /// worker process (and the next start) waits out the back-off, not only the one that tried.
        var revalidationFailedAt: Double? = nil

        /// The time the revalidation age counts from.
        var lastValidated: Double { validatedAt ?? fetchedAt }
    }

    let directory: String
    /// Bound on the bytes of all entries (data + metadata).
    let maxBytes: Int
    /// Eviction stops once the total is at or below this.
    let lowWaterBytes: Int
    private let log: @Sendable (String) -> Void
    /// Bytes of entries this process knows of; rescanned from disk whenever eviction runs.
    private let total = Mutex(0)
    private let lastFailureLog = Mutex(0.0)
    private let tempCounter = Mutex(0)

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
    private let verified = Mutex<[String: Verified]>([:])
    private static let maxVerified = 100_000

    init(directory: String, maxBytes: Int, lowWaterFraction: Double, log: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.lowWaterBytes = Int(Double(maxBytes) * min(max(lowWaterFraction, 0), 1))
        self.log = log
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

    private func path(_ key: String, _ suffix: String = "") -> String { directory + "/" + key + suffix }

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
            if verified.withLock({ $0[key] }) != file {
                guard String(SHA256.hex(bytes).prefix(12)) == meta.version else {
                    problem = "bytes do not hash to version \(meta.version)"
                    continue
                }
                remember(key, file)
            }
            // Last access = mtime; a failure here (read-only disk) only makes the LRU coarser.
            _ = futimens(fd, nil)
            return (bytes, meta)
        }
        remove(url, reason: problem)
        return nil
    }

    /// The metadata of `url`'s entry alone (no bytes read), or nil. Metadata that does not decode
    /// or names another URL removes the entry; data without metadata is removed too.
    func metadata(_ url: String) -> Metadata? {
        let key = Self.key(url)
        guard let metaBytes = FileManager.default.contents(atPath: path(key, ".json")) else {
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
            temps.append(try writeTemp(bytes))
            temps.append(try json.withUnsafeBytes { raw in try writeTemp(UnsafeRawBufferPointer(raw)) })
            var st = stat()
            let written = stat(temps[0], &st) == 0 ? Verified(inode: UInt64(st.st_ino), size: bytes.count, version: metadata.version) : nil
            verified.withLock { _ = $0.removeValue(forKey: key) }
            try commit(temps[0], to: path(key))
            try commit(temps[1], to: path(key, ".json"))
            temps = []
            // The caller made the version from these very bytes: no need to hash them again.
            if let written { remember(key, written) }
            syncDirectory()
        } catch {
            unlink(path(key))
            reportFailure("disk cache: cannot store \(metadata.url): \(error)")
            return false
        }
        let now = total.withLock { t -> Int in
            t += bytes.count - replaced + (replaced > 0 ? 0 : 512)
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
            let temp = try json.withUnsafeBytes { raw in try writeTemp(UnsafeRawBufferPointer(raw)) }
            do { try commit(temp, to: path(key, ".json")) } catch {
                unlink(temp)
                throw error
            }
            syncDirectory()
            return true
        } catch {
            reportFailure("disk cache: cannot update metadata of \(metadata.url): \(error)")
            return false
        }
    }

    /// Deletes `url`'s entry (corrupt, undecodable or evicted).
    func remove(_ url: String, reason: String) {
        let key = Self.key(url)
        log("disk cache: dropping entry for \(url): \(reason)")
        var st = stat()
        if stat(path(key), &st) == 0 { total.withLock { $0 -= Int(st.st_size) } }
        verified.withLock { _ = $0.removeValue(forKey: key) }
        unlink(path(key))
        unlink(path(key, ".json"))
    }

    private func remember(_ key: String, _ file: Verified) {
        verified.withLock { table in
            if table.count >= Self.maxVerified { table.removeAll() }
            table[key] = file
        }
    }

    /// Runs `body` holding the cross-process lock of `url`'s entry, so only one worker process
    /// downloads (or revalidates) it. Without a writable folder there is nothing to share, and no lock.
    ///
    /// A process that had to wait for the lock shares the outcome of the attempt it waited for,
    /// as waiters inside one process do through the coalescer: when that attempt failed (its
    /// error is left in the lock file), the waiter gets the same error instead of starting a
    /// second attempt behind it. Without this, processes queued behind a hanging origin waited
    /// one timeout each (measured 12 s with two processes and a 5 s timeout). Nothing is
    /// remembered for later requests: a request that finds the lock free always tries again.
    func withEntryLock<T>(_ url: String, _ body: () throws(PipelineError) -> T) throws(PipelineError) -> T {
        let fd = open(path(Self.key(url), ".lock"), O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        var waitedSince: Double?
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            waitedSince = Date().timeIntervalSince1970
            while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        }
        defer { flock(fd, LOCK_UN) }
        if let since = waitedSince, let failure = Self.readFailure(fd), failure.at >= since {
            throw failure.error
        }
        do {
            let value = try body()
            ftruncate(fd, 0)
            return value
        } catch {
            Self.writeFailure(error, to: fd)
            throw error
        }
    }

    /// "<unix time>\t<case>\t<message>": the failed attempt a waiting process should share.
    private static func writeFailure(_ error: PipelineError, to fd: Int32) {
        let (name, message): (String, String)
        switch error {
        case .originTimedOut(let m): (name, message) = ("timeout", m)
        case .notAnImage(let m): (name, message) = ("notAnImage", m)
        case .undecodable(let m): (name, message) = ("undecodable", m)
        default: (name, message) = ("failed", error.description)
        }
        let line = "\(Date().timeIntervalSince1970)\t\(name)\t\(message.prefix(300))"
        ftruncate(fd, 0)
        _ = Array(line.utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    private static func readFailure(_ fd: Int32) -> (at: Double, error: PipelineError)? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let fields = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\t", maxSplits: 2).map(String.init)
        guard fields.count == 3, let at = Double(fields[0]) else { return nil }
        let message = fields[2]
        switch fields[1] {
        case "timeout": return (at, .originTimedOut(message))
        case "notAnImage": return (at, .notAnImage(message))
        case "undecodable": return (at, .undecodable(message))
        default: return (at, .originFailed(message))
        }
    }

    /// Bytes currently accounted for.
    var totalBytes: Int { total.withLock { $0 } }

    /// Deletes least recently used entries until the total is at or below the low-water mark.
    /// One process evicts at a time; the others skip, as the work would be the same.
    func evict() {
        let lockFD = open(directory + "/.evict.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard lockFD >= 0 else { return }
        defer { close(lockFD) }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else { return }
        defer { flock(lockFD, LOCK_UN) }
        var entries = scan()
        var sum = entries.reduce(0) { $0 + $1.bytes }
        if sum > maxBytes {
            entries.sort { $0.lastAccess < $1.lastAccess }
            var dropped = 0
            for e in entries where sum > lowWaterBytes {
                unlink(path(e.key, ".json"))
                unlink(path(e.key))
                removeIdleLock(e.key)
                sum -= e.bytes
                dropped += 1
            }
            log("disk cache: evicted \(dropped) entries, \(sum) bytes remain")
        }
        total.withLock { $0 = sum }
    }

    private struct ScannedEntry {
        var key: String
        var bytes: Int
        var lastAccess: Double
    }

    /// Every entry on disk with its size (data + metadata) and last access; removes temp
    /// files that a crashed writer left and idle locks of failed fetches, an hour on.
    private func scan() -> [ScannedEntry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let now = Date().timeIntervalSince1970
        var out: [ScannedEntry] = []
        for name in names {
            var st = stat()
            guard stat(path(name), &st) == 0 else { continue }
            let mtime = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            if name.hasPrefix(".tmp-") {
                if now - mtime > 3600 { unlink(path(name)) }
                continue
            }
            // Locks of URLs that never made it to disk (failed fetches) go after an hour.
            if name.hasSuffix(".lock"), name.utf8.count == 69 {
                let key = String(name.dropLast(5))
                if now - mtime > 3600, access(path(key), F_OK) != 0 { removeIdleLock(key) }
                continue
            }
            guard name.utf8.count == 64, name.utf8.allSatisfy({ isHexDigit($0) }) else { continue }
            var metaStat = stat()
            let metaBytes = stat(path(name, ".json"), &metaStat) == 0 ? Int(metaStat.st_size) : 0
            out.append(ScannedEntry(key: name, bytes: Int(st.st_size) + metaBytes, lastAccess: mtime))
        }
        return out
    }

    /// Removes a lock file nobody holds, so evicted entries leave nothing behind.
    private func removeIdleLock(_ key: String) {
        let fd = open(path(key, ".lock"), O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            unlink(path(key, ".lock"))
            flock(fd, LOCK_UN)
        }
    }

    private struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    /// A new temp file in the same folder holding `bytes`, fsynced; its path.
    private func writeTemp<C: ContiguousCollectionOfBytes>(_ bytes: C) throws -> String {
        try bytes.withBytes { try writeTemp(UnsafeRawBufferPointer($0)) }
    }

    private func writeTemp(_ bytes: UnsafeRawBufferPointer) throws -> String {
        let n = tempCounter.withLock { c -> Int in c += 1; return c }
        let temp = directory + "/.tmp-\(getpid())-\(n)"
        let fd = open(temp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(description: "create \(temp): \(errnoText())") }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(temp) }
        }
        var done = 0
        while done < bytes.count {
            let w = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if w < 0 && errno == EINTR { continue }
            guard w > 0 else { throw WriteError(description: "write \(temp): \(errnoText())") }
            done += w
        }
        guard fsync(fd) == 0 else { throw WriteError(description: "fsync \(temp): \(errnoText())") }
        ok = true
        return temp
    }

    /// Renames a written temp file over `target` (atomic within the folder).
    private func commit(_ temp: String, to target: String) throws {
        guard rename(temp, target) == 0 else { throw WriteError(description: "rename to \(target): \(errnoText())") }
    }

    /// Makes the renames durable.
    private func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private func reportFailure(_ message: String) {
        let now = Date().timeIntervalSince1970
        let due = lastFailureLog.withLock { last -> Bool in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        if due { log(message + " (serving from memory, uncached)") }
    }
}

private func errnoText() -> String { String(cString: strerror(errno)) }

private func isHexDigit(_ c: UInt8) -> Bool {
    (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
}
