import Foundation
import Synchronization

/// Keeps cached remote originals in step with their origins, and remembers the content version
/// of each one this process has seen.
///
/// **Stale-while-revalidate.** A lookup that finds an original older than
/// `remoteRevalidateAfter` answers at once with the cached version and only queues the URL; a
/// few background threads send the conditional GETs. Revalidating inside the request was the
/// alternative, and it puts the origin's round trip, or with a dead origin a whole timeout, in
/// front of the request that notices the expiry. Worse, an album page asks for the versions of
/// up to 60 photos, which were fetched together and so expire together: 60 round trips before
/// one page. The price of answering stale is that pages link the old version until the
/// revalidation ends, a round trip later. That is never wrong content: the old version's URL
/// still names the old bytes, and once they are replaced it redirects to the new version.
///
/// **One revalidation per URL.** A URL is queued at most once in a process, and revalidated
/// under its disk entry's lock, after re-reading the entry's metadata: when another worker
/// process revalidated it meanwhile, the outcome is adopted and no request is sent.
///
/// **Outcomes.** 304, or a 200 with the same bytes: the bytes stay and the validation time in
/// the metadata moves on. A 200 with other valid bytes: the entry is replaced as a first fetch
/// would store it, so the version changes and renders of the old bytes, kept under the old
/// version, are no longer asked for. Any failure (timeout, error status, HTML, too large): the
/// cached bytes stay and keep being served (stale-if-error), the failure goes to the log and to
/// the metadata, and no process tries again before `remoteRevalidateBackoff` has passed, so a
/// dead origin costs one attempt per back-off instead of a timeout per request.
final class OriginRevalidator: Sendable {
    /// What is known of one cached remote original.
    struct Freshness: Sendable, Equatable {
        var version: String
        /// Seconds since 1970 of the last fetch or successful revalidation.
        var validatedAt: Double
        /// The last failed revalidation, when none has succeeded since.
        var failedAt: Double?

        init(_ meta: DiskDataCache.Metadata) {
            version = meta.version
            validatedAt = meta.lastValidated
            failedAt = meta.revalidationFailedAt
        }

        /// Whether `self` describes a later state of the entry than `other`.
        func isNewer(than other: Freshness) -> Bool {
            (validatedAt, failedAt ?? 0) >= (other.validatedAt, other.failedAt ?? 0)
        }
    }

    /// Revalidations running at once: enough to overlap origin round trips, few enough that a
    /// page full of expired photos does not open a connection per photo.
    static let maxWorkers = 4
    /// URLs waiting beyond this are not queued; a later lookup offers them again.
    static let maxPending = 4096

    private struct Queue {
        var pending: [String] = []
        /// Pending or running URLs, so each is queued once.
        var queued: Set<String> = []
        var workers = 0
    }

    /// Age after which an original is revalidated; infinite for never.
    let age: Double
    let backoff: Double
    private let disk: DiskDataCache
    private let fetcher: OriginFetcher
    private let metrics: PipelineMetrics
    private let log: @Sendable (String) -> Void
    private let clock: PipelineClock
    private let known = BoundedMap<String, Freshness>(limit: 100_000)
    private let queue = Mutex(Queue())
    /// Entered per queued URL, left when its revalidation is over.
    private let outstanding = DispatchGroup()

    init(configuration: PipelineConfiguration, disk: DiskDataCache, fetcher: OriginFetcher, metrics: PipelineMetrics) {
        age = max(configuration.remoteRevalidateAfter, PipelineConfiguration.minimumRevalidateAfter)
        backoff = max(configuration.remoteRevalidateBackoff, 0)
        self.disk = disk
        self.fetcher = fetcher
        self.metrics = metrics
        log = configuration.log
        clock = configuration.clock
    }

    /// Records the state of `url`'s entry as read from or written to disk. An older state than
    /// the one known (a reader that read the entry just before a revalidation) is ignored.
    func note(_ url: String, _ meta: DiskDataCache.Metadata) {
        let fresh = Freshness(meta)
        known.set(fresh, for: url, unless: { !fresh.isNewer(than: $0) })
    }

    /// Drops what is known of `url` (its entry was removed), so the next lookup reads the disk.
    func forget(_ url: String) {
        known.remove(url)
    }

    /// Queues a revalidation of `url` when one is due: its original was just used and is past
    /// its age (and past the back-off of a failed attempt).
    func queueIfDue(_ url: String) {
        guard let state = known[url] else { return }
        if isDue(state, now: clock.now()) { enqueue(url) }
    }

