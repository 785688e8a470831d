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
                Thread.sleep(forTimeInterval: 0.3)
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
        let coalescer = Coalescer<String, Int>()
        let errors = Collector<PipelineError?>()
        runConcurrently(5) { _ in
            do {
                _ = try coalescer.run("k") { () throws(PipelineError) -> Int in
                    Thread.sleep(forTimeInterval: 0.2)
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
                try limiter.run { () throws(PipelineError) in Thread.sleep(forTimeInterval: 0.4) }
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

@Suite struct RenderCacheTests {
    private func image(_ size: Int) -> RenderedImage {
        RenderedImage(bytes: [UInt8](repeating: 1, count: size), contentType: "image/jpeg", width: 1, height: 1)
    }

    @Test func keepsTheBudgetAndDropsLeastRecentlyUsed() {
        let cache = RenderCache(capacity: 1000)
        cache.put("a", image(400))
        cache.put("b", image(400))
        #expect(cache.get("a") != nil)   // a is now the most recent
        cache.put("c", image(400))       // evicts b
        #expect(cache.get("b") == nil)
        #expect(cache.get("a") != nil)
        #expect(cache.get("c") != nil)
        #expect(cache.bytes == 800)
        cache.put("big", image(1001))
        #expect(cache.get("big") == nil, "larger than the whole budget is not kept")
        cache.put("a", image(100))
        #expect(cache.bytes == 500)
        #expect(cache.count == 2)
    }

    @Test func manyEntriesStayWithinBudget() {
        let cache = RenderCache(capacity: 10_000)
        for i in 0..<1000 { cache.put("k\(i)", image(97 + i % 13)) }
        #expect(cache.bytes <= 10_000)
        #expect(cache.get("k999") != nil)
        #expect(cache.get("k0") == nil)
    }
}
