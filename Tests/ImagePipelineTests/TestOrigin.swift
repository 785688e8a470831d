import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 origin on 127.0.0.1 for the pipeline tests: one thread accepts, one thread
/// per connection answers, every request is counted per path with its headers, and each path
/// can be told to answer slowly, with an error, with HTML, cut short, too large, not at all, or
/// conditionally (304 when the request's validator matches).
final class TestOrigin: @unchecked Sendable {
    enum Reply: Sendable {
        /// 200 with these bytes and content type.
        case ok([UInt8], String)
        /// A JPEG with these validators (either may be absent): 304 when the request's
        /// If-None-Match names `etag`, or it has no If-None-Match and its If-Modified-Since is
        /// `lastModified`; else 200 with the bytes and the validators.
        case validated([UInt8], etag: String?, lastModified: String?)
        /// This status with a short text body.
        case status(Int)
        /// 200 with an HTML page.
        case html
        /// 200 announcing `bytes.count` but sending only `sent` of them, then closing.
        case truncated([UInt8], sent: Int)
        /// 200 with `count` bytes of JPEG-looking data.
        case oversized(count: Int)
        /// Accepts and reads the request, then says nothing for `seconds`.
        case hang(seconds: Double)
        /// 302 to another path of this server.
        case redirect(String)
        /// 200 announcing `count` bytes, then one byte every `interval` seconds.
        case drip(count: Int, interval: Double)
        /// These bytes as they are (status line, headers and body), then the close.
        case raw([UInt8])
    }

    private let listenFD: Int32
    let port: UInt16
    private let lock = NSLock()
    private var replies: [String: (Reply, Double)] = [:]
    private var counts: [String: Int] = [:]
    private var headers: [String: [[String: String]]] = [:]

    init() throws {
        let listenFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listenFD = listenFD
        guard listenFD >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(listenFD, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listenFD, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &len) }
        }
        port = UInt16(bigEndian: addr.sin_port)
        startAccepting()
    }

    private func startAccepting() {
        let fd = listenFD
        Thread {
            while true {
                let c = accept(fd, nil, nil)
                if c < 0 {
                    if errno == EINTR { continue }
                    return
                }
                Thread { self.serve(c) }.start()
            }
        }.start()
    }

    deinit { stop() }

    /// Stops accepting; connections in progress finish on their own.
    func stop() {
        shutdown(listenFD, Int32(SHUT_RDWR))
        close(listenFD)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// How `path` answers from now on, after waiting `delay` seconds.
    func set(_ path: String, _ reply: Reply, delay: Double = 0) {
        lock.lock()
        replies[path] = (reply, delay)
        lock.unlock()
    }

    /// Requests received for `path`.
    func count(_ path: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[path, default: 0]
    }

    /// The headers of each request received for `path`, oldest first (names in lower case).
    func requestHeaders(_ path: String) -> [[String: String]] {
        lock.lock()
        defer { lock.unlock() }
        return headers[path, default: []]
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd, request.count < 65536 {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return }
            request.append(contentsOf: buffer[0..<n])
        }
        let lines = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n")
        let line = lines[0].split(separator: " ")
        guard line.count >= 2 else { return }
        let path = String(line[1])
        var fields: [String: String] = [:]
        for header in lines.dropFirst() {
            guard let colon = header.firstIndex(of: ":") else { continue }
            fields[header[..<colon].lowercased()] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        lock.lock()
        counts[path, default: 0] += 1
        headers[path, default: []].append(fields)
        let (reply, delay) = replies[path] ?? (.status(404), 0)
        lock.unlock()
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        switch reply {
        case .ok(let bytes, let type):
            send(fd, head(200, type, bytes.count) + bytes)
        case .validated(let bytes, let etag, let lastModified):
            var validators = ""
            if let etag { validators += "ETag: \(etag)\r\n" }
            if let lastModified { validators += "Last-Modified: \(lastModified)\r\n" }
            let unchanged = if let tags = fields["if-none-match"] {
                tags == etag
            } else {
                fields["if-modified-since"] != nil && fields["if-modified-since"] == lastModified
            }
            if unchanged {
                send(fd, Array("HTTP/1.1 304 Not Modified\r\n\(validators)Connection: close\r\n\r\n".utf8))
            } else {
                let text = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(bytes.count)\r\n\(validators)Connection: close\r\n\r\n"
                send(fd, Array(text.utf8) + bytes)
            }
        case .status(let code):
            let body = Array("status \(code)\n".utf8)
            send(fd, head(code, "text/plain", body.count) + body)
        case .html:
            let body = Array("<!doctype html><title>Not here</title><p>Moved on.</p>\n".utf8)
            send(fd, head(200, "text/html", body.count) + body)
        case .truncated(let bytes, let sent):
            send(fd, head(200, "image/jpeg", bytes.count) + bytes.prefix(sent))
        case .oversized(let count):
            send(fd, head(200, "image/jpeg", count))
            var chunk = [UInt8](repeating: 0x55, count: 65536)
            chunk[0] = 0xFF; chunk[1] = 0xD8; chunk[2] = 0xFF
            var left = count
            while left > 0 {
                let n = min(left, chunk.count)
                if !send(fd, Array(chunk.prefix(n))) { return }
                chunk[0] = 0x55
                left -= n
            }
        case .hang(let seconds):
            Thread.sleep(forTimeInterval: seconds)
        case .drip(let count, let interval):
            guard send(fd, head(200, "image/jpeg", count) + [0xFF, 0xD8, 0xFF]) else { return }
            for _ in 3..<count {
                Thread.sleep(forTimeInterval: interval)
                if !send(fd, [0]) { return }
            }
        case .raw(let bytes):
            send(fd, bytes)
        case .redirect(let target):
            let text = "HTTP/1.1 302 Found\r\nLocation: \(url(target))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            send(fd, Array(text.utf8))
        }
    }

    private func head(_ status: Int, _ type: String, _ length: Int) -> [UInt8] {
        Array("HTTP/1.1 \(status) X\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\nETag: \"t1\"\r\nConnection: close\r\n\r\n".utf8)
    }

    /// Writes everything; false once the client has gone (MSG_NOSIGNAL: no SIGPIPE).
    @discardableResult
    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            done += n
        }
        return true
    }
}

extension Array where Element == UInt8 {
    var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return true }
        return false
    }
}
