import Foundation
import ImageCodec
import Synchronization
import Testing
@testable import ImagePipeline

/// Polls `condition` until it holds or 20 s pass (a deadlock guard, not a speed bound).
private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 20)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}

/// Holds part of a budget on its own thread until `release()`: the stand-in for a large
/// decode in progress.
private final class Holder: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(_ budget: DecodeMemoryBudget, _ bytes: Int) {
        let gate = self.gate, done = self.done
        Thread {
            try? budget.withReservation(bytes) { () throws(PipelineError) in gate.wait() }
            done.signal()
        }.start()
    }

    func release() {
        gate.signal()
        done.wait()
    }
}

/// The budget itself, with its callbacks counted.
@Suite struct DecodeMemoryBudgetUnitTests {
    final class Events: Sendable {
        let waits = Atomic(0)
        let refusals = Atomic(0)
        let reserved = Atomic(0)
        let peak = Atomic(0)
    }

    static func budget(_ total: Int, wait: TimeInterval = 30) -> (DecodeMemoryBudget, Events) {
        let events = Events()
        let budget = DecodeMemoryBudget(totalBytes: total, maxWait: wait,
                                        onWait: { events.waits.add(1, ordering: .relaxed) },
                                        onRefusal: { events.refusals.add(1, ordering: .relaxed) },
                                        onReservedChange: { n in
                                            events.reserved.store(n, ordering: .relaxed)
                                            events.peak.max(n, ordering: .relaxed)
                                        })
        return (budget, events)
    }

    @Test func reservationsThatFitRunAtOnceAndAreReturned() throws {
        let (budget, events) = Self.budget(100)
        let holder = Holder(budget, 60)
        #expect(eventually { budget.reservedBytes == 60 })
        let inside = try budget.withReservation(40) { () throws(PipelineError) in budget.reservedBytes }
        #expect(inside == 100)
        #expect(events.waits.load(ordering: .relaxed) == 0)
        holder.release()
        #expect(budget.reservedBytes == 0)
        #expect(events.reserved.load(ordering: .relaxed) == 0)
        #expect(events.peak.load(ordering: .relaxed) == 100)
    }

    /// A reservation that does not fit waits, and runs once the holder releases its bytes.
    @Test func waitingReservationWakesWhenBytesAreReleased() {
        let (budget, events) = Self.budget(100)
        let holder = Holder(budget, 70)
        #expect(eventually { budget.reservedBytes == 70 })
        let ran = Mutex(false)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            try? budget.withReservation(50) { () throws(PipelineError) in ran.withLock { $0 = true } }
            finished.signal()
        }.start()
        #expect(eventually { events.waits.load(ordering: .relaxed) == 1 })
        #expect(!ran.withLock { $0 }, "ran while only 30 of 100 bytes were free")
        holder.release()
        finished.wait()
        #expect(ran.withLock { $0 })
        #expect(budget.reservedBytes == 0)
        #expect(events.peak.load(ordering: .relaxed) == 70)
        #expect(events.refusals.load(ordering: .relaxed) == 0)
    }

    /// First come, first served: a small reservation that would fit waits behind a larger one
    /// queued before it, and both run once enough is released. The two together do not fit, so
    /// the order they run in is the order they were granted, not a race between their threads.
    @Test func laterSmallReservationDoesNotPassAnEarlierLargeOne() {
        let (budget, events) = Self.budget(100)
        let holder = Holder(budget, 60)
        #expect(eventually { budget.reservedBytes == 60 })
        let order = Mutex<[Int]>([])
        let finished = DispatchGroup()
        for (i, bytes) in [(1, 80), (2, 30)] {
            finished.enter()
            Thread {
                try? budget.withReservation(bytes) { () throws(PipelineError) in order.withLock { $0.append(i) } }
                finished.leave()
            }.start()
            #expect(eventually { events.waits.load(ordering: .relaxed) == i })
        }
        #expect(order.withLock { $0 }.isEmpty, "the 30-byte reservation fitted in the 40 free bytes but was queued second")
        holder.release()
        finished.wait()
        #expect(order.withLock { $0 }.first == 1)
        #expect(order.withLock { $0 }.count == 2)
        #expect(budget.reservedBytes == 0)
    }

    @Test func waitPastMaxWaitIsOverloaded() {
        let (budget, events) = Self.budget(100, wait: 0.05)
        let holder = Holder(budget, 70)
        #expect(eventually { budget.reservedBytes == 70 })
        var ran = false
        #expect(throws: PipelineError.overloaded) {
            try budget.withReservation(50) { () throws(PipelineError) in ran = true }
        }
        #expect(!ran)
        #expect(events.waits.load(ordering: .relaxed) == 1)
        #expect(events.refusals.load(ordering: .relaxed) == 1)
        #expect(budget.reservedBytes == 70)
        holder.release()
        #expect(budget.reservedBytes == 0)
    }

    /// More than the whole budget can never be granted: refused at once, without waiting,
    /// even when nothing else is reserved.
    @Test func reservationLargerThanTheBudgetIsTooLarge() throws {
        let (budget, events) = Self.budget(100)
        var ran = false
        do {
            try budget.withReservation(101) { () throws(PipelineError) in ran = true }
            Issue.record("101 bytes were granted from a 100 byte budget")
        } catch {
            guard case .tooLarge(let why) = error else {
                Issue.record("expected tooLarge, got \(error)")
                return
            }
            #expect(why.contains("101") && why.contains("100 byte"), "\(why)")
        }
        #expect(!ran)
        #expect(events.waits.load(ordering: .relaxed) == 0)
        #expect(events.refusals.load(ordering: .relaxed) == 1)
        #expect(try budget.withReservation(100) { () throws(PipelineError) in budget.reservedBytes } == 100)
    }

    @Test func bytesAreReturnedWhenTheWorkThrows() throws {
        let (budget, events) = Self.budget(100)
        #expect(throws: PipelineError.undecodable("broken")) {
            try budget.withReservation(80) { () throws(PipelineError) in throw .undecodable("broken") }
        }
        #expect(budget.reservedBytes == 0)
        #expect(events.reserved.load(ordering: .relaxed) == 0)
        #expect(try budget.withReservation(100) { () throws(PipelineError) in 1 } == 1)
        #expect(events.waits.load(ordering: .relaxed) == 0)
    }
}

