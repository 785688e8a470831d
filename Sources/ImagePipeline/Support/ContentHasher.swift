import CCrypto

/// SHA-256 through libcrypto, for content versions: OpenSSL uses the CPU's SHA instructions
/// (sha_ni) when there are any, which hashed about 9× faster than portable code on our
/// machines (30 MB in 0.03 s of CPU). `SHA256` is its public face.
struct ContentHasher: ~Copyable {
    private let context: OpaquePointer

    init() {
        // EVP_MD_CTX_new fails only when malloc does; there is no sensible way on from there.
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto: EVP_MD_CTX_new failed (out of memory)") }
        self.context = context
        EVP_DigestInit_ex(context, sha256Digest.algorithm, nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Feeds more message bytes.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The 32-byte digest; the hasher is used up.
    consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        digest.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return Array(digest.prefix(Int(length)))
    }

    /// The content version of `bytes`: the first 12 hex digits of their SHA-256.
    static func version(of bytes: [UInt8]) -> String {
        let hasher = ContentHasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return versionText(hasher.finalize())
    }

    /// The version text of a digest (12 lowercase hex digits, 48 bits).
    static func versionText(_ digest: [UInt8]) -> String {
        String(SHA256.hexString(Array(digest.prefix(6))))
    }
}

/// The SHA-256 implementation, looked up once per process. Two reasons:
/// - By default libcrypto frees its tables in an `atexit` handler. `exit` runs that handler
///   while other threads may still be hashing: an indexer thread in the middle of a file when
///   SIGTERM arrives. That thread then read freed memory and the server died of SIGSEGV or
///   SIGBUS instead of exiting 0. `OPENSSL_INIT_NO_ATEXIT` leaves the tables to the kernel.
/// - `EVP_DigestInit_ex` with `EVP_sha256()` looks the implementation up by name on every
///   call. A digest fetched once skips that lookup.
private let sha256Digest = FetchedDigest()

private struct FetchedDigest: @unchecked Sendable {
    /// Never freed; libcrypto's digest objects are immutable once fetched and safe to share.
    let algorithm: OpaquePointer?

    init() {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
        algorithm = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
    }
}
