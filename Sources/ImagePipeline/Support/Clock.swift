import Foundation

/// The time the pipeline reads: ages of cached originals, revalidation back-offs, the lock
/// file's record of a failed fetch, stale temp files. Injected through
/// `PipelineConfiguration.clock` so tests move time forward instead of sleeping on the wall
/// clock (which flakes on a loaded machine).
public struct PipelineClock: Sendable {
    /// Seconds since 1970.
    public let now: @Sendable () -> Double

    public init(now: @escaping @Sendable () -> Double) { self.now = now }

    /// The wall clock.
    public static let system = PipelineClock { Date().timeIntervalSince1970 }
}