    /// The version known for `url`, or nil. Only a lookup: callers that serve it call
    /// `queueIfDue` too.
    func knownVersion(_ url: String) -> String? {
        known[url]?.version
    }

    /// Counts one answer made from `url`'s original while it is past its age and its last
    /// revalidation failed.
    func countIfStaleOnError(_ url: String) {
        guard let state = known[url], let failed = state.failedAt else { return }
        let now = clock.now()
        if now >= state.validatedAt + age, now < failed + backoff { metrics.add(.staleServedOnError) }
    }

    /// Waits until no revalidation is queued or running; false when `timeout` passed first.
    /// Tests use it to look at a revalidation's outcome.
    func waitUntilIdle(timeout: Double) -> Bool {
        outstanding.wait(timeout: .now() + timeout) == .success
    }

    private func isDue(_ state: Freshness, now: Double) -> Bool {
        guard now >= state.validatedAt + age else { return false }
        if let failed = state.failedAt { return now >= failed + backoff }
        return true
    }

    private func enqueue(_ url: String) {
        let startWorker = queue.withLock { q -> Bool? in
            guard !q.queued.contains(url), q.pending.count < Self.maxPending else { return nil }
            q.queued.insert(url)
            q.pending.append(url)
            outstanding.enter()
            guard q.workers < Self.maxWorkers else { return false }
            q.workers += 1
            return true
        }
        if startWorker == true { Thread { self.drain() }.start() }
    }

    /// A worker: revalidates queued URLs until none is left.
    private func drain() {
        while let url = queue.withLock({ q -> String? in
            if q.pending.isEmpty {
                q.workers -= 1
                return nil
            }
            return q.pending.removeFirst()
        }) {
            revalidate(url)
            queue.withLock { _ = $0.queued.remove(url) }
            outstanding.leave()
        }
    }

    private func revalidate(_ key: String) {
        guard let url = URL(string: key) else { return forget(key) }
        // The body throws nothing; the lock can only report a failed first fetch it waited
        // for, and then there is no entry left to revalidate.
        try? disk.withEntryLock(key) { () throws(PipelineError) in
            guard let meta = disk.metadata(key) else { return forget(key) }
            note(key, meta)
            guard isDue(Freshness(meta), now: clock.now()) else { return }
            metrics.add(.revalidations)
            metrics.add(.originFetches)
            do {
                switch try fetcher.revalidate(url, etag: meta.etag, lastModified: meta.lastModified) {
                case .notModified(let etag, let lastModified):
                    confirm(meta, etag: etag ?? meta.etag, lastModified: lastModified ?? meta.lastModified)
                case .fetched(let fetched):
                    metrics.add(.originBytes, fetched.bytes.count)
                    if PipelineEngine.version(of: fetched.bytes) == meta.version {
                        confirm(meta, etag: fetched.etag, lastModified: fetched.lastModified)
                    } else {
                        replace(meta, with: fetched)
                    }
                }
            } catch {
                var failed = meta
                failed.revalidationFailedAt = clock.now()
                disk.updateMetadata(failed)
                note(key, failed)
                metrics.add(.revalidationFailures)
                log("revalidating \(key) failed: \(error); serving the cached original (version \(meta.version)), next attempt in \(backoff) s")
            }
        }
    }

    /// The origin still has these bytes: the age starts over.
    private func confirm(_ meta: DiskDataCache.Metadata, etag: String?, lastModified: String?) {
        var confirmed = meta
        confirmed.validatedAt = clock.now()
        confirmed.revalidationFailedAt = nil
        confirmed.etag = etag
        confirmed.lastModified = lastModified
        disk.updateMetadata(confirmed)
        note(meta.url, confirmed)
        metrics.add(.revalidationsNotModified)
    }

    /// The origin has other bytes: store them as a first fetch would. When the disk refuses,
    /// the entry is gone and the next request fetches the URL again.
    private func replace(_ meta: DiskDataCache.Metadata, with fetched: FetchedOriginal) {
        let replacement = DiskDataCache.Metadata(url: meta.url, fetched: fetched, now: clock.now())
        metrics.add(.revalidationReplacements)
        if disk.write(fetched.bytes, metadata: replacement) {
            note(meta.url, replacement)
        } else {
            metrics.add(.diskWriteFailures)
            forget(meta.url)
        }
        log("revalidated \(meta.url): changed, version \(meta.version) -> \(replacement.version)")
    }
}
