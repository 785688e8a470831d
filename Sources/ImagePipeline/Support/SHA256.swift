/// SHA-256 (FIPS 180-4), streaming. Cache file names and content versions are its hex digests.
///
/// Whole blocks are compressed straight from the caller's buffer; only a partial tail is
/// copied, so hashing a 20 MB original allocates nothing per block.
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes of an unfinished block.
    private var tail: [UInt8] = []
    /// Message length so far, in bytes.
    private var length: UInt64 = 0

    public init() {}

    /// Hashes `bytes` in one call: 32 bytes of digest.
    public static func hash<C: ContiguousCollectionOfBytes>(_ bytes: C) -> [UInt8] {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    /// Lower-case hex of the digest of `bytes` (64 characters).
    public static func hex<C: ContiguousCollectionOfBytes>(_ bytes: C) -> String {
        hexString(hash(bytes))
    }

    /// Lower-case hex of the digest of the UTF-8 of `text`.
    public static func hex(_ text: String) -> String {
        hexString(hash(Array(text.utf8)))
    }

    /// Feeds more message bytes.
    public mutating func update<C: ContiguousCollectionOfBytes>(_ bytes: C) {
        bytes.withBytes { update(UnsafeRawBufferPointer($0)) }
    }

    /// Feeds more message bytes from raw memory.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var p = buffer.baseAddress, buffer.count > 0 else { return }
        var n = buffer.count
        length &+= UInt64(n)
        if !tail.isEmpty {
            let take = min(64 - tail.count, n)
            tail.append(contentsOf: UnsafeRawBufferPointer(start: p, count: take))
            p += take
            n -= take
            if tail.count == 64 {
                let t = tail
                t.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
                tail.removeAll(keepingCapacity: true)
            }
        }
        let blocks = n / 64
        if blocks > 0 {
            compress(p, blocks: blocks)
            p += blocks * 64
            n -= blocks * 64
        }
        if n > 0 { tail.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n)) }
    }

    /// Pads, finishes and returns the 32-byte digest. The hasher must not be used afterwards.
    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var pad: [UInt8] = [0x80]
        let used = (tail.count + 1) % 64
        pad.append(contentsOf: repeatElement(0, count: used <= 56 ? 56 - used : 120 - used))
        for i in (0..<8).reversed() { pad.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        let savedLength = length
        pad.withUnsafeBytes { update($0) }
        length = savedLength
        let s = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var out = [UInt8]()
        out.reserveCapacity(32)
        for w in s { out += [UInt8(w >> 24), UInt8(truncatingIfNeeded: w >> 16), UInt8(truncatingIfNeeded: w >> 8), UInt8(truncatingIfNeeded: w)] }
        return out
    }

    /// Lower-case hex of `digest`.
    public static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var chars = [UInt8]()
        chars.reserveCapacity(digest.count * 2)
        for b in digest {
            chars.append(digits[Int(b >> 4)])
            chars.append(digits[Int(b & 15)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    private mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
        var (h0, h1, h2, h3, h4, h5, h6, h7) = state
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            SHA256.roundConstants.withUnsafeBufferPointer { k in
                for block in 0..<blocks {
                    let base = data + block &* 64
                    for i in 0..<16 {
                        w[i] = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
                    }
                    for i in 16..<64 {
                        let a = w[i &- 15], b = w[i &- 2]
                        let s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >> 3)
                        let s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >> 10)
                        w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                    for i in 0..<64 {
                        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                        let ch = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
                        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                        let maj = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ maj
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d
                    h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                }
            }
        }
        state = (h0, h1, h2, h3, h4, h5, h6, h7)
    }

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}

@inline(__always)
private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 &- n)) }

/// Byte containers whose storage can be lent as one contiguous buffer ([UInt8], ArraySlice).
public protocol ContiguousCollectionOfBytes {
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
}

extension Array: ContiguousCollectionOfBytes where Element == UInt8 {
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBufferPointer(body)
    }
}

extension ArraySlice: ContiguousCollectionOfBytes where Element == UInt8 {
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBufferPointer(body)
    }
}
