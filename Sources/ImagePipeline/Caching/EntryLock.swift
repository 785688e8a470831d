import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The failed attempt a process leaves in an entry's lock file for the processes that waited
/// behind it: when, and the whole `PipelineError` (its `Kind` name and detail), so a waiter
/// throws exactly what the attempt threw.
struct SharedFailure: Equatable {
    /// Longest detail kept, in characters; the rest of a long message is cut.
    static let maxDetailCharacters = 300
    /// Longest record read back: time, kind name and detail with room to spare.
    static let maxRecordBytes = 512

    var at: Double
    var error: PipelineError

    /// "<unix time>\t<kind>\t<detail>".
    var record: [UInt8] {
        Array("\(at)\t\(error.kind.rawValue)\t\(error.detail.prefix(Self.maxDetailCharacters))".utf8)
    }

    init(at: Double, error: PipelineError) {
        self.at = at
        self.error = error
    }

    /// Reads a record back; nil for an empty or unreadable one (a lock file of an old version).
    init?(record: ArraySlice<UInt8>) {
        let fields = String(decoding: record, as: UTF8.self).split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let at = Double(fields[0]), let kind = PipelineError.Kind(rawValue: String(fields[1])) else {
            return nil
        }
        self.init(at: at, error: PipelineError(kind: kind, detail: String(fields[2])))
    }
}

extension DiskDataCache {
    /// Runs `body` holding the cross-process lock of `url`'s entry, so only one worker process
    /// downloads (or revalidates) it. Without a writable folder there is nothing to share, and no lock.
    ///
    /// A process that had to wait for the lock shares the outcome of the attempt it waited for,
    /// as waiters inside one process do through the coalescer: when that attempt failed (its
    /// error is left in the lock file as a `SharedFailure`), the waiter gets the same error
    /// instead of starting a second attempt behind it. Without this, processes queued behind a
    /// hanging origin waited one timeout each (measured 12 s with two processes and a 5 s
    /// timeout). Nothing is remembered for later requests: a request that finds the lock free
    /// always tries again.
    func withEntryLock<T>(_ url: String, _ body: () throws(PipelineError) -> T) throws(PipelineError) -> T {
        let fd = open(path(Self.key(url), Self.lockSuffix), O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        var waitedSince: Double?
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            waitedSince = clock.now()
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
            Self.write(SharedFailure(at: clock.now(), error: error), to: fd)
            throw error
        }
    }

    private static func write(_ failure: SharedFailure, to fd: Int32) {
        ftruncate(fd, 0)
        _ = failure.record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    private static func readFailure(_ fd: Int32) -> SharedFailure? {
        var buffer = [UInt8](repeating: 0, count: SharedFailure.maxRecordBytes)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return SharedFailure(record: buffer[0..<n])
    }
}
