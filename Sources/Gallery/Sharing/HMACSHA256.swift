import CCrypto

/// HMAC-SHA-256 (RFC 2104) and constant-time comparison, both from libcrypto.
enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBufferPointer { o in
                    HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count,
                         o.baseAddress, &length)
                }
            }
        }
        // HMAC fails only when libcrypto cannot allocate; a link cannot be checked without it.
        guard done != nil, length == 32 else { fatalError("libcrypto: HMAC-SHA-256 failed") }
        return Array(out.prefix(32))
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths
    /// (`CRYPTO_memcmp`: no early exit, so a guess learns nothing from how long it took).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }
}
