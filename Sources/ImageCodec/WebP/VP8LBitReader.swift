/// The least-significant-bit-first bit reader of VP8L (lossless specification section 3).
/// Past the end it returns zeros; `pastEnd` tells the decoder, which reports `.truncated`.
///
/// The fields are internal so that the pixel loop (`VP8LPixelDecoder`) can keep them in local
/// variables and write them back; everything else reads through the methods.
struct VP8LBitReader {
    let base: UnsafePointer<UInt8>
    var position: Int
    let end: Int
    var buffer: UInt64 = 0
    /// Bits in `buffer`; once the data is exhausted the zeros above count as bits too.
    var count = 0
    /// Zero bits counted into `count` past the end of the data: more bits were read than the
    /// data holds once `count` drops below this (with every byte loaded).
    var phantom = 0

    init(_ file: UnsafeBufferPointer<UInt8>, _ bytes: Range<Int>) {
        base = file.baseAddress ?? UnsafePointer(bitPattern: 1)!
        position = bytes.lowerBound
        end = bytes.upperBound
    }

    /// Whether more bits were read than the data holds.
    var pastEnd: Bool { position == end && count < phantom }

    @inline(__always)
    private mutating func fill() {
        if end &- position >= 8 {
            // Eight bytes at once, little-endian. The bytes that do not fit above `count` are
            // read again by the next fill; the bits already above `count` are those same bytes.
            buffer |= UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self).littleEndian &<< UInt64(truncatingIfNeeded: count)
            let bytes = (63 &- count) >> 3
            position &+= bytes
            count &+= bytes &* 8
            return
        }
        (buffer, count, position, phantom) = Self.fillTail(buffer, count, position, phantom, base, end)
    }

    /// The fill within 8 bytes of the end: byte by byte, then zeros (counted in `phantom`).
    /// A function of values rather than a mutating method so that callers holding the reader
    /// in registers keep it there.
    @inline(never)
    static func fillTail(_ buffer: UInt64, _ count: Int, _ position: Int, _ phantom: Int,
                         _ base: UnsafePointer<UInt8>, _ end: Int) -> (UInt64, Int, Int, Int) {
        var buffer = buffer, count = count, position = position, phantom = phantom
        while count <= 56 && position < end {
            buffer |= UInt64(base[position]) &<< UInt64(truncatingIfNeeded: count)
            position &+= 1
            count &+= 8
        }
        if position >= end {
            phantom &+= 64 &- count
            count = 64
        }
        return (buffer, count, position, phantom)
    }

    /// Makes sure 32 bits are in the window (two symbols of at most 15 bits, or a symbol and
    /// its extra bits).
    @inline(__always)
    mutating func refill() {
        if count < 32 { fill() }
    }

    /// One symbol of the prefix code whose table (`VP8LHuffmanCode` layout) is `t`; needs 15
    /// bits in the window (`refill`).
    @inline(__always)
    mutating func decode(_ t: UnsafePointer<UInt32>) -> Int {
        let bits = Int(truncatingIfNeeded: buffer)
        let entry = t[bits & 0xFF]
        if entry & 0x100 == 0 {
            buffer &>>= UInt64(entry & 0xFF)
            count &-= Int(entry & 0xFF)
            return Int(entry &>> 16)
        }
        let sub = t[Int(entry &>> 16) &+ ((bits &>> 8) & ((1 &<< Int(entry & 0xFF)) &- 1))]
        let length = 8 &+ Int(sub & 0xFF)
        buffer &>>= UInt64(truncatingIfNeeded: length)
        count &-= length
        return Int(sub &>> 16)
    }

    /// `n` (0...32) raw bits.
    @inline(__always)
    mutating func bits(_ n: Int) -> Int {
        if count < n { fill() }
        let v = Int(truncatingIfNeeded: buffer & ((1 &<< UInt64(truncatingIfNeeded: n)) &- 1))
        buffer &>>= UInt64(truncatingIfNeeded: n)
        count &-= n
        return v
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
