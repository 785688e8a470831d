#if canImport(Glibc)
import Glibc
#endif
import ImagePipeline

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
    private var open: PlainSocket?
    private var reader = HTTPAnswerReader()

    /// The most body bytes kept for a page.
    public static let maxKeptBody = 32 * 1024 * 1024

    /// `timeoutSeconds`: the most a connect, a send or a wait for the next bytes may take.
    public init(host: String, port: Int, timeoutSeconds: Int = 120) {
        self.host = host
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    deinit { close() }

    public func close() {
        open = nil
        reader.reset()
    }

    /// GET `target` with `Host: hostHeader`. `keepBody(headers)` decides from the answer's
    /// headers whether to keep its body. A reused connection that the server closed while idle
    /// is reopened and the request sent once more (GET is idempotent).
    public func get(_ target: String, hostHeader: String, keepBody: ([String: String]) -> Bool) throws(HTTPClientError) -> HTTPAnswer {
        let reused = open != nil
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
        let stream: PlainSocket
        if let open {
            stream = open
        } else {
            stream = try connect()
            open = stream
        }
        let request = "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: gallery-warm\r\nAccept: */*\r\n\r\n"
        try send(Array(request.utf8), on: stream.fd)
        do {
            let (status, headers) = try reader.readHead(stream)
            var answer = HTTPAnswer(status: status, headers: headers, body: [], bodyBytes: 0)
            let keep = keepBody(headers)
            let toTheClose = try reader.readBody(stream, status: status, headers: headers) { (piece) throws(HTTPTransferError) in
                if keep {
                    guard answer.body.count + piece.count <= Self.maxKeptBody else { throw .failed("page over 32 MiB") }
                    answer.body += piece
                }
                answer.bodyBytes += piece.count
            }
            if toTheClose || headers["connection"]?.lowercased() == "close" { close() }
            return answer
        } catch {
            throw HTTPClientError(description: error.description)
        }
    }

    private func connect() throws(HTTPClientError) -> PlainSocket {
        do {
            let fd = try TCPConnector.connectBlocking(host: host, port: port, timeoutSeconds: timeoutSeconds)
            return PlainSocket(fd: fd, timeoutSeconds: timeoutSeconds)
        } catch {
            throw HTTPClientError(description: error.description)
        }
    }

    private func send(_ bytes: [UInt8], on fd: Int32) throws(HTTPClientError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw HTTPClientError(description: "closed before the request was sent") }
            done += n
        }
    }
}

/// A connected socket with receive and send timeouts (SO_RCVTIMEO, SO_SNDTIMEO), closed
/// when the connection lets go of it.
private final class PlainSocket: HTTPByteStream {
    let fd: Int32
    let timeoutSeconds: Int

    init(fd: Int32, timeoutSeconds: Int) {
        self.fd = fd
        self.timeoutSeconds = timeoutSeconds
    }

    deinit { Glibc.close(fd) }

    func receive(into buffer: inout [UInt8], from offset: Int) throws(HTTPTransferError) -> Int {
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, $0.count - offset, 0) }
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut("timed out after \(timeoutSeconds) s") }
            throw .failed(String(cString: strerror(errno)))
        }
    }
}
