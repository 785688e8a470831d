import Foundation
import ImageCodec

/// Original bytes as an origin sent them, already checked to be a JPEG or PNG.
struct FetchedOriginal: Sendable {
    var bytes: [UInt8]
    var format: ImageFormat
    /// Validators the origin sent, kept in the disk-cache metadata.
    var etag: String?
    var lastModified: String?
}

/// What an origin said to a conditional GET.
enum RevalidationAnswer: Sendable {
    /// 304: the cached bytes are current. The validators, when the 304 carried new ones.
    case notModified(etag: String?, lastModified: String?)
    /// 2xx with a body that passed the same checks as a first fetch.
    case fetched(FetchedOriginal)
}

/// Fetches originals over http(s) on the calling worker thread (the FastCGI workers are plain
/// threads), with our own HTTP/1.1 exchange over POSIX sockets and libssl for https
/// (`OriginConnection`). Not URLSession: FoundationNetworking brings libcurl and 28 more shared
/// libraries into every process, which cost memory and a slower start for what is one GET.
///
/// Rules: status 2xx only (and 304 to a conditional request), at most `maxRedirects` redirects
/// and only to http(s), at most `maxBytes` received (the transfer stops as soon as it goes
/// past), the body must be the whole Content-Length, and it must start like an image format we
/// read. Every failure is a typed error; nothing here writes to any cache.
final class OriginFetcher: Sendable {
    private let connectTimeout: Double
    private let totalTimeout: Double
    private let maxBytes: Int
    private let maxRedirects: Int
    private let trust: TLSTrust

    /// `trust`: whom https certificates must chain to (the system's CA store by default).
    init(connectTimeout: Double, totalTimeout: Double, maxBytes: Int, maxRedirects: Int, trust: TLSTrust = .system) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.trust = trust
    }

    /// GETs `url` (http or https) and validates the answer.
    func fetch(_ url: URL) throws(PipelineError) -> FetchedOriginal {
        switch try transfer(url, etag: nil, lastModified: nil) {
        case .fetched(let original): return original
        case .notModified: throw .originFailed("\(url.absoluteString): status 304 to an unconditional request")
        }
    }

    /// GETs `url` on the condition that it changed: `If-None-Match` with `etag` when there is
    /// one, else `If-Modified-Since` with `lastModified` (sending both would let an origin with
    /// a coarse date answer 304 for a changed ETag); with neither, a plain GET. A 304 is only
    /// accepted in answer to a condition. Everything else is checked as in `fetch`.
    func revalidate(_ url: URL, etag: String?, lastModified: String?) throws(PipelineError) -> RevalidationAnswer {
        try transfer(url, etag: etag, lastModified: etag == nil ? lastModified : nil)
    }

    private func transfer(_ url: URL, etag: String?, lastModified: String?) throws(PipelineError) -> RevalidationAnswer {
        let source = url.absoluteString
        var headers = [("Accept", "image/jpeg, image/png;q=0.9, */*;q=0.1"), ("User-Agent", "gallery-image-pipeline/1")]
        if let etag { headers.append(("If-None-Match", etag)) }
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        let conditional = etag != nil || lastModified != nil
        let deadline = TransferDeadline(total: totalTimeout, idle: connectTimeout)
        var current = url
        var redirects = 0
        while true {
            let answer: OriginExchange.Answer
            do {
                answer = try exchange(current, headers: headers, deadline: deadline)
            } catch {
                switch error {
                case .timedOut(let why): throw .originTimedOut("\(source): \(why)")
                case .failed(let why): throw .originFailed("\(source): \(why)")
                }
            }
            if [301, 302, 303, 307, 308].contains(answer.status), let location = answer.headers["location"] {
                redirects += 1
                guard redirects <= maxRedirects else { throw .originFailed("\(source): more than \(maxRedirects) redirects") }
                guard let next = URL(string: location, relativeTo: current)?.absoluteURL,
                      let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                    throw .originFailed("\(source): redirect to a non-http(s) URL")
                }
                current = next
                continue
            }
            return try validated(answer, source: source, conditional: conditional)
        }
    }

    /// One GET of `url` on a new connection.
    private func exchange(_ url: URL, headers: [(String, String)], deadline: TransferDeadline) throws(HTTPTransferError) -> OriginExchange.Answer {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .failed("scheme is not http(s)")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              var host = components.host, !host.isEmpty else {
            throw .failed("no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let tls = scheme == "https"
        let port = components.port ?? (tls ? 443 : 80)
        guard (1...65535).contains(port) else { throw .failed("port \(port) out of range") }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        var hostHeader = host.contains(":") ? "[\(host)]" : host
        if components.port != nil { hostHeader += ":\(port)" }
        let connection = try OriginConnection(host: host, port: port, tls: tls, deadline: deadline, trust: trust)
        defer { connection.close() }
        var exchange = OriginExchange(connection: connection)
        return try exchange.get(target: target, host: hostHeader, headers: headers, maxBytes: maxBytes)
    }

    private func validated(_ answer: OriginExchange.Answer, source: String, conditional: Bool) throws(PipelineError) -> RevalidationAnswer {
        if answer.status == 304, conditional {
            return .notModified(etag: answer.headers["etag"], lastModified: answer.headers["last-modified"])
        }
        guard (200...299).contains(answer.status) else { throw .originFailed("\(source): status \(answer.status)") }
        guard let format = ImageFormat.sniff(answer.body) else {
            let type = answer.headers["content-type"] ?? "no content type"
            throw .notAnImage("\(source): \(type), not an image format we read")
        }
        return .fetched(FetchedOriginal(bytes: answer.body, format: format,
                                        etag: answer.headers["etag"], lastModified: answer.headers["last-modified"]))
    }
}
