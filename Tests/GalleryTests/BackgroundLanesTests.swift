import Foundation
import Synchronization
import Testing
@testable import Gallery

/// The index's reader lanes run below the request threads' priority, and only they do.
@Suite("Background lanes")
struct BackgroundLanesTests {
    @Test func lanesRunLoweredAndTheCallerIsUntouched() {
        let caller = BackgroundLanes.currentNice()
        let seen = Mutex<[Int: Int32]>([:])
        BackgroundLanes.run(count: 3, name: "test-lane") { lane in
            let nice = BackgroundLanes.currentNice()
            seen.withLock { $0[lane] = nice }
        }
        let lanes = seen.withLock { $0 }
        #expect(lanes.keys.sorted() == [0, 1, 2])
        for (_, nice) in lanes { #expect(nice == min(19, caller + BackgroundLanes.niceSteps)) }
        #expect(BackgroundLanes.currentNice() == caller)
    }

    /// The store's safety-net walk runs on a thread of its own at the lowest nice value; the
    /// calling thread (the watcher, which also applies inotify's changes) keeps its priority.
    @Test func theWalkRunsAtTheLowestNiceValue() {
        let caller = BackgroundLanes.currentNice()
        let seen = Mutex<Int32?>(nil)
        BackgroundLanes.runAtIdle(name: "test-walk", policy: .lowestNice) {
            seen.withLock { $0 = BackgroundLanes.currentNice() }
        }
        #expect(seen.withLock { $0 } == 19)
        #expect(BackgroundLanes.currentNice() == caller)
        #expect(BackgroundLanes.walkPolicy == .lowestNice)
    }

    /// The other policy: `SCHED_IDLE` for the walk's thread only.
    @Test func theWalkCanRunAtSchedIdle() {
        let callerPolicy = sched_getscheduler(0)
        let seen = Mutex<Int32?>(nil)
        BackgroundLanes.runAtIdle(name: "test-walk", policy: .schedIdle) {
            seen.withLock { $0 = sched_getscheduler(0) }
        }
        #expect(seen.withLock { $0 } == BackgroundLanes.schedIdle)
        #expect(sched_getscheduler(0) == callerPolicy)
    }

    @Test func noLanesReturnAtOnce() {
        BackgroundLanes.run(count: 0, name: "test-lane") { _ in Issue.record("no lane should run") }
    }
}
