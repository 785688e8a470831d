/// The output byte stream of the encoder: marker segments as plain bytes, entropy-coded data
/// as bits with JPEG byte stuffing (a 00 after every FF).
///
/// Shape: bits gather in a 64-bit accumulator and leave 32 at a time; a word with no FF byte
/// (the common case) is stored with one unaligned big-endian write. The buffer is a raw
/// allocation grown by doubling: the entropy coder calls `reserve` once per block, so `put`
/// itself never checks capacity. Not copyable, so exactly one owner frees the buffer.
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

    /// Appends the low `length` bits of `bits` (length ≤ 32), most significant first.
    /// The caller has reserved room (`maxBytesPerBlock` per block).
    @inline(__always)
    mutating func put(_ bits: UInt32, _ length: Int) {
        accumulator = accumulator << UInt64(length) | UInt64(bits)
        bitCount &+= length
        if bitCount >= 32 {
            bitCount &-= 32
            let word = UInt32(truncatingIfNeeded: accumulator >> UInt64(bitCount))
            // A byte of `word` is FF exactly when the same byte of ~word is zero.
            let inverted = ~word
            if (inverted &- 0x0101_0101) & ~inverted & 0x8080_8080 == 0 {
                UnsafeMutableRawPointer(base + count).storeBytes(of: word.bigEndian, as: UInt32.self)
                count &+= 4
            } else {
                emitStuffed(UInt8(truncatingIfNeeded: word >> 24))
                emitStuffed(UInt8(truncatingIfNeeded: word >> 16))
                emitStuffed(UInt8(truncatingIfNeeded: word >> 8))
                emitStuffed(UInt8(truncatingIfNeeded: word))
            }
        }
    }

    @inline(__always)
    private mutating func emitStuffed(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
        if byte == 0xFF {
            base[count] = 0
            count &+= 1
        }
    }

    /// Ends an entropy-coded segment: pads the last byte with 1-bits (T.81 F.1.2.3) and writes
    /// out every pending bit, so marker bytes can follow.
    mutating func flushBits() {
        reserve(16)
        let pad = (8 &- bitCount & 7) & 7
        if pad > 0 { put((1 << UInt32(pad)) &- 1, pad) }
        while bitCount >= 8 {
            bitCount &-= 8
            emitStuffed(UInt8(truncatingIfNeeded: accumulator >> UInt64(bitCount)))
        }
    }

    /// The bytes written, as an array.
    func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }
}