/// The budget in the render path: renders reserve `ImageCodec.memoryEstimate` at the scale
/// they decode at, wait for each other when it is taken, and give it back.
@Suite(.serialized) struct DecodeMemoryBudgetRenderTests {
    static let file = "jpeg/generated/odd_1001x667_422_prog.jpg"
    /// Fit sizes whose plan needs the full-size decode of the 1001×667 fixture (half is 501
    /// wide), all different so that no two renders are coalesced.
    static let specs = [960, 900, 840, 800].map { SizeSpec(mode: .fit(maxEdge: $0)) }

    private func pipeline(budget: Int, wait: TimeInterval) throws -> ImagePipeline {
        var c = testConfiguration(cacheDir: makeTempDir("budget"))
        c.allowedSizes = Set(Self.specs)
        c.maxConcurrentRenders = Self.specs.count
        c.renderQueueLength = 0
        c.decodeMemoryBudgetBytes = budget
        c.decodeMemoryBudgetWait = wait
        return ImagePipeline(configuration: c)
    }

    private var url: String { "file://" + fixturesDir + "/" + Self.file }

    private func fullSizeEstimate() throws -> Int {
        try ImageCodec.memoryEstimate(try fixtureBytes(Self.file), scale: .full)
    }

    /// A budget of one full-size decode (not two): with one decode's worth held elsewhere every
    /// render waits; once it is released they all succeed, one at a time, and the gauge
    /// returns to 0.
    @Test func concurrentRendersTakeTurnsAndAllSucceed() throws {
        let needed = try fullSizeEstimate()
        let pipeline = try self.pipeline(budget: 2 * needed - 1, wait: 30)
        let engine = pipeline.engine
        let holder = Holder(engine.budget, needed)
        #expect(eventually { engine.metrics.value(.decodeBudgetReservedBytes) == needed })

        let results = Collector<Result<RenderedImage, PipelineError>>()
        let done = DispatchGroup()
        done.enter()
        Thread {
            runConcurrently(Self.specs.count) { i in
                results.add(Result { () throws(PipelineError) in try pipeline.render(url: url, spec: Self.specs[i]) })
            }
            done.leave()
        }.start()
        #expect(eventually { engine.metrics.value(.decodeBudgetWaits) == Self.specs.count })
        #expect(results.all.isEmpty, "a render decoded while the budget had no room for it")
        holder.release()
        done.wait()

        let widths = results.all.compactMap { try? $0.get().width }.sorted()
        #expect(widths == [800, 840, 900, 960], "\(results.all.map { $0.map(\.width) })")
        #expect(engine.metrics.value(.renders) == Self.specs.count)
        #expect(engine.metrics.value(.decodeBudgetReservedBytes) == 0)
        #expect(engine.metrics.value(.decodeBudgetRefusals) == 0)
        #expect(engine.metrics.value(.decodeBudgetBytes) == 2 * needed - 1)
        let text = pipeline.metricsText()
        #expect(text.contains("pipeline_decode_budget_reserved_bytes 0\n"))
        #expect(text.contains("pipeline_decode_budget_waits_total \(Self.specs.count)\n"))
    }

