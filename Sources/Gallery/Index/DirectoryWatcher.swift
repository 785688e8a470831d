import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Change notices for the library's folders through inotify: one watch per folder (the
/// kernel tells about entries created, deleted, moved or rewritten in it), so a change is seen
/// within a fraction of a second and an idle library costs no scans. Used by one thread (the
/// catalog store's). When inotify is missing or a watch is refused (the per-user watch limit,
/// `fs.inotify.max_user_watches`), the caller falls back to polling folder mtimes.
final class DirectoryWatcher {
    private let fd: Int32
    /// Watched real paths by watch descriptor, and the reverse.
    private var pathsByWatch: [Int32: String] = [:]
    private var watchByPath: [String: Int32] = [:]
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)

    /// nil when inotify is not available.
    init?() {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            buffer.deallocate()
            return nil
        }
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// What changes in a folder count: entries added, removed, renamed, rewritten (closed after
    /// writing) or touched, and the folder itself going away.
    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB
                                     | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// Watches each of `folders` (absolute paths) not watched yet; false when the kernel refused
    /// one (then changes there would go unnoticed, and the caller should poll instead).
    func watch(_ folders: [String]) -> Bool {
        for folder in folders where watchByPath[folder] == nil {
            let wd = inotify_add_watch(fd, folder, Self.mask)
            if wd < 0 {
                if errno == ENOENT || errno == ENOTDIR { continue }
                return false
            }
            pathsByWatch[wd] = folder
            watchByPath[folder] = wd
        }
        return true
    }

    /// Folders being watched.
    var count: Int { watchByPath.count }

    /// Waits up to `timeout` seconds for a change; true when one came (see `ChangeSettler`).
    func waitForChange(timeout: Double, settler: ChangeSettler = ChangeSettler()) -> Bool {
        settler.waitForChange(timeout: timeout, wait: { self.wait($0) })
    }

    /// Waits for events and drains them; true when there were any.
    private func wait(_ seconds: Double) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, min(seconds, 86_400)) * 1000))
        guard ready > 0 else { return false }
        var any = false
        while true {
            let n = read(fd, buffer.baseAddress!, buffer.count)
            guard n > 0 else { break }
            any = true
            var offset = 0
            // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len].
            while offset + 16 <= n {
                let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                if mask & UInt32(IN_IGNORED) != 0, let path = pathsByWatch.removeValue(forKey: wd) {
                    watchByPath.removeValue(forKey: path)
                }
                offset += 16 + length
            }
        }
        return any
    }
}

/// How long to keep gathering change notices before acting on them. After the first notice
/// it keeps reading until `settle` seconds pass quietly, so that copying a hundred files gives
/// one rescan, not a hundred; but never longer than `maxDelay` after the first notice, so a
/// stream of events that never pauses (a sync client writing all day) still gets rescans.
struct ChangeSettler: Sendable {
    var settle = 0.25
    var maxDelay = 2.0
    /// Monotonic seconds (injected so tests drive a fake clock).
    var now: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// `wait(seconds)` waits up to that long for notices and drains them, true when any came.
    func waitForChange(timeout: Double, wait: (Double) -> Bool) -> Bool {
        guard wait(timeout) else { return false }
        let first = now()
        while true {
            let left = maxDelay - (now() - first)
            guard left > 0, wait(min(settle, left)) else { break }
        }
        return true
    }
}
