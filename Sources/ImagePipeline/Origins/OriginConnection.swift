#if canImport(Glibc)
import Glibc
#endif
import CTLS

/// One TCP connection to an origin, in TLS for https (libssl, the peer's certificate checked
/// against the system's CA store and the host name), non-blocking so every step respects the
/// deadline. One request per connection: originals are fetched once and then cached.
final class OriginConnection: HTTPByteStream {
    private var fd: Int32 = -1
    private var ssl: OpaquePointer?
    private let deadline: TransferDeadline

    /// Connects to `host`:`port` (each address getaddrinfo gives, in turn) and, when `tls`,
    /// completes the handshake for `host`. `trust` overrides the CA store (tests).
    init(host: String, port: Int, tls: Bool, deadline: TransferDeadline, trust: TLSTrust) throws(HTTPTransferError) {
        self.deadline = deadline
        fd = try TCPConnector.connect(host: host, port: port, deadline: deadline)
        if tls {
            do {
                try handshake(host: host, trust: trust)
            } catch {
                close()
                throw error
            }
        }
    }

    deinit { close() }

    func close() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    private func handshake(host: String, trust: TLSTrust) throws(HTTPTransferError) {
        guard let context = trust.context, let ssl = SSL_new(context) else {
            throw .failed("TLS: \(TLSTrust.lastError())")
        }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        if TLSTrust.isAddress(host) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            _ = gallery_tls_set_sni(ssl, host)
            SSL_set1_host(ssl, host)
        }
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 { break }
            try waitFor(SSL_get_error(ssl, result), doing: "TLS handshake with \(host)")
        }
        let verified = SSL_get_verify_result(ssl)
        guard verified == X509_V_OK else {
            throw .failed("TLS: certificate of \(host) not trusted: \(String(cString: X509_verify_cert_error_string(verified)))")
        }
    }

    /// Waits for what libssl asked for; any other libssl answer is a failure.
    private func waitFor(_ sslError: Int32, doing what: String) throws(HTTPTransferError) {
        switch sslError {
        case SSL_ERROR_WANT_READ: try deadline.wait(fd, for: Int16(POLLIN), doing: what)
        case SSL_ERROR_WANT_WRITE: try deadline.wait(fd, for: Int16(POLLOUT), doing: what)
        case SSL_ERROR_SYSCALL where errno != 0: throw .failed("\(what): \(String(cString: strerror(errno)))")
        default: throw .failed("\(what): \(TLSTrust.lastError())")
        }
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(HTTPTransferError) {
        var sent = 0
        while sent < bytes.count {
            // The attempt itself does not throw (the closure would lose the error's type): it
            // says how many bytes went, or what to do about none going.
            let (n, sslError, osError) = bytes.withUnsafeBytes { raw -> (Int, Int32, Int32) in
                let p = raw.baseAddress! + sent, count = raw.count - sent
                if let ssl {
                    ERR_clear_error()
                    let r = SSL_write(ssl, p, Int32(clamping: count))
                    return r > 0 ? (Int(r), 0, 0) : (0, SSL_get_error(ssl, r), errno)
                }
                let r = Glibc.send(fd, p, count, Int32(MSG_NOSIGNAL))
                return r >= 0 ? (r, 0, 0) : (0, 0, errno)
            }
            if n > 0 {
                sent += n
            } else if ssl != nil {
                errno = osError
                try waitFor(sslError, doing: "sending the request")
            } else if osError == EAGAIN || osError == EINTR {
                try deadline.wait(fd, for: Int16(POLLOUT), doing: "sending the request")
            } else {
                throw .failed("send: \(String(cString: strerror(osError)))")
            }
        }
    }

    /// Reads what has arrived into `buffer[offset...]` (waiting for some); 0 at the end of the
    /// stream.
    func receive(into buffer: inout [UInt8], from offset: Int) throws(HTTPTransferError) -> Int {
        while true {
            let room = buffer.count - offset
            if let ssl {
                ERR_clear_error()
                let r = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress! + offset, Int32(clamping: room)) }
                if r > 0 { return Int(r) }
                let error = SSL_get_error(ssl, r)
                // A close without close_notify ends the stream as well: the length checks of
                // the body tell a cut-off answer from a whole one.
                if error == SSL_ERROR_ZERO_RETURN || (error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) { return 0 }
                try waitFor(error, doing: "reading the answer")
                continue
            }
            let r = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, room, 0) }
            if r >= 0 { return r }
            if errno == EAGAIN || errno == EINTR {
                try deadline.wait(fd, for: Int16(POLLIN), doing: "reading the answer")
                continue
            }
            throw .failed("recv: \(String(cString: strerror(errno)))")
        }
    }
}
