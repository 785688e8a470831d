import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Originals of remote images on disk, shared by every worker process of a host.
///
/// Layout in `directory`: `<sha256(url)>` holds the bytes, `<sha256(url)>.json` the metadata,
/// `<sha256(url)>.lock` is the flock that keeps a download single across processes. Bytes are
/// written to a temp file in the same folder, fsynced and renamed, then the metadata the same
/// way, so a reader sees a whole entry or none. The data file's mtime is its last access (one
/// futimens per hit, no rewrite of the JSON), which is what LRU eviction sorts by.
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

    /// The entry for `url`, or nil. An entry whose bytes do not match its metadata length is
    /// deleted (and reported) so the caller fetches it again.
    func read(_ url: String) -> (bytes: [UInt8], metadata: Metadata)? {
        let key = Self.key(url)
        guard let metaBytes = FileManager.default.contents(atPath: path(key, ".json")) else {
            if access(path(key), F_OK) == 0 { remove(url, reason: "data without metadata") }
            return nil
        }
        guard let meta = try? JSONDecoder().decode(Metadata.self, from: metaBytes), meta.url == url else {
            remove(url, reason: "unreadable metadata")
            return nil
        }
        let fd = open(path(key), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            remove(url, reason: "metadata without data")
            return nil
        }
        defer { close(fd) }
        guard let bytes = LocalSource.readAll(fd: fd, maxBytes: meta.length), bytes.count == meta.length else {
            remove(url, reason: "length does not match metadata \(meta.length)")
            return nil
        }
        // Last access = mtime; a failure here (read-only disk) only makes the LRU coarser.
        _ = futimens(fd, nil)
        return (bytes, meta)
    }

    /// Stores `bytes` for `metadata.url` atomically. Returns false (and logs, at most once a
    /// minute) when the disk refuses: read-only, full, or missing folder.
    @discardableResult
    func write(_ bytes: [UInt8], metadata: Metadata) -> Bool {
        let key = Self.key(metadata.url)
        do {
            let json = try JSONEncoder().encode(metadata)
            try atomicWrite(path(key), bytes)
            try json.withUnsafeBytes { raw in try atomicWrite(path(key, ".json"), UnsafeRawBufferPointer(raw)) }
            syncDirectory()
        } catch {
            unlink(path(key))
            reportFailure("disk cache: cannot store \(metadata.url): \(error)")
            return false
        }
        let now = total.withLock { t -> Int in
            t += bytes.count + 512
            return t
        }
        if now > maxBytes { evict() }
        return true
    }

    /// Deletes `url`'s entry (corrupt, undecodable or evicted).
    func remove(_ url: String, reason: String) {
        let key = Self.key(url)
        log("disk cache: dropping entry for \(url): \(reason)")
        var st = stat()
        if stat(path(key), &st) == 0 { total.withLock { $0 -= Int(st.st_size) } }
        unlink(path(key))
        unlink(path(key, ".json"))
    }

    /// Runs `body` holding the cross-process lock of `url`'s entry, so only one worker process
    /// downloads it. Without a writable folder there is nothing to share, and no lock.
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

    /// Temp file in the same folder, write all, fsync, rename over `target`.
    private func atomicWrite<C: ContiguousCollectionOfBytes>(_ target: String, _ bytes: C) throws {
        try bytes.withBytes { try atomicWrite(target, UnsafeRawBufferPointer($0)) }
    }

    private func atomicWrite(_ target: String, _ bytes: UnsafeRawBufferPointer) throws {
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
        guard rename(temp, target) == 0 else { throw WriteError(description: "rename to \(target): \(errnoText())") }
        ok = true
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
