import Foundation

/// Lets a background thread's work stop for good before the process exits. `exit` runs
/// library clean-up handlers while other threads go on. Work still running then (an indexing
/// pass hashing a file, a SQLite write) can crash the process on its way out. So the watcher
/// runs each step of work through the gate. `close` waits for the step under way to end and
/// turns every later step away; between steps the thread only waits (poll or sleep), which
/// is safe at exit.
final class WorkGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var closed = false
    private var busy = false

    /// Runs `step` unless the gate is closed; false when it was closed and `step` did not run.
    /// `close` waits for a step under way to end.
    func run(_ step: () throws -> Void) rethrows -> Bool {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return false
        }
        busy = true
        condition.unlock()
        defer {
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
        try step()
        return true
    }

    /// Turns later work away and waits up to `timeout` seconds for the step under way to end;
    /// false when it is still running then.
    func close(timeout: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        let deadline = Date(timeIntervalSinceNow: timeout)
        while busy {
            if !condition.wait(until: deadline) { return !busy }
        }
        return true
    }
}
