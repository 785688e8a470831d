import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CTLS

/// A tiny https origin on 127.0.0.1 for `OriginTLSTests`: libssl with one of the certificates
/// in Fixtures/tls, answering every GET with the same bytes (or, when the handshake fails, with
/// nothing). One thread accepts and serves connections one after another.
final class TestTLSOrigin: @unchecked Sendable {
    private let listenFD: Int32
    private let context: OpaquePointer
    let port: UInt16
    private let body: [UInt8]

    /// `certificate`: "local" (for 127.0.0.1 and localhost) or "other" (another name only).
    init(certificate: String, body: [UInt8]) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw POSIXError(.EIO) }
        self.context = context
        let dir = fixturesDir + "/tls/"
        guard SSL_CTX_use_certificate_file(context, dir + certificate + ".pem", SSL_FILETYPE_PEM) == 1,
              SSL_CTX_use_PrivateKey_file(context, dir + certificate + ".key", SSL_FILETYPE_PEM) == 1 else {
            throw POSIXError(.ENOENT)
        }
        self.body = body
        let listenFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listenFD = listenFD
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard listenFD >= 0, bound == 0, listen(listenFD, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &len) }
        }
        port = UInt16(bigEndian: addr.sin_port)
        let fd = listenFD
        Thread { [self] in
            while true {
                let c = accept(fd, nil, nil)
                if c < 0 { if errno == EINTR { continue } else { return } }
                serve(c)
            }
        }.start()
    }

    deinit {
        shutdown(listenFD, Int32(SHUT_RDWR))
        close(listenFD)
        SSL_CTX_free(context)
    }

    func url(_ host: String = "127.0.0.1", _ path: String = "/photo.jpg") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        guard let ssl = SSL_new(context) else { return }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else { return }
        var request = [UInt8](), buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd, request.count < 65536 {
            let n = SSL_read(ssl, &buffer, Int32(buffer.count))
            if n <= 0 { return }
            request.append(contentsOf: buffer[0..<Int(n)])
        }
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8)
            + Array(String(body.count, radix: 16).utf8) + [13, 10] + body + Array("\r\n0\r\n\r\n".utf8)
        _ = SSL_write(ssl, reply, Int32(reply.count))
        SSL_shutdown(ssl)
    }
}
