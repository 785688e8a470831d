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

    @Test func noLanesReturnAtOnce() {
        BackgroundLanes.run(count: 0, name: "test-lane") { _ in Issue.record("no lane should run") }
    }
}
