import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal FastCGI client for one GET per connection to `gallery serve --listen`: the
/// library section times the app alone, without nginx in the path.
enum FastCGIClient {
    struct Reply {
        var status: Int
        var body: String
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// GET `uri` from the responder on 127.0.0.1:`port`.
    static func get(port: Int, uri: String) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw Failure(description: "connect failed") }
        let parts = uri.split(separator: "?", maxSplits: 1)
        var params: [UInt8] = []
        for (name, value) in [("REQUEST_METHOD", "GET"), ("REQUEST_URI", uri), ("SCRIPT_NAME", String(parts[0])),
                              ("QUERY_STRING", parts.count > 1 ? String(parts[1]) : ""), ("SERVER_PROTOCOL", "HTTP/1.1")] {
            params += length(name.utf8.count) + length(value.utf8.count) + Array(name.utf8) + Array(value.utf8)
        }
        var out = record(type: 1, [0, 1, 0, 0, 0, 0, 0, 0])  // BEGIN_REQUEST, role responder, no keep-alive
        out += record(type: 4, params) + record(type: 4, []) + record(type: 5, [])
        guard out.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == out.count else { throw Failure(description: "write failed") }

        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            input += chunk[0..<n]
        }
        var stdout: [UInt8] = []
        var at = 0
        while at + 8 <= input.count {
            let type = input[at + 1]
            let length = Int(input[at + 4]) << 8 | Int(input[at + 5])
            let padding = Int(input[at + 6])
            guard at + 8 + length <= input.count else { break }
            if type == 6 { stdout += input[(at + 8)..<(at + 8 + length)] }
            at += 8 + length + padding
        }
        let text = String(decoding: stdout, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no headers in the reply") }
        var status = 200
        for line in text[..<split.lowerBound].split(separator: "\r\n") where line.lowercased().hasPrefix("status:") {
            status = Int(line.dropFirst(7).trimmingCharacters(in: .whitespaces).prefix(3)) ?? 0
        }
        return Reply(status: status, body: String(text[split.upperBound...]))
    }

    private static func length(_ n: Int) -> [UInt8] {
        n < 128 ? [UInt8(n)] : [UInt8(0x80 | (n >> 24) & 0x7f), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
    }

    private static func record(type: UInt8, _ content: [UInt8]) -> [UInt8] {
        [1, type, 0, 1, UInt8(content.count >> 8), UInt8(content.count & 0xff), 0, 0] + content
    }
}
