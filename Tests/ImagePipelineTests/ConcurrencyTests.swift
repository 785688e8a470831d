import Foundation
import Synchronization
import Testing
@testable import ImagePipeline

@Suite struct CoalescerTests {
    @Test func oneRunPerKeyAndEveryoneGetsTheResult() {
        let runs = Mutex(0)
        let waits = Mutex(0)
        let coalescer = Coalescer<String, Int>(onWait: { waits.withLock { $0 += 1 } })
        let results = Collector<Int>()
        runConcurrently(10) { _ in
            let v = try? coalescer.run("k") { () throws(PipelineError) -> Int in
                runs.withLock { $0 += 1 }
                // Hold the run until the nine others wait behind it, however slow the machine.
                waitUntil { waits.withLock { $0 } == 9 }
                return 42
            }
            results.add(v ?? -1)
        }
        #expect(runs.withLock { $0 } == 1)
        #expect(waits.withLock { $0 } == 9)
        #expect(results.all == [Int](repeating: 42, count: 10))
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func failureReachesWaitersAndIsNotRemembered() {
        let waits = Mutex(0)
        let coalescer = Coalescer<String, Int>(onWait: { waits.withLock { $0 += 1 } })
        let errors = Collector<PipelineError?>()
        runConcurrently(5) { _ in
            do {
                _ = try coalescer.run("k") { () throws(PipelineError) -> Int in
                    waitUntil { waits.withLock { $0 } == 4 }
                    throw .originFailed("boom")
                }
                errors.add(nil)
            } catch let e as PipelineError {
                errors.add(e)
            } catch {
                errors.add(nil)
            }
        }
        #expect(errors.all.count == 5)
        #expect(errors.all.allSatisfy { $0 == .originFailed("boom") })
        #expect(coalescer.inFlightCount == 0)
        let next = try? coalescer.run("k") { () throws(PipelineError) -> Int in 7 }
        #expect(next == 7)
    }

    @Test func differentKeysRunInParallel() {
        let coalescer = Coalescer<Int, Int>()
        let runs = Mutex(0)
        runConcurrently(4) { i in
            _ = try? coalescer.run(i) { () throws(PipelineError) -> Int in
                runs.withLock { $0 += 1 }
                return i
            }
        }
        #expect(runs.withLock { $0 } == 4)
    }
}

@Suite struct RenderLimiterTests {
    @Test func refusesBeyondActivePlusQueue() {
        let limiter = RenderLimiter(maxActive: 2, maxQueued: 1)
        let outcomes = Collector<Bool>()
        runConcurrently(6) { _ in
            do {
                // The two running renders hold their slots until the three beyond the queue
                // have been refused.
                try limiter.run { () throws(PipelineError) in _ = waitUntil { outcomes.all.filter { !$0 }.count == 3 } }
                outcomes.add(true)
            } catch {
                outcomes.add(false)
            }
        }
        let served = outcomes.all.filter { $0 }.count
        #expect(served == 3, "2 running + 1 queued are served")
        #expect(outcomes.all.count - served == 3)
        #expect(limiter.running == 0)
    }
}
