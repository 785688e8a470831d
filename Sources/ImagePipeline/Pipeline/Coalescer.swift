import Foundation
import Synchronization

/// At most one computation per key in flight: the first caller (the leader) runs the work,
/// callers that arrive meanwhile wait for it and get the same value or the same error.
///
/// The key leaves the table before waiters are woken, whether the work succeeded or failed,
/// so a failure is never remembered: the next caller after it starts a fresh attempt.
final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One computation in flight and the callers waiting for it.
    private final class Flight: @unchecked Sendable {
        // Guarded by `condition`.
        private var result: Result<Value, PipelineError>?
        private let condition = NSCondition()

        func finish(_ r: Result<Value, PipelineError>) {
            condition.lock()
            result = r
            condition.broadcast()
            condition.unlock()
        }

        func wait() -> Result<Value, PipelineError> {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let r = result { return r }
                condition.wait()
            }
        }
    }

    private let flights = Mutex<[Key: Flight]>([:])
    /// Called each time a caller waits for another's work instead of running its own.
    private let onWait: @Sendable () -> Void

    init(onWait: @escaping @Sendable () -> Void = {}) {
        self.onWait = onWait
    }

    /// Runs `work` for `key` unless it is already running, in which case waits for that run.
    func run(_ key: Key, _ work: () throws(PipelineError) -> Value) throws(PipelineError) -> Value {
        let (flight, isLeader) = flights.withLock { table -> (Flight, Bool) in
            if let existing = table[key] { return (existing, false) }
            let f = Flight()
            table[key] = f
            return (f, true)
        }
        if !isLeader {
            onWait()
            return try flight.wait().get()
        }
        let result: Result<Value, PipelineError>
        do { result = .success(try work()) } catch { result = .failure(error) }
        flights.withLock { _ = $0.removeValue(forKey: key) }
        flight.finish(result)
        return try result.get()
    }

    /// Keys with work in flight now (for tests and diagnostics).
    var inFlightCount: Int { flights.withLock { $0.count } }
}
