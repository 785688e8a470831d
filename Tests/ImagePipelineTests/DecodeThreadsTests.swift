import Foundation
import Synchronization
import Testing
@testable import ImagePipeline

/// The threads each render gives its decode (HEIF grid tiles): the cores shared among the
/// renders running, read from the render limiter while the render holds its slot.
@Suite struct DecodeThreadsTests {
    @Test func coresAreSharedAmongRunningRenders() {
        let cases: [(configured: Int, cores: Int, running: Int, want: Int)] = [
            (2, 2, 1, 2),   // alone on two cores: both
            (2, 2, 2, 1),   // as many renders as cores: one each
            (2, 2, 5, 1),   // more renders than cores: never below one
            (2, 8, 3, 2),   // idle cores left: the configured value caps it
            (8, 8, 3, 2),   // 8 / 3 cores each, rounded down
            (1, 16, 1, 1),  // a server that set 1 keeps 1
            (0, 4, 1, 1),   // below 1 counts as 1
            (4, 1, 0, 1),   // no render counted (called outside `run`): as one
        ]
        for c in cases {
            #expect(RenderLimiter.decodeThreads(configured: c.configured, cores: c.cores, running: c.running) == c.want, "\(c)")
        }
    }

    /// Renders that are all inside the limiter at once see each other: with 2 cores, the first
    /// render alone gets 2 threads, and once three run together each of them gets 1. The
    /// renders wait for each other by condition, not by sleeping.
    @Test func runningRendersComeFromTheLimiter() {
        let limiter = RenderLimiter(maxActive: 3, maxQueued: 0)
        let alone = try? limiter.run { () throws(PipelineError) -> Int in limiter.decodeThreads(configured: 2, cores: 2) }
        #expect(alone == 2)
        let inside = Atomic(0)
        let seen = Collector<Int>()
        runConcurrently(3) { _ in
            _ = try? limiter.run { () throws(PipelineError) -> Int in
                inside.add(1, ordering: .sequentiallyConsistent)
                _ = waitUntil { inside.load(ordering: .sequentiallyConsistent) == 3 }
                seen.add(limiter.decodeThreads(configured: 2, cores: 2))
                // Stay in the slot until every render has read its count.
                _ = waitUntil { seen.all.count == 3 }
                return 0
            }
        }
        #expect(seen.all == [1, 1, 1])
        #expect(limiter.running == 0)
        #expect(limiter.decodeThreads(configured: 2, cores: 4) == 2)
    }
}
