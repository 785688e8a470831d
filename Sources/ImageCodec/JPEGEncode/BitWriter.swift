/// The output byte stream of the encoder: marker segments as plain bytes, entropy-coded data
/// as bits with JPEG byte stuffing (a 00 after every FF).
///
/// Shape: bits gather in a 64-bit accumulator and leave 32 at a time; a word with no FF byte
/// (the common case) is stored with one unaligned big-endian write. The buffer is a raw
/// allocation grown by doubling: the entropy coder reserves room for a chunk of blocks, then
/// runs on a `BitSink` (the same state in locals) that never checks capacity. Not copyable,
/// so exactly one owner frees the buffer.
struct BitWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written so far.
    private(set) var count = 0
    /// Pending bits, right-aligned: only the low `bitCount` bits matter.
    private var accumulator: UInt64 = 0
    private var bitCount = 0

    /// The most bytes one block can produce: 27 bits for DC, 26 for each of 63 AC values,
    /// plus stuffing of every byte and a pending word.
    static let maxBytesPerBlock = 512

    init(capacity: Int) {
        self.capacity = max(capacity, 1024)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `n` more bytes.
    mutating func reserve(_ n: Int) {
        if capacity &- count >= n { return }
        var newCapacity = capacity
        while newCapacity - count < n { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    /// Appends bytes verbatim (marker segments); only valid between entropy-coded segments.
    mutating func append(_ bytes: [UInt8]) {
        reserve(bytes.count)
        for b in bytes {
            base[count] = b
            count &+= 1
        }
    }

    /// The bit state as a plain value for a hot loop: registers instead of memory. Call
    /// `reserve` first for everything the loop may write, and `absorb` the sink afterwards.
    func sink() -> BitSink {
        BitSink(cursor: base + count, accumulator: accumulator, bitCount: bitCount)
    }

    /// Takes back the state of a sink made by `sink()` on this writer.
    mutating func absorb(_ sink: BitSink) {
        count = sink.cursor - base
        accumulator = sink.accumulator
        bitCount = sink.bitCount
    }

    /// Appends the low `length` bits of `bits` (length ≤ 32); the caller has reserved room.
    mutating func put(_ bits: UInt32, _ length: Int) {
        var s = sink()
        s.put(bits, length)
        absorb(s)
    }

    /// Ends an entropy-coded segment: pads the last byte with 1-bits (T.81 F.1.2.3) and writes
    /// out every pending bit, so marker bytes can follow.
    mutating func flushBits() {
        reserve(16)
        let pad = (8 &- bitCount & 7) & 7
        if pad > 0 { put((1 << UInt32(pad)) &- 1, pad) }
        var s = sink()
        while s.bitCount >= 8 {
            s.bitCount &-= 8
            s.emitStuffed(UInt8(truncatingIfNeeded: s.accumulator &>> UInt64(s.bitCount)))
        }
        absorb(s)
    }

    /// The bytes written, as an array.
    func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }
}

/// The entropy coder's bit state in a form the optimiser keeps in registers: a write cursor,
/// pending bits right-aligned in a 64-bit accumulator (only the low `bitCount` matter).
/// Made by `BitWriter.sink()`, handed back with `BitWriter.absorb(_:)`.
struct BitSink {
    var cursor: UnsafeMutablePointer<UInt8>
    var accumulator: UInt64
    var bitCount: Int

    /// Appends the low `length` bits of `bits` (length ≤ 32), most significant first; whole
    /// 32-bit words leave as soon as they are complete.
    @inline(__always)
    mutating func put(_ bits: UInt32, _ length: Int) {
        accumulator = accumulator &<< UInt64(length) | UInt64(bits)
        bitCount &+= length
        if bitCount >= 32 {
            bitCount &-= 32
            let word = UInt32(truncatingIfNeeded: accumulator &>> UInt64(bitCount))
            // A byte of `word` is FF exactly when the same byte of ~word is zero.
            let inverted = ~word
            if (inverted &- 0x0101_0101) & ~inverted & 0x8080_8080 == 0 {
                UnsafeMutableRawPointer(cursor).storeBytes(of: word.bigEndian, as: UInt32.self)
                cursor += 4
            } else {
                emitStuffed(UInt8(truncatingIfNeeded: word &>> 24))
                emitStuffed(UInt8(truncatingIfNeeded: word &>> 16))
                emitStuffed(UInt8(truncatingIfNeeded: word &>> 8))
                emitStuffed(UInt8(truncatingIfNeeded: word))
            }
        }
    }

    @inline(__always)
    mutating func emitStuffed(_ byte: UInt8) {
        cursor[0] = byte
        cursor += 1
        if byte == 0xFF {
            cursor[0] = 0
            cursor += 1
        }
    }
}
