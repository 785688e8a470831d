import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP exchange.
struct HTTPReply {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal HTTP/1.1 client over a loopback TCP socket that sends the request target exactly
/// as given (no normalising of "..", no re-encoding), so traversal attempts reach the server
/// byte for byte.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `source` binds the client to another loopback address first (127.0.0.2 looks to nginx
    /// like a client outside its loopback-only rules).
    static func request(port: Int, method: String = "GET", target: String, headers: [String: String] = [:],
                        source: String? = nil, timeoutSeconds: Int = 60) throws -> HTTPReply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var from = loopback(port: 0, address: source)
            let bound = withUnsafePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw Failure(description: "bind to \(source) failed") }
        }
        var addr = loopback(port: port)
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to \(port) failed") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        let out = Array(head.utf8)
        var sent = 0
        while sent < out.count {
            let n = out[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send failed") }
            sent += n
        }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw Failure(description: "recv failed or timed out for \(target)") }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return try parse(data, method: method)
    }

    static func loopback(port: Int, address: String = "127.0.0.1") -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr(address)
        return addr
    }

    private static func parse(_ data: [UInt8], method: String) throws -> HTTPReply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...(max(0, data.count - 4))).first(where: { data[$0..<min(data.count, $0 + 4)].elementsEqual(separator) }) else {
            throw Failure(description: "no header end in \(data.count) bytes")
        }
        let lines = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            // A repeated field is joined as RFC 9110 combines it, so a doubled header shows.
            let name = line[..<colon].lowercased(), value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        var body = Array(data[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return HTTPReply(status: status, headers: headers, body: method == "HEAD" ? [] : body)
    }

    private static func dechunk(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < raw.count {
            var j = i
            while j + 1 < raw.count && !(raw[j] == 13 && raw[j + 1] == 10) { j += 1 }
            let sizeText = String(decoding: raw[i..<j], as: UTF8.self).split(separator: ";").first.map(String.init) ?? "0"
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = j + 2
            guard start + size <= raw.count else { break }
            out += raw[start..<(start + size)]
            i = start + size + 2
        }
        return out
    }
}
