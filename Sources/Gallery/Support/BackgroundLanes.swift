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

    /// How the library's safety-net walk gives way to page views (`runAtIdle`).
    enum IdlePolicy: Sendable {
        /// Nice 19, the lowest nice value: about 1.5 % of a core against one thread at nice 0.
        case lowestNice
        /// `SCHED_IDLE`: runs only when no normal thread wants the core (Linux).
        case schedIdle
    }

    /// The policy the store's full walks run at (measured in docs/library-index.md).
    static let walkPolicy = IdlePolicy.lowestNice

    /// Linux's `SCHED_IDLE` (Swift's Glibc module leaves it out: it is behind `_GNU_SOURCE`).
    static let schedIdle: Int32 = 5

    /// Runs `body` on a thread of its own at `policy` and returns when it has returned. The
    /// walk cannot go back to normal priority by itself (raising the nice value or leaving
    /// `SCHED_IDLE` needs privilege), hence a thread per walk, not a lowered watcher thread.
    static func runAtIdle(name: String, policy: IdlePolicy = walkPolicy, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = lowerCallingThread(policy)
            body()
            done.signal()
        }
        thread.name = name
        thread.start()
        done.wait()
    }

    /// Lowers the calling thread (only it: on Linux both the nice value and the scheduling
    /// policy are per thread, and threads it starts inherit them); false when refused.
    @discardableResult
    static func lowerCallingThread(_ policy: IdlePolicy) -> Bool {
        switch policy {
        case .lowestNice:
            return setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) == 0
        case .schedIdle:
            var parameters = sched_param()
            parameters.sched_priority = 0
            return sched_setscheduler(0, schedIdle, &parameters) == 0
        }
    }

    /// The calling thread's nice value (`getpriority` can return -1 as a value; errno tells).
    static func currentNice() -> Int32 {
        errno = 0
        let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return value == -1 && errno != 0 ? 0 : value
    }
}
