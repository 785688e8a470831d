/// The bit reader under `Inflate`: a 64-bit buffer filled from the input, least significant
/// bit first (RFC 1951 §3.1.1).
///
/// Past the input's end the careful `fill` appends zero bytes and counts them in `pad`, so a
/// lookup near the end never reads past the input; consuming into that padding (`overrun`)
/// means the stream was cut short. Bits above `count` may hold copies of the next input
/// bytes (the fast refill loads whole words): every fill ORs in the same bytes there, so they
/// never disagree.
struct InflateBits {
    var next: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    var buf: UInt64 = 0
    /// Valid bits in `buf`, real or padding.
    var count = 0
    /// Zero bits appended after the input's end (the top of the valid bits).
    var pad = 0

    init(_ start: UnsafePointer<UInt8>, count: Int) {
        next = start
        end = start + count
    }

    /// Fills to at least 57 bits, a byte at a time, padding with zeros at the end.
    @inline(__always)
    mutating func fill() {
        while count <= 56 {
            if next < end {
                buf |= UInt64(next.pointee) &<< UInt64(count)
                next += 1
            } else {
                pad &+= 8
            }
            count &+= 8
        }
    }

    /// True once bits past the input's end have been consumed.
    @inline(__always)
    var overrun: Bool { count < pad }

    @inline(__always)
    mutating func drop(_ n: Int) {
        buf &>>= UInt64(n)
        count &-= n
    }

    /// The next `n` (≤ 32) bits; `.truncated` if the input ends first.
    @inline(__always)
    mutating func take(_ n: Int, produced: Int) throws(InflateError) -> Int {
        fill()
        let v = Int(truncatingIfNeeded: buf & (UInt64(1) &<< UInt64(n) &- 1))
        drop(n)
        if overrun { throw .truncated(produced: produced) }
        return v
    }

    /// Drops the bits up to the next byte boundary of the stream.
    @inline(__always)
    mutating func alignToByte() { drop(count & 7) }

    /// Byte-aligned: gives back the whole real bytes still buffered, so the input can be read
    /// as bytes from `next` (stored blocks).
    mutating func rewindToBytes() {
        alignToByte()
        next -= (count &- pad) >> 3
        buf = 0
        count = 0
        pad = 0
    }
}
