/// Reads the entropy-coded bytes of one scan as libjpeg's `jpeg_fill_bit_buffer` does: FF 00
/// is a data FF, FF fill bytes before a marker are skipped, and at a marker (or the end of the
/// input, which reads as EOI) the reader stops and supplies zero bits from then on.
///
/// The state lives in a struct that the scan decoders keep in a local variable for a whole
/// scan, so the optimiser holds it in registers (a class property reloads per byte).
struct BitReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// Next unread byte.
    var pos: Int
    /// Bit accumulator; the low `bits` bits are valid, the next bit to read is the highest of them.
    var acc: UInt64 = 0
    var bits: Int = 0
    /// Zero bits appended after the data stopped. `bits < fakeBits` means some were consumed,
    /// libjpeg's "insufficient data" condition.
    var fakeBits: Int = 0
    /// The marker that stopped the data (already consumed), 0 while none.
    var marker: UInt8 = 0
    /// Whether the input ended inside the scan (libjpeg's fake EOI).
    var hitEndOfInput = false

    init(base: UnsafePointer<UInt8>, count: Int, pos: Int) {
        self.base = base
        self.count = count
        self.pos = pos
    }

    /// Whether the current MCU consumed bits that were not in the file.
    @inline(__always) var ranOutOfData: Bool { bits < fakeBits }

    /// Ensures at least 40 bits are buffered, so a symbol (≤ 17 bits) and its value (≤ 15
    /// bits) can be read without another check.
    ///
    /// The common case (the next 8 bytes hold no FF) is inline and appends whole bytes; the
    /// rest goes to `refilled()`, which takes and returns the state by value: an inout call
    /// would pin the reader in memory and put a store-to-load round trip on every symbol.
    @inline(__always) mutating func fill() {
        if bits >= 40 { return }
        if pos &+ 8 <= count && marker == 0 {
            let want = (64 &- bits) &>> 3 > 7 ? 7 : (64 &- bits) &>> 3
            let shift = UInt64(truncatingIfNeeded: want &* 8)
            let word = UInt64(bigEndian: UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self))
            let probe = ~word | (UInt64.max &>> shift)
            let ones: UInt64 = 0x0101_0101_0101_0101
            if (probe &- ones) & ~probe & (ones &<< 7) == 0 {
                acc = (acc &<< shift) | (word &>> (64 &- shift))
                bits &+= want &* 8
                pos &+= want
                return
            }
        }
        self = refilled()
    }

    @inline(never) func refilled() -> BitReader {
        var r = self
        r.refill()
        return r
    }

    /// Byte-at-a-time refill: FF 00 stuffing, fill bytes, markers and the end of the input.
    mutating func refill() {
        while bits <= 56 {
            if marker != 0 {
                acc = acc &<< 8
                bits &+= 8
                fakeBits &+= 8
                continue
            }
            if pos >= count {
                marker = 0xD9
                hitEndOfInput = true
                continue
            }
            let b = base[pos]
            if b != 0xFF {
                pos &+= 1
                acc = (acc &<< 8) | UInt64(b)
                bits &+= 8
                continue
            }
            var p = pos &+ 1
            while p < count && base[p] == 0xFF { p &+= 1 }
            if p >= count {
                pos = p
                marker = 0xD9
                hitEndOfInput = true
                continue
            }
            let c = base[p]
            pos = p &+ 1
            if c == 0 {
                acc = (acc &<< 8) | 0xFF
                bits &+= 8
            } else {
                marker = c
            }
        }
    }

    /// The next `n` bits (1...24) without consuming them; requires `bits >= n`.
    @inline(__always) func peek(_ n: Int) -> Int {
        Int(truncatingIfNeeded: (acc &>> UInt64(truncatingIfNeeded: bits &- n)) & ((1 &<< UInt64(truncatingIfNeeded: n)) &- 1))
    }

    @inline(__always) mutating func skip(_ n: Int) {
        bits &-= n
    }

    /// One raw bit (progressive refinement); fills as needed.
    @inline(__always) mutating func bit() -> Int {
        fill()
        bits &-= 1
        return Int(truncatingIfNeeded: (acc &>> UInt64(truncatingIfNeeded: bits)) & 1)
    }

    /// One raw bit without a fill check; requires `bits >= 1` (right after `decodeSymbol`,
    /// which leaves at least 23).
    @inline(__always) mutating func bufferedBit() -> Int {
        bits &-= 1
        return Int(truncatingIfNeeded: (acc &>> UInt64(truncatingIfNeeded: bits)) & 1)
    }

    /// The next `n` raw bits (1...40) in the low bits of the result, first bit highest; the
    /// bits above them are not cleared. Fills as needed (a fill leaves at least 40 bits).
    @inline(__always) mutating func take(_ n: Int) -> UInt64 {
        fill()
        bits &-= n
        return acc &>> UInt64(truncatingIfNeeded: bits)
    }

    /// `s` raw bits (0...16) as an unsigned value; fills as needed.
    @inline(__always) mutating func receive(_ s: Int) -> Int {
        if s == 0 { return 0 }
        fill()
        let v = peek(s)
        bits &-= s
        return v
    }

    /// `s` raw bits (1...16) sign-extended as T.81 F.2.2.1 EXTEND; requires `bits >= s`.
    @inline(__always) mutating func receiveExtend(_ s: Int) -> Int32 {
        let v = Int32(truncatingIfNeeded: peek(s))
        bits &-= s
        let half = Int32(1) &<< Int32(s &- 1)
        return v < half ? v &- (half &<< 1) &+ 1 : v
    }

    /// Forgets buffered bits at a restart marker (libjpeg discards them too).
    mutating func discardBits() {
        acc = 0
        bits = 0
        fakeBits = 0
    }
}
