import ImagePipeline

/// HMAC-SHA256 (RFC 2104 with FIPS 180-4's SHA-256), over the pipeline's own SHA-256.
enum HMACSHA256 {
    static let blockSize = 64

    /// The 32-byte MAC of `message` under `key` (a key longer than a block is hashed first).
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths (no early
    /// exit on the first differing byte, so a guess learns nothing from how long it took).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
