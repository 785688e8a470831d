import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The secret behind share links: random bytes in a file (by default `share.key` in the cache
/// folder), created with mode 0600 the first time it is needed. Replacing or deleting the file
/// revokes every link made with it (unless `ShareKeyring.rotate` kept it as the previous key);
/// the server notices on the next share request (a stat of each key file).
enum ShareKey {
    /// Bytes of a new key.
    static let length = 32
    /// Shorter key files are refused: too little secret to sign with.
    static let minimumLength = 16
    static let defaultFileName = "share.key"

    struct Problem: Error, CustomStringConvertible { var description: String }

    /// The key in `path`, creating the file (0600, random bytes) when there is none. Two
    /// processes starting at once agree: the new key is written to a temp file and linked into
    /// place, which fails when another process was first; its key is then read.
    static func loadOrCreate(_ path: String) throws(Problem) -> [UInt8] {
        if let key = try read(path) { return key }
        let temp = try writeTemp(beside: path, random())
        defer { unlink(temp) }
        if link(temp, path) != 0 && errno != EEXIST {
            throw Problem(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        guard let stored = try read(path) else { throw Problem(description: "\(path) vanished") }
        return stored
    }

    /// `length` fresh random bytes.
    static func random() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<length).map { _ in generator.next() }
    }

    /// Replaces `path` with a file (0600) holding `bytes`, by rename: a reader sees the old
    /// file or the new one, never a part.
    static func replace(_ path: String, with bytes: [UInt8]) throws(Problem) {
        let temp = try writeTemp(beside: path, bytes)
        guard rename(temp, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temp)
            throw Problem(description: "cannot replace \(path): \(why)")
        }
    }

    /// A new file (0600, synced) beside `path` holding `bytes`; returns its path.
    private static func writeTemp(beside path: String, _ bytes: [UInt8]) throws(Problem) -> String {
        let temp = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Problem(description: "cannot create \(temp): \(String(cString: strerror(errno)))") }
        fchmod(fd, 0o600)
        let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard wrote == bytes.count, synced else {
            unlink(temp)
            throw Problem(description: "cannot write \(temp)")
        }
        return temp
    }

    /// The key in `path`, nil when the file does not exist.
    static func read(_ path: String) throws(Problem) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Problem(description: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n >= minimumLength else { throw Problem(description: "\(path) holds fewer than \(minimumLength) bytes") }
        return Array(bytes[0..<n])
    }

    /// Whether group or others may read the file (an operator's copy may have lost its 0600).
    static func isExposed(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & 0o077 != 0
    }

    /// The file's identity (inode, size, mtime) to notice a replacement; nil when it is missing.
    static func stamp(_ path: String) -> [Int]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [Int(st.st_ino), Int(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec]
    }
}
