/// The least-significant-bit-first bit reader of VP8L (lossless specification section 3).
/// Past the end it returns zeros; `pastEnd` tells the decoder, which reports `.truncated`.
struct VP8LBitReader {
    private let base: UnsafePointer<UInt8>
    private var position: Int
    private let end: Int
    private var buffer: UInt64 = 0
    /// Bits in `buffer`; once the data is exhausted the zeros above count as bits too.
    private var count = 0
    private var consumed = 0
    private let totalBits: Int

    init(_ file: UnsafeBufferPointer<UInt8>, _ bytes: Range<Int>) {
        base = file.baseAddress ?? UnsafePointer(bitPattern: 1)!
        position = bytes.lowerBound
        end = bytes.upperBound
        totalBits = bytes.count * 8
    }

    /// Whether more bits were read than the data holds.
    var pastEnd: Bool { consumed > totalBits }

    @inline(__always)
    private mutating func fill() {
        if end &- position >= 8 {
            // Eight bytes at once, little-endian. The bytes that do not fit above `count` are
            // read again by the next fill; the bits already above `count` are those same bytes.
            buffer |= UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self).littleEndian << UInt64(count)
            let bytes = (63 &- count) >> 3
            position &+= bytes
            count &+= bytes &* 8
            return
        }
        while count <= 56 && position < end {
            buffer |= UInt64(base[position]) << UInt64(count)
            position &+= 1
            count &+= 8
        }
        if position >= end { count = 64 }
    }

    /// The next `n` (1...32) bits without consuming them.
    @inline(__always)
    mutating func peek(_ n: Int) -> UInt32 {
        if count < n { fill() }
        return UInt32(truncatingIfNeeded: buffer & ((1 << UInt64(n)) &- 1))
    }

    @inline(__always)
    mutating func skip(_ n: Int) {
        buffer >>= UInt64(n)
        count &-= n
        consumed &+= n
    }

    /// Reads `n` (0...32) bits.
    @inline(__always)
    mutating func read(_ n: Int) -> UInt32 {
        if n == 0 { return 0 }
        let v = peek(n)
        skip(n)
        return v
    }
}