    /// With a short wait, renders that find the budget taken are refused `.overloaded` (503),
    /// counted, and leave nothing reserved; the same render succeeds once memory is free.
    @Test func rendersThatCannotWaitLongEnoughAreOverloaded() throws {
        let needed = try fullSizeEstimate()
        let pipeline = try self.pipeline(budget: 2 * needed - 1, wait: 0.05)
        let engine = pipeline.engine
        let holder = Holder(engine.budget, needed)
        #expect(eventually { engine.metrics.value(.decodeBudgetReservedBytes) == needed })

        let results = Collector<Result<RenderedImage, PipelineError>>()
        runConcurrently(Self.specs.count) { i in
            results.add(Result { () throws(PipelineError) in try pipeline.render(url: url, spec: Self.specs[i]) })
        }
        #expect(results.all.count == Self.specs.count)
        #expect(results.all.allSatisfy { if case .failure(.overloaded) = $0 { true } else { false } })
        #expect(engine.metrics.value(.decodeBudgetRefusals) == Self.specs.count)
        #expect(engine.metrics.value(.overloaded) == Self.specs.count)
        #expect(engine.metrics.value(.decodeBudgetReservedBytes) == needed)
        holder.release()
        #expect(engine.metrics.value(.decodeBudgetReservedBytes) == 0)
        #expect(try pipeline.render(url: url, spec: Self.specs[0]).width == 960)
    }

    /// A budget below one decode refuses that decode as too large (422), before decoding.
    @Test func decodeLargerThanTheWholeBudgetIsTooLarge() throws {
        let needed = try fullSizeEstimate()
        let pipeline = try self.pipeline(budget: needed - 1, wait: 30)
        do {
            _ = try pipeline.render(url: url, spec: Self.specs[0])
            Issue.record("a decode larger than the whole budget ran")
        } catch {
            #expect(error.kind == .tooLarge, "\(error)")
        }
        #expect(pipeline.engine.metrics.value(.renders) == 0)
        #expect(pipeline.engine.metrics.value(.decodeBudgetRefusals) == 1)
        // At 1/2 the same file fits: the reservation follows the scale the render decodes at.
        var c = pipeline.configuration
        c.allowedSizes = [SizeSpec(mode: .fit(maxEdge: 480))]
        #expect(try ImagePipeline(configuration: c).render(url: url, spec: SizeSpec(mode: .fit(maxEdge: 480))).width == 480)
    }

    /// A file whose headers pass the estimate but whose data fails to decode (a damaged IDAT
    /// CRC) gives its reservation back.
    @Test func reservationIsReturnedWhenTheDecodeThrows() throws {
        let bytes = try PNGEncoder.encode(try Bitmap(width: 64, height: 64, layout: .rgb,
                                                      pixels: (0..<(64 * 64 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }))
        var damaged = bytes
        let idat = try #require(Self.firstIndex(of: Array("IDAT".utf8), in: damaged))
        damaged[idat + 6] ^= 0xFF
        let needed = try ImageCodec.memoryEstimate(damaged, scale: .half)
        #expect(needed == (try ImageCodec.memoryEstimate(bytes, scale: .half)))

        let (budget, events) = DecodeMemoryBudgetUnitTests.budget(needed)
        #expect(throws: PipelineError.self) {
            try Renderer.render(damaged, mode: .fit(maxEdge: 32), options: RenderOptions(), budget: budget)
        }
        #expect(events.peak.load(ordering: .relaxed) == needed, "the failed render reserved its estimate")
        #expect(budget.reservedBytes == 0)
        #expect(try Renderer.render(bytes, mode: .fit(maxEdge: 32), options: RenderOptions(), budget: budget).image.width == 32)
        #expect(events.waits.load(ordering: .relaxed) == 0)
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
