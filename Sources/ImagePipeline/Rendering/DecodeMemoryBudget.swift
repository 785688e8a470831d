import Foundation

/// A process-wide bound on the bytes that decodes hold at once: a weighted semaphore over
/// bytes.
///
/// `DecodeLimits.maxMemoryBytes` bounds one decode, but `RenderLimiter` lets several run
/// together, so without this a burst of large-but-legal originals (several 90 MP progressive
/// JPEGs) could need that limit times `maxConcurrentRenders` and wake the OOM killer. Each
/// render reserves its decode's estimate (`ImageCodec.memoryEstimate`) before decoding and
/// returns it when the decoded bitmap is gone; small decodes pass straight through, large ones
/// take turns.
///
/// Waiters are served first come, first served: a reservation that would fit does not pass
/// one already waiting, so a large decode is not starved by a stream of small ones. A wait is
/// bounded by `maxWait`; after it the render is refused with `.overloaded` (503 + Retry-After,
/// as when the render queue is full). A reservation larger than the whole budget could never
/// be granted and is refused at once with `.tooLarge`.
///
/// One reservation per render, taken after its render slot and released before the slot, so
/// the two can never wait on each other in a cycle.
final class DecodeMemoryBudget: @unchecked Sendable {
    /// Bytes that may be reserved at once.
    let totalBytes: Int
    /// Longest wait for bytes to be released, in seconds.
    let maxWait: TimeInterval
    /// Called once per reservation that had to wait, and once per refusal (timeout or too
    /// large).
    private let onWait: @Sendable () -> Void
    private let onRefusal: @Sendable () -> Void
    /// Called with the new total, under the lock, whenever the reserved bytes change: the
    /// metrics gauge, always in step with the budget.
    private let onReservedChange: @Sendable (Int) -> Void

    /// Guards the fields below and wakes waiters when bytes are released or the head of the
    /// queue leaves.
    private let condition = NSCondition()
    private var reserved = 0
    /// Tickets of the waiting reservations, oldest first.
    private var queue: [UInt64] = []
    private var nextTicket: UInt64 = 0

    /// A budget that never waits and never refuses: for renders outside a pipeline (the CLI).
    static let unbounded = DecodeMemoryBudget(totalBytes: .max, maxWait: 0)

    init(totalBytes: Int, maxWait: TimeInterval, onWait: @escaping @Sendable () -> Void = {},
         onRefusal: @escaping @Sendable () -> Void = {}, onReservedChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.totalBytes = max(0, totalBytes)
        self.maxWait = max(0, maxWait)
        self.onWait = onWait
        self.onRefusal = onRefusal
        self.onReservedChange = onReservedChange
    }

    /// Runs `work` holding `bytes` of the budget, waiting up to `maxWait` for them; the bytes
    /// are returned when `work` ends, whether it returns or throws.
    func withReservation<T>(_ bytes: Int, _ work: () throws(PipelineError) -> T) throws(PipelineError) -> T {
        try reserve(bytes)
        defer { release(bytes) }
        return try work()
    }

    /// Bytes reserved now.
    var reservedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return reserved
    }

    private func reserve(_ bytes: Int) throws(PipelineError) {
        guard bytes <= totalBytes else {
            onRefusal()
            throw .tooLarge("decoding needs \(bytes) bytes, more than the whole \(totalBytes) byte decode memory budget")
        }
        condition.lock()
        defer { condition.unlock() }
        if queue.isEmpty && bytes <= totalBytes - reserved {
            add(bytes)
            return
        }
        onWait()
        let ticket = nextTicket
        nextTicket &+= 1
        queue.append(ticket)
        let deadline = Date(timeIntervalSinceNow: maxWait)
        while queue.first != ticket || bytes > totalBytes - reserved {
            if !condition.wait(until: deadline) && (queue.first != ticket || bytes > totalBytes - reserved) {
                queue.removeAll { $0 == ticket }
                // The next in line may fit now that this one no longer stands before it.
                condition.broadcast()
                onRefusal()
                throw .overloaded
            }
        }
        queue.removeFirst()
        add(bytes)
        // The new head of the queue may fit in what is left.
        condition.broadcast()
    }

    private func release(_ bytes: Int) {
        condition.lock()
        add(-bytes)
        condition.broadcast()
        condition.unlock()
    }

    /// Changes `reserved` and reports it; called with the lock held.
    private func add(_ delta: Int) {
        reserved += delta
        onReservedChange(reserved)
    }
}
