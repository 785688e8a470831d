import Synchronization

/// Counters, gauges and the decode-time histogram of one pipeline, rendered as Prometheus text.
/// One uncontended lock per count is far below the cost of a render, so plain locks suffice.
final class PipelineMetrics: Sendable {
    enum Counter: Int, CaseIterable {
        case requests, renderHits, renderMisses, diskHits, diskMisses
        case originFetches, originBytes, coalescedWaits, renders, passthroughs, overloaded, diskWriteFailures
        case revalidations, revalidationsNotModified, revalidationReplacements, revalidationFailures, staleServedOnError
        case decodeBudgetWaits, decodeBudgetRefusals

        var name: String {
            switch self {
            case .requests: return "pipeline_requests_total"
            case .renderHits: return "pipeline_render_cache_hits_total"
            case .renderMisses: return "pipeline_render_cache_misses_total"
            case .diskHits: return "pipeline_disk_cache_hits_total"
            case .diskMisses: return "pipeline_disk_cache_misses_total"
            case .originFetches: return "pipeline_origin_fetches_total"
            case .originBytes: return "pipeline_origin_bytes_total"
            case .coalescedWaits: return "pipeline_coalesced_waits_total"
            case .renders: return "pipeline_renders_total"
            case .passthroughs: return "pipeline_passthrough_total"
            case .overloaded: return "pipeline_overloaded_total"
            case .diskWriteFailures: return "pipeline_disk_write_failures_total"
            case .revalidations: return "pipeline_revalidations_total"
            case .revalidationsNotModified: return "pipeline_revalidation_not_modified_total"
            case .revalidationReplacements: return "pipeline_revalidation_replacements_total"
            case .revalidationFailures: return "pipeline_revalidation_failures_total"
            case .staleServedOnError: return "pipeline_stale_served_on_error_total"
            case .decodeBudgetWaits: return "pipeline_decode_budget_waits_total"
            case .decodeBudgetRefusals: return "pipeline_decode_budget_refusals_total"
            }
        }

        var help: String {
            switch self {
            case .requests: return "Render requests received."
            case .renderHits: return "Renders served from the in-memory render cache."
            case .renderMisses: return "Renders not found in the render cache."
            case .diskHits: return "Originals read from the disk cache."
            case .diskMisses: return "Originals not in the disk cache."
            case .originFetches: return "Requests sent to remote origins."
            case .originBytes: return "Bytes received from remote origins."
            case .coalescedWaits: return "Callers that waited for an identical fetch or render in flight."
            case .renders: return "Images decoded and encoded."
            case .passthroughs: return "Renders answered with the original bytes."
            case .overloaded: return "Renders refused because the render queue was full or decode memory did not free up in time."
            case .diskWriteFailures: return "Originals that could not be written to the disk cache."
            case .revalidations: return "Requests to origins that checked a cached original past its revalidation age."
            case .revalidationsNotModified: return "Revalidations that found the original unchanged (304, or the same bytes)."
            case .revalidationReplacements: return "Cached originals replaced by changed bytes from their origin."
            case .revalidationFailures: return "Revalidations that failed (timeout, error status, not an image); the cached bytes stay."
            case .staleServedOnError: return "Requests answered from a cached original past its age because its revalidation failed."
            case .decodeBudgetWaits: return "Renders that waited for other decodes to return decode memory budget."
            case .decodeBudgetRefusals: return "Renders refused by the decode memory budget (waited too long, or larger than the whole budget)."
            }
        }
    }

    enum Gauge: Int, CaseIterable {
        case decodeBudgetReservedBytes, decodeBudgetBytes

        var name: String {
            switch self {
            case .decodeBudgetReservedBytes: return "pipeline_decode_budget_reserved_bytes"
            case .decodeBudgetBytes: return "pipeline_decode_budget_bytes"
            }
        }

        var help: String {
            switch self {
            case .decodeBudgetReservedBytes: return "Decode memory reserved now by renders in progress."
            case .decodeBudgetBytes: return "Decode memory that renders may reserve at once."
            }
        }
    }

    /// Upper bounds of the decode-time buckets, in seconds.
    static let decodeBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private let counters = Mutex<[Int]>([Int](repeating: 0, count: Counter.allCases.count))
    private let gauges = Mutex<[Int]>([Int](repeating: 0, count: Gauge.allCases.count))
    private let errors = Mutex<[String: Int]>([:])
    private let histogram = Mutex<(buckets: [Int], count: Int, sum: Double)>(([Int](repeating: 0, count: PipelineMetrics.decodeBuckets.count), 0, 0))

    init() {}

    func add(_ counter: Counter, _ n: Int = 1) {
        counters.withLock { $0[counter.rawValue] += n }
    }

    func value(_ counter: Counter) -> Int {
        counters.withLock { $0[counter.rawValue] }
    }

    func set(_ gauge: Gauge, _ n: Int) {
        gauges.withLock { $0[gauge.rawValue] = n }
    }

    func value(_ gauge: Gauge) -> Int {
        gauges.withLock { $0[gauge.rawValue] }
    }

    func error(_ error: PipelineError) {
        errors.withLock { $0[error.kind.rawValue, default: 0] += 1 }
    }

    func observeDecode(seconds: Double) {
        histogram.withLock { h in
            for (i, bound) in PipelineMetrics.decodeBuckets.enumerated() where seconds <= bound { h.buckets[i] += 1 }
            h.count += 1
            h.sum += seconds
        }
    }

    /// Prometheus text exposition format, version 0.0.4.
    func text() -> String {
        var out = ""
        for c in Counter.allCases {
            out += "# HELP \(c.name) \(c.help)\n# TYPE \(c.name) counter\n\(c.name) \(value(c))\n"
        }
        for g in Gauge.allCases {
            out += "# HELP \(g.name) \(g.help)\n# TYPE \(g.name) gauge\n\(g.name) \(value(g))\n"
        }
        out += "# HELP pipeline_errors_total Failed requests by kind.\n# TYPE pipeline_errors_total counter\n"
        for (kind, n) in errors.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            out += "pipeline_errors_total{kind=\"\(kind)\"} \(n)\n"
        }
        let h = histogram.withLock { $0 }
        out += "# HELP pipeline_decode_seconds Time to decode one original at its reduced scale.\n# TYPE pipeline_decode_seconds histogram\n"
        for (i, bound) in PipelineMetrics.decodeBuckets.enumerated() {
            out += "pipeline_decode_seconds_bucket{le=\"\(bound)\"} \(h.buckets[i])\n"
        }
        out += "pipeline_decode_seconds_bucket{le=\"+Inf\"} \(h.count)\npipeline_decode_seconds_sum \(h.sum)\npipeline_decode_seconds_count \(h.count)\n"
        return out
    }
}
