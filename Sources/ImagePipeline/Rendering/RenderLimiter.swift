import Foundation

/// Admission control for renders: `maxActive` run at once, up to `maxQueued` more wait their
/// turn, and anything beyond is refused at once with `.overloaded` so the web layer can answer
/// 503 + Retry-After instead of piling up threads and memory.
final class RenderLimiter: @unchecked Sendable {
    private let maxActive: Int
    private let maxQueued: Int
    /// Guards `active` and `queued` and wakes a queued caller when a slot frees.
    private let condition = NSCondition()
    private var active = 0
    private var queued = 0

    init(maxActive: Int, maxQueued: Int) {
        self.maxActive = max(1, maxActive)
        self.maxQueued = max(0, maxQueued)
    }

    /// Runs `work` once a slot is free; throws `.overloaded` when the queue is full.
    func run<T>(_ work: () throws(PipelineError) -> T) throws(PipelineError) -> T {
        condition.lock()
        if active >= maxActive {
            guard queued < maxQueued else {
                condition.unlock()
                throw .overloaded
            }
            queued += 1
            while active >= maxActive { condition.wait() }
            queued -= 1
        }
        active += 1
        condition.unlock()
        defer {
            condition.lock()
            active -= 1
            condition.signal()
            condition.unlock()
        }
        return try work()
    }

    /// Renders running now.
    var running: Int {
        condition.lock()
        defer { condition.unlock() }
        return active
    }

    /// Threads a render that is running now (inside `run`) may give its decode: the
    /// `configured` `DecodeLimits.maxThreads` while the running renders times that still fit
    /// the `cores`, else the cores shared among the running renders, never below 1.
    func decodeThreads(configured: Int, cores: Int) -> Int {
        Self.decodeThreads(configured: configured, cores: cores, running: running)
    }

    /// `decodeThreads` for `running` renders.
    static func decodeThreads(configured: Int, cores: Int, running: Int) -> Int {
        max(1, min(configured, cores / max(1, running)))
    }
}
