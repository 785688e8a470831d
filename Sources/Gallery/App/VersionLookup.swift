import Foundation
import Synchronization

/// Content versions for the images of one page, within a time budget.
///
/// Why: a page's `<img>` URLs carry each original's version, and a version may need the
/// original itself: hashing a local file the first time, or fetching a remote one. A remote
/// origin that hangs would hold the page for the whole origin timeout, and a page of 60 such
/// photos for many timeouts (the lookups ran two at a time, one per core). Here the lookups run
/// on a pool of threads sized for waiting, not for cores, and the page waits at most the
/// budget: what is not known by then is `.pending`, and the page links that image without a
/// version (`/img/<id>/<size>`), which redirects to the versioned URL once the image answers.
/// Lookups still running finish in the background and leave their result in the pipeline's
/// caches, so the next view of the page has them.
final class VersionLookup: Sendable {
    /// The process's pool: its threads live as long as the process, so there is one.
    static let shared = VersionLookup()

    enum Outcome: Sendable, Equatable {
        case version(String)
        /// The lookup failed (no such file, origin error, not an image): no image to link.
        case failed
        /// Not answered within the budget.
        case pending
    }

    /// Threads that run lookups; most of their time is spent waiting on origins.
    let threadCount: Int
    /// Lookups waiting for a thread beyond this are not queued (answered `.pending`), so a
    /// flood of page views for a dead origin cannot grow the queue without bound.
    let maxQueued: Int

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var started = false
    }
    private let state = Mutex(State())
    private let jobsReady = DispatchSemaphore(value: 0)

    init(threadCount: Int = 16, maxQueued: Int = 2048) {
        self.threadCount = max(1, threadCount)
        self.maxQueued = maxQueued
    }

    /// Looks up every key with `lookup` (nil for a failure) and waits up to `budget` seconds
    /// for the answers, in the order of `keys`.
    func run(_ keys: [String], budget: Double, lookup: @escaping @Sendable (String) -> String?) -> [Outcome] {
        guard !keys.isEmpty else { return [] }
        let results = ResultSlots<Outcome>(count: keys.count)
        let group = DispatchGroup()
        for (i, key) in keys.enumerated() {
            group.enter()
            let queued = submit {
                results.set(i, lookup(key).map(Outcome.version) ?? .failed)
                group.leave()
            }
            if !queued { group.leave() }
        }
        _ = group.wait(timeout: .now() + max(0, budget))
        return keys.indices.map { results.get($0) ?? .pending }
    }

    /// Queues `job`; false when the queue is full.
    private func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let startThreads = state.withLock { s -> Bool? in
            guard s.jobs.count < maxQueued else { return nil }
            s.jobs.append(job)
            defer { s.started = true }
            return !s.started
        }
        guard let startThreads else { return false }
        if startThreads {
            for _ in 0..<threadCount {
                let thread = Thread { [self] in work() }
                thread.name = "version-lookup"
                thread.start()
            }
        }
        jobsReady.signal()
        return true
    }

    private func work() {
        while true {
            jobsReady.wait()
            if let job = state.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) { job() }
        }
    }
}
