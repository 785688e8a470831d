import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs work in parallel on threads of its own that yield to the request threads.
///
/// The library index's first build of a large folder reads and hashes every photo for
/// minutes, on as many threads as there are cores (up to 4). At the same priority those
/// threads took an equal share of the CPU from the workers answering pages and rendering
/// thumbnails. Each lane here lowers its own scheduling priority by 10 nice steps first (on
/// Linux the nice value belongs to the thread, and a thread may always lower its own), so
/// under contention the request threads get about nine tenths of the CPU, and when the
/// machine is idle the lanes still run at full speed.
///
/// Dedicated threads rather than Dispatch's pool: a pool thread would keep the lowered
/// priority for whatever work it ran next, and raising it back needs privilege.
enum BackgroundLanes {
    /// Nice steps below the calling thread (capped at 19, the lowest priority).
    static let niceSteps: Int32 = 10

    /// Calls `body(lane)` for each lane in `0..<count`, each on its own thread at lowered
    /// priority, and returns when all have returned.
    static func run(count: Int, name: String, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        let base = currentNice()
        for lane in 0..<max(0, count) {
            group.enter()
            let thread = Thread {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(19, base + niceSteps))
                body(lane)
                group.leave()
            }
            thread.name = name
            thread.start()
        }
        group.wait()
    }

    /// The calling thread's nice value (`getpriority` can return -1 as a value; errno tells).
    static func currentNice() -> Int32 {
        errno = 0
        let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return value == -1 && errno != 0 ? 0 : value
    }
}
