import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes files so that readers see the old file or the new one, never a part: each file is
/// written to a temp file in the same folder and fsynced, then renamed over its target, and
/// the folder is fsynced to make the renames durable.
///
/// Temp files are named `.tmp-<pid>-<n>`; a writer that crashed leaves one behind, which
/// `DiskDataCache`'s scan removes after `DiskDataCache.staleAfter`.
final class AtomicFileWriter: Sendable {
    static let tempPrefix = ".tmp-"

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    let directory: String
    private let counter = Mutex(0)

    init(directory: String) { self.directory = directory }

    /// A new temp file in the folder holding `bytes`, fsynced; its path.
    func writeTemp(_ bytes: UnsafeRawBufferPointer) throws -> String {
        let n = counter.withLock { c -> Int in c += 1; return c }
        let temp = directory + "/" + Self.tempPrefix + "\(getpid())-\(n)"
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

    func writeTemp(_ bytes: [UInt8]) throws -> String {
        try bytes.withUnsafeBytes { try writeTemp($0) }
    }

    func writeTemp(_ data: Data) throws -> String {
        try data.withUnsafeBytes { try writeTemp($0) }
    }

    /// Renames a written temp file over `target` (atomic within the folder).
    func commit(_ temp: String, to target: String) throws {
        guard rename(temp, target) == 0 else { throw WriteError(description: "rename to \(target): \(errnoText())") }
    }

    /// Makes the renames durable.
    func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

func errnoText() -> String { String(cString: strerror(errno)) }
