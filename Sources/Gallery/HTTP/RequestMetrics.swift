import Synchronization

/// Request counters by route and status, plus time spent, in Prometheus text format.
final class RequestMetrics: Sendable {
    private struct Key: Hashable { var route: String; var status: Int }
    private struct State {
        var counts: [Key: Int] = [:]
        var seconds: [String: Double] = [:]
    }
    private let state = Mutex(State())
    let inFlight = Atomic<Int>(0)

    func record(route: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.counts[Key(route: route, status: status), default: 0] += 1
            s.seconds[route, default: 0] += seconds
        }
    }

    func text() -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP gallery_http_requests_total Requests answered, by route and status.\n"
        out += "# TYPE gallery_http_requests_total counter\n"
        for (key, n) in snapshot.counts.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            out += "gallery_http_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(n)\n"
        }
        out += "# HELP gallery_http_request_seconds_total Time spent answering, by route.\n"
        out += "# TYPE gallery_http_request_seconds_total counter\n"
        for (route, s) in snapshot.seconds.sorted(by: { $0.key < $1.key }) {
            out += "gallery_http_request_seconds_total{route=\"\(route)\"} \(s)\n"
        }
        out += "# HELP gallery_http_requests_in_flight Requests being answered now.\n"
        out += "# TYPE gallery_http_requests_in_flight gauge\n"
        out += "gallery_http_requests_in_flight \(inFlight.load(ordering: .relaxed))\n"
        return out
    }
}
