import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Change notices for the library's folders through inotify: one watch per folder (the
/// kernel tells about entries created, deleted, moved or rewritten in it), so a change is seen
/// within a fraction of a second and an idle library costs no scans. Used by one thread (the
/// catalog store's). When inotify is missing or a watch is refused (the per-user watch limit,
/// `fs.inotify.max_user_watches`), the caller falls back to polling folder mtimes.
///
/// It tells *which* folders changed (`takeChanges`): the catalog store lists only those again.
/// A notice it cannot place (the kernel's queue overflowed, a watch it does not know) asks
/// for a full scan.
final class DirectoryWatcher {
    private let fd: Int32
    /// Watched folders (relative paths below the root) by watch descriptor: two paths reaching
    /// one folder (a symlinked album) share its watch. And the descriptor by path.
    private var pathsByWatch: [Int32: Set<String>] = [:]
    private var watchByPath: [String: Int32] = [:]
    /// What the notices read so far say changed.
    private var pending = Changes.folders([])

    /// What changed since `takeChanges` was last asked.
    enum Changes: Equatable {
        /// These folders' entries (relative paths; "" is the root).
        case folders(Set<String>)
        /// Something that cannot be placed: scan everything.
        case everything

        mutating func add(_ folders: Set<String>) {
            if case .folders(let known) = self { self = .folders(known.union(folders)) }
        }

        var isEmpty: Bool { self == .folders([]) }
    }
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

    /// Watches each of `folders` (relative paths below `root`, an absolute path) not watched
    /// yet. Answers the folders newly watched (what was written in them before their watch
    /// began went unnoticed: the caller lists them again), nil when the kernel refused one
    /// (then changes there would go unnoticed, and the caller should poll instead).
    func watch(_ folders: [String], root: String) -> [String]? {
        var added: [String] = []
        for folder in folders where watchByPath[folder] == nil {
            let wd = inotify_add_watch(fd, folder.isEmpty ? root : root + "/" + folder, Self.mask)
            if wd < 0 {
                if errno == ENOENT || errno == ENOTDIR { continue }
                return nil
            }
            pathsByWatch[wd, default: []].insert(folder)
            watchByPath[folder] = wd
            added.append(folder)
        }
        return added
    }

    /// The changes noticed since the last call, and forgets them.
    func takeChanges() -> Changes {
        defer { pending = .folders([]) }
        return pending
    }

    /// Folders being watched.
    var count: Int { watchByPath.count }

    /// Whether notices are waiting, unread or read and not taken yet, asked from another
    /// thread while the watcher's own waits for it (the store's walk, to give way to a
    /// change): the kernel's queue is polled, the descriptor is not read.
    var noticesWaiting: @Sendable () -> Bool {
        let fd = self.fd, quiet = pending.isEmpty
        return {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return !quiet || poll(&poller, 1, 0) > 0
        }
    }

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
                offset += 16 + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    pending = .everything
                } else if mask & UInt32(IN_IGNORED) != 0 {
                    // The folder went away (or was moved out): its parent's notice says so.
                    for path in pathsByWatch.removeValue(forKey: wd) ?? [] { watchByPath.removeValue(forKey: path) }
                } else if let paths = pathsByWatch[wd] {
                    pending.add(paths)
                } else {
                    pending = .everything
                }
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
