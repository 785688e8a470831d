#if canImport(Glibc)
import Glibc
#endif

// A blocking HTTP/1.1 client for one keep-alive connection, over POSIX sockets. The warmer
// runs one per worker thread. Chosen over URLSession (FoundationNetworking and libcurl) for
// memory: the warmer reads image bodies into one fixed 64 KiB buffer and drops them, keeping
// only HTML pages, so its RSS stays flat however many images it fetches.

/// One answer: status, headers (names lowercased), and the body when it was asked for.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    /// The body when `keepBody` allowed it, else empty.
    public var body: [UInt8]
    /// Body bytes received (kept or not).
    public var bodyBytes: Int
}

public struct HTTPClientError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

public final class HTTPConnection {
    let host: String
    let port: Int
    let timeoutSeconds: Int
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private var start = 0, end = 0

    /// Longest header block accepted, and the most body bytes kept for a page.
    static let maxHeaderBytes = 64 * 1024
    public static let maxKeptBody = 32 * 1024 * 1024

    /// `timeoutSeconds`: the most a connect, a send or a wait for the next bytes may take.
    public init(host: String, port: Int, timeoutSeconds: Int = 120) {
        self.host = host
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        start = 0
        end = 0
    }

    /// GET `target` with `Host: hostHeader`. `keepBody(headers)` decides from the answer's
    /// headers whether to keep its body. A reused connection that the server closed while idle
    /// is reopened and the request sent once more (GET is idempotent).
    public func get(_ target: String, hostHeader: String, keepBody: ([String: String]) -> Bool) throws(HTTPClientError) -> HTTPAnswer {
        let reused = fd >= 0
        do {
            return try exchange(target, hostHeader: hostHeader, keepBody: keepBody)
        } catch {
            close()
            // An idle keep-alive connection the server dropped fails at once (reset, or closed
            // before any answer); a timeout is a real failure and is not repeated.
            guard reused, !error.description.hasPrefix("timed out") else { throw error }
            return try exchange(target, hostHeader: hostHeader, keepBody: keepBody)
        }
    }

    private func exchange(_ target: String, hostHeader: String, keepBody: ([String: String]) -> Bool) throws(HTTPClientError) -> HTTPAnswer {
        if fd < 0 { try connect() }
        let request = "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: gallery-warm\r\nAccept: */*\r\n\r\n"
        try send(Array(request.utf8))
        let (status, headers) = try readHead()
        var answer = HTTPAnswer(status: status, headers: headers, body: [], bodyBytes: 0)
        let keep = keepBody(headers)
        let noBody = (100..<200).contains(status) || status == 204 || status == 304
        if noBody {
            // nothing follows the head
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            while true {
                let line = try readLine()
                let sizeText = line.split(separator: ";").first.map { $0.trimmingCharacters() } ?? ""
                guard let size = Int(sizeText, radix: 16), size >= 0 else { throw HTTPClientError(description: "bad chunk size '\(line)'") }
                if size == 0 {
                    while try !readLine().isEmpty {} // trailers
                    break
                }
                try readBody(count: size, keep: keep, into: &answer)
                guard try readLine().isEmpty else { throw HTTPClientError(description: "chunk not followed by CRLF") }
            }
        } else if let length = headers["content-length"].flatMap({ Int($0.trimmingCharacters()) }), length >= 0 {
            try readBody(count: length, keep: keep, into: &answer)
        } else {
            try readBody(count: Int.max, keep: keep, into: &answer)
            close()
        }
        if headers["connection"]?.lowercased() == "close" { close() }
        return answer
    }

    private func connect() throws(HTTPClientError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(name, String(port), &hints, &list) == 0, let first = list else {
            throw HTTPClientError(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = 0
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let a = entry {
            let s = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), a.pointee.ai_protocol)
            if s >= 0 {
                var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                var one: Int32 = 1
                setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                if Glibc.connect(s, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 {
                    fd = s
                    return
                }
                lastError = errno
                Glibc.close(s)
            }
            entry = a.pointee.ai_next
        }
        throw HTTPClientError(description: "cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    private func send(_ bytes: [UInt8]) throws(HTTPClientError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw HTTPClientError(description: "closed before the request was sent") }
            done += n
        }
    }

    /// Fills the buffer with more bytes; false at end of stream.
    private func fill() throws(HTTPClientError) -> Bool {
        if start == end { start = 0; end = 0 }
        if end == buffer.count {
            guard start > 0 else { throw HTTPClientError(description: "header line too long") }
            buffer.withUnsafeMutableBufferPointer { b in
                _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + end, $0.count - end, 0) }
            if n < 0, errno == EINTR { continue }
            if n < 0 {
                throw HTTPClientError(description: errno == EAGAIN || errno == EWOULDBLOCK ? "timed out after \(timeoutSeconds) s"
                                                                                          : String(cString: strerror(errno)))
            }
            end += n
            return n > 0
        }
    }

    private func readLine() throws(HTTPClientError) -> String {
        var scanned = start
        while true {
            while scanned < end {
                if buffer[scanned] == 10 {
                    var lineEnd = scanned
                    if lineEnd > start, buffer[lineEnd - 1] == 13 { lineEnd -= 1 }
                    let line = String(decoding: buffer[start..<lineEnd], as: UTF8.self)
                    start = scanned + 1
                    return line
                }
                scanned += 1
            }
            let offset = scanned - start
            guard try fill() else { throw HTTPClientError(description: "closed before the end of the answer") }
            scanned = start + offset
        }
    }

    private func readHead() throws(HTTPClientError) -> (Int, [String: String]) {
        if start == end {
            guard try fill() else { throw HTTPClientError(description: "closed before the answer") }
        }
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status) else {
            throw HTTPClientError(description: "bad status line '\(statusLine.prefix(80))'")
        }
        var headers: [String: String] = [:]
        var total = statusLine.utf8.count
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            total += line.utf8.count
            guard total <= Self.maxHeaderBytes else { throw HTTPClientError(description: "header block over 64 KiB") }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters()
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return (status, headers)
    }

    private func readBody(count: Int, keep: Bool, into answer: inout HTTPAnswer) throws(HTTPClientError) {
        var left = count
        while left > 0 {
            if start == end {
                guard try fill() else {
                    if count == Int.max { return }
                    throw HTTPClientError(description: "closed before the end of the body")
                }
            }
            let take = min(left, end - start)
            if keep {
                guard answer.body.count + take <= Self.maxKeptBody else { throw HTTPClientError(description: "page over 32 MiB") }
                answer.body += buffer[start..<(start + take)]
            }
            answer.bodyBytes += take
            start += take
            left -= take
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
