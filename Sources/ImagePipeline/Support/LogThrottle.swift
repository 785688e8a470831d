import Synchronization

/// Passes a log line on at most once per `interval`, so a condition that fails on every
/// request (a full or read-only disk) costs one line a minute, not one per request.
final class LogThrottle: Sendable {
    private let last = Mutex(-Double.infinity)
    private let interval: Double
    private let clock: PipelineClock
    private let log: @Sendable (String) -> Void

    /// `interval` in seconds.
    init(interval: Double, clock: PipelineClock, log: @escaping @Sendable (String) -> Void) {
        self.interval = interval
        self.clock = clock
        self.log = log
    }

    func callAsFunction(_ line: @autoclosure () -> String) {
        let now = clock.now()
        let due = last.withLock { last -> Bool in
            guard now - last >= interval else { return false }
            last = now
            return true
        }
        if due { log(line()) }
    }
}
