/// The boolean entropy decoder of VP8 (RFC 6386 section 7): every header field, mode and
/// coefficient token of a lossy WebP is one binary decision coded with an 8-bit probability.
///
/// `value` holds up to 64 bits of the stream; the top 8 bits above `bits` are the window the
/// split is compared with. Bytes are loaded seven at a time while enough remain, then one by
/// one; past the end zeros are shifted in and `pastEnd` is set, the way libwebp flags a
/// premature end (its decoder then refuses the frame, and so do we).
struct VP8BoolDecoder {
    private let base: UnsafePointer<UInt8>
    private var position: Int
    private let end: Int
    private var value: UInt64 = 0
    /// Bits of `value` below the 8-bit window; negative means a load is due.
    private var bits: Int = -8
    /// The current range, 128...255 between decisions (1...255 before normalising).
    private var range: UInt32 = 255
    /// Whether a byte past the end of this partition was needed.
    private(set) var pastEnd = false

    /// A decoder over `bytes` of `file`; the range must lie inside the buffer.
    init(_ file: UnsafeBufferPointer<UInt8>, _ bytes: Range<Int>) {
        // The caller validated `bytes` against the file; an empty file has no base address.
        base = file.baseAddress ?? UnsafePointer(bitPattern: 1)!
        position = bytes.lowerBound
        end = bytes.upperBound
    }

    private mutating func load() {
        if end &- position >= 8 {
            // One unaligned big-endian load of 8 bytes, of which the first 7 are used.
            let chunk = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self).bigEndian >> 8
            position &+= 7
            value = (value << 56) | chunk
            bits &+= 56
        } else if position < end {
            value = (value << 8) | UInt64(base[position])
            position &+= 1
            bits &+= 8
        } else {
            value <<= 8
            bits &+= 8
            pastEnd = true
        }
    }

    /// One decision whose probability of being 0 is `probability` / 256.
    @inline(__always)
    mutating func bit(_ probability: UInt8) -> Int {
        if bits < 0 { load() }
        // Masking shifts (`&>>`, `&<<`): `bits` is 0...56 here, and the checked forms cost a
        // compare and a select each in the hottest loop of the lossy decoder.
        let split = 1 &+ (((range &- 1) &* UInt32(probability)) &>> 8)
        let window = UInt32(truncatingIfNeeded: value &>> UInt64(truncatingIfNeeded: bits))
        let result: Int
        if window >= split {
            range &-= split
            value &-= UInt64(split) &<< UInt64(truncatingIfNeeded: bits)
            result = 1
        } else {
            range = split
            result = 0
        }
        let shift = range.leadingZeroBitCount &- 24
        range &<<= UInt32(truncatingIfNeeded: shift)
        bits &-= shift
        return result
    }

    /// `magnitude` with a sign read at probability 1/2 (1 = negative).
    @inline(__always)
    mutating func signed(_ magnitude: Int32) -> Int32 {
        bit(128) == 1 ? 0 &- magnitude : magnitude
    }

    /// An unsigned `count`-bit literal, most significant bit first, each bit at probability 1/2.
    mutating func literal(_ count: Int) -> Int {
        var v = 0
        for _ in 0..<count { v = (v << 1) | bit(128) }
        return v
    }

    /// A `count`-bit magnitude followed by a sign bit (1 = negative).
    mutating func signedLiteral(_ count: Int) -> Int {
        let magnitude = literal(count)
        return bit(128) == 1 ? -magnitude : magnitude
    }

    /// A one-bit flag; when set, a signed `count`-bit value follows, else 0.
    mutating func optionalSigned(_ count: Int) -> Int {
        bit(128) == 1 ? signedLiteral(count) : 0
    }
}
