import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// LRU eviction and cleanup of the disk cache of originals.
///
/// Policy: when the total passes `maxBytes`, the least recently used entries (data file mtime,
/// moved on every hit) are deleted until it is at or below `lowWaterBytes`. One process evicts
/// at a time (a non-blocking lock on `.evict.lock`); the others skip, as the work would be the
/// same. Every scan also removes leftovers older than `staleAfter`: temp files of writers that
/// crashed and lock files of URLs that never made it to disk (failed fetches).
extension DiskDataCache {
    static let evictLockName = ".evict.lock"

    /// Deletes least recently used entries until the total is at or below the low-water mark.
    func evict() {
        let lockFD = open(directory + "/" + Self.evictLockName, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
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
                unlink(path(e.key, Self.metadataSuffix))
                unlink(path(e.key))
                removeIdleLock(e.key)
                sum -= e.bytes
                dropped += 1
            }
            log("disk cache: evicted \(dropped) entries, \(sum) bytes remain")
        }
        setTotal(sum)
    }

    struct ScannedEntry {
        var key: String
        var bytes: Int
        var lastAccess: Double
    }

    /// Every entry on disk with its size (data + metadata) and last access, removing stale
    /// temp files and idle locks of entries that are not there.
    func scan() -> [ScannedEntry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let now = clock.now()
        var out: [ScannedEntry] = []
        for name in names {
            var st = stat()
            guard stat(path(name), &st) == 0 else { continue }
            let mtime = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            if name.hasPrefix(AtomicFileWriter.tempPrefix) {
                if now - mtime > Self.staleAfter { unlink(path(name)) }
                continue
            }
            if name.hasSuffix(Self.lockSuffix), name.utf8.count == Self.keyLength + Self.lockSuffix.utf8.count {
                let key = String(name.dropLast(Self.lockSuffix.utf8.count))
                if now - mtime > Self.staleAfter, access(path(key), F_OK) != 0 { removeIdleLock(key) }
                continue
            }
            guard Self.isKey(name) else { continue }
            var metaStat = stat()
            let metaBytes = stat(path(name, Self.metadataSuffix), &metaStat) == 0 ? Int(metaStat.st_size) : 0
            out.append(ScannedEntry(key: name, bytes: Int(st.st_size) + metaBytes, lastAccess: mtime))
        }
        return out
    }

    /// Removes a lock file nobody holds, so evicted entries leave nothing behind.
    func removeIdleLock(_ key: String) {
        let fd = open(path(key, Self.lockSuffix), O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            unlink(path(key, Self.lockSuffix))
            flock(fd, LOCK_UN)
        }
    }

    /// 64 lowercase hex digits: the name of an entry's data file.
    static func isKey(_ name: String) -> Bool {
        name.utf8.count == keyLength && name.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
        }
    }
}
