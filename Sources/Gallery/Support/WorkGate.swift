import Foundation

/// Lets a background thread's work stop for good before the process exits. `exit` runs
/// library clean-up handlers while other threads go on. Work still running then (an indexing
/// pass hashing a file, a SQLite write) can crash the process on its way out. So the watcher
/// enters the gate around each step of work. `close` waits for the step under way to end and
/// turns every later `enter` away; between steps the thread only waits (poll or sleep), which
/// is safe at exit.
final class WorkGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var closed = false
    private var busy = false

    /// True when work may start; the caller must `leave` after it. False once the gate is closed.
    func enter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        busy = true
        return true
    }

    func leave() {
        condition.lock()
        busy = false
        condition.broadcast()
        condition.unlock()
    }

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
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
