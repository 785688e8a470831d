/// The VP8 boolean entropy encoder (RFC 6386 §7.3): each bit is coded with an 8-bit
/// probability that it is 0, narrowing `range` and adding to `low`; whole bytes leave from
/// the top of `low`, with a carry propagated back into bytes already written.
///
/// Shape: `low` keeps up to 32 pending bits in a 64-bit word, so renormalisation shifts by
/// the whole count at once (the leading-zero count of `range`) instead of bit by bit; bytes
/// leave eight at a time. Bytes go into a growable array: a frame's partitions are small next
/// to the mode decision's work, so the array append is not worth a raw buffer here.
struct BoolEncoder {
    private(set) var bytes: [UInt8] = []
    /// The coding interval's width, 128...255 between calls.
    private var range: UInt32 = 255
    /// The interval's low end; bits above `bitCount` + 8 are a pending carry.
    private var low: UInt64 = 0
    /// Bits in `low` not yet written out.
    private var bitCount = 0

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    /// Codes `bit` whose probability of being 0 is `probability`/256.
    @inline(__always)
    mutating func put(_ bit: Bool, _ probability: Int) {
        // Branch-free on the bit, which is as unpredictable as the data: all ones or zero.
        let split = 1 &+ (((range &- 1) &* UInt32(truncatingIfNeeded: probability)) &>> 8)
        let ones = 0 &- UInt32(bit ? 1 : 0)
        low &+= UInt64(split & ones)
        range = ((range &- split) & ones) | (split & ~ones)
        let shift = range.leadingZeroBitCount &- 24
        range &<<= UInt32(truncatingIfNeeded: shift)
        low &<<= UInt64(truncatingIfNeeded: shift)
        bitCount &+= shift
        if bitCount >= 8 { flushBytes() }
    }

    /// Writes whole bytes from the top of `low`, leaving fewer than 8 pending bits.
    private mutating func flushBytes() {
        while bitCount >= 8 {
            bitCount &-= 8
            // `low` holds bitCount + 8 significant bits below the carry: the carry is bit
            // bitCount + 16 (1 << (bitCount + 8) is the first bit above the byte).
            let value = low &>> UInt64(bitCount &+ 8)
            if value > 0xFF { propagateCarry() }
            bytes.append(UInt8(truncatingIfNeeded: value))
            low &= (1 &<< UInt64(bitCount &+ 8)) &- 1
        }
    }

    /// Adds one to the bytes already written (a carry out of the next byte).
    private mutating func propagateCarry() {
        var i = bytes.count &- 1
        while i >= 0 && bytes[i] == 0xFF {
            bytes[i] = 0
            i &-= 1
        }
        if i >= 0 { bytes[i] &+= 1 }
    }

    /// Codes a bit with probability one half.
    @inline(__always)
    mutating func putFlag(_ bit: Bool) { put(bit, 128) }

    /// Codes the low `count` bits of `value`, most significant first, each at probability 1/2
    /// (the header's L(n) fields).
    mutating func putLiteral(_ value: Int, _ count: Int) {
        var i = count &- 1
        while i >= 0 {
            put((value >> i) & 1 == 1, 128)
            i &-= 1
        }
    }

    /// A header's optional signed value: a presence flag, then magnitude and sign.
    mutating func putOptionalSigned(_ value: Int, _ count: Int) {
        putFlag(value != 0)
        if value != 0 {
            putLiteral(abs(value), count)
            putFlag(value < 0)
        }
    }

    /// Ends the partition: pads with zero bits until every pending bit is out. The decoder
    /// reads up to two bytes ahead, which the padding provides.
    mutating func finish() -> [UInt8] {
        for _ in 0..<32 { put(false, 128) }
        return bytes
    }
}
