#if canImport(Glibc)
import Glibc
#endif
import CTLS

/// Whom https origins are trusted by: one libssl client context (TLS 1.2 or later, the peer's
/// certificate required and checked), made once and shared by every connection, which
/// OpenSSL allows across threads. The system's CA store by default (Debian's ca-certificates);
/// a PEM file of CA certificates instead when one is given (tests, private origins).
final class TLSTrust: @unchecked Sendable {
    /// The context, nil when libssl could not make one (every https fetch then fails with
    /// libssl's reason).
    let context: OpaquePointer?

    /// Trust the system's CA store.
    static let system = TLSTrust(caFile: nil)

    init(caFile: String?) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            self.context = nil
            return
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        _ = gallery_tls_require_tls12(context)
        if let caFile {
            SSL_CTX_load_verify_locations(context, caFile, nil)
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        self.context = context
    }

    deinit {
        if let context { SSL_CTX_free(context) }
    }

    /// The oldest error libssl has queued, as text.
    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "TLS error" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True for an IPv4 or IPv6 literal (checked by address, not by name).
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
