/// Baseline sequential entropy coding of one quantised block (T.81 F.1.2; docs/jpeg-encoding.md
/// "Entropy coding and markers"), and the matching symbol count for optimised tables.
///
/// Shape: a 64-bit mask of the non-zero AC positions in zigzag order (made by the quantiser)
/// lets the coder jump from one non-zero coefficient to the next with a
/// trailing-zero count instead of testing all 63 positions, reading only the non-zero
/// coefficients through the zigzag table; the Huffman code and the value
/// bits go out in one `put`.
enum HuffmanEncoder {
    /// Bit length of `magnitude` (0 for 0): the JPEG size category.
    @inline(__always)
    private static func category(_ magnitude: UInt32) -> Int {
        32 &- magnitude.leadingZeroBitCount
    }

    /// Writes one block (64 coefficients in natural order, `nonZero` its AC mask in zigzag
    /// order, `zigzag[k]` the natural index of zigzag position k). `previousDC` is the
    /// component's DC predictor, updated here. `dc` and `ac` are 256-entry
    /// `HuffmanCodes.packed` tables. The sink has room for `BitWriter.maxBytesPerBlock` bytes.
    @inline(__always)
    static func encode(_ block: UnsafePointer<Int16>, nonZero: UInt64, zigzag: UnsafePointer<Int>, previousDC: inout Int32,
                       dc: UnsafePointer<UInt32>, ac: UnsafePointer<UInt32>, acSmall: UnsafePointer<UInt32>,
                       writer: inout BitSink) {
        let value = Int32(block[0])
        emit(value &- previousDC, table: dc, run: 0, writer: &writer)
        previousDC = value

        var mask = nonZero
        var position = 1
        while mask != 0 {
            let k = mask.trailingZeroBitCount
            var run = k &- position
            while run > 15 {
                let zrl = ac[0xF0]
                writer.put(zrl &>> 8, Int(zrl & 0xFF))
                run &-= 16
            }
            let v = Int32(block[zigzag[k]])
            if UInt32(bitPattern: v &+ 15) <= 30 {
                let e = acSmall[run &<< 5 | Int(v &+ 16)]
                writer.put(e &>> 5, Int(e & 31))
            } else {
                emit(v, table: ac, run: run, writer: &writer)
            }
            position = k &+ 1
            mask &= mask &- 1
        }
        if position < 64 {
            let eob = ac[0]
            writer.put(eob &>> 8, Int(eob & 0xFF))
        }
    }

    /// One symbol (run << 4 | size) and the `size` value bits of `v`: v itself when
    /// positive, v − 1 (two's complement, low bits) when negative.
    @inline(__always)
    private static func emit(_ v: Int32, table: UnsafePointer<UInt32>, run: Int, writer: inout BitSink) {
        let magnitude = UInt32(bitPattern: v < 0 ? 0 &- v : v)
        let size = category(magnitude)
        let bits = UInt32(bitPattern: v < 0 ? v &- 1 : v) & ((1 &<< UInt32(size)) &- 1)
        let entry = table[run &<< 4 | size]
        let length = Int(entry & 0xFF)
        writer.put((entry &>> 8) &<< UInt32(size) | bits, length &+ size)
    }

    /// The ready-made code words for AC values −15...15 at every run, indexed
    /// run << 5 | (v + 16), as (code << size | value bits) << 5 | total length: most AC values
    /// are small, and this skips the size computation for them. `ac` is a `HuffmanCodes.packed`
    /// table; symbols missing from it give unusable entries, never looked up.
    static func smallACTable(_ ac: UnsafePointer<UInt32>) -> [UInt32] {
        var table = [UInt32](repeating: 0, count: 512)
        for run in 0..<16 {
            for v in -15...15 where v != 0 {
                let size = category(UInt32(abs(v)))
                let bits = UInt32(bitPattern: Int32(v < 0 ? v - 1 : v)) & ((1 << UInt32(size)) - 1)
                let entry = ac[run << 4 | size]
                let length = Int(entry & 0xFF)
                guard length > 0 else { continue }
                let word = (entry >> 8) << UInt32(size) | bits
                table[run << 5 | (v + 16)] = word << 5 | UInt32(length + size)
            }
        }
        return table
    }

    /// Counts the symbols `encode` would write for this block, into 257-entry tables.
    @inline(__always)
    static func count(_ block: UnsafePointer<Int16>, nonZero: UInt64, zigzag: UnsafePointer<Int>, previousDC: inout Int32,
                      dc: UnsafeMutablePointer<Int>, ac: UnsafeMutablePointer<Int>) {
        let value = Int32(block[0])
        let diff = value &- previousDC
        dc[category(UInt32(bitPattern: diff < 0 ? 0 &- diff : diff))] &+= 1
        previousDC = value

        var mask = nonZero
        var position = 1
        while mask != 0 {
            let k = mask.trailingZeroBitCount
            var run = k &- position
            while run > 15 {
                ac[0xF0] &+= 1
                run &-= 16
            }
            let v = Int32(block[zigzag[k]])
            ac[run &<< 4 | category(UInt32(bitPattern: v < 0 ? 0 &- v : v))] &+= 1
            position = k &+ 1
            mask &= mask &- 1
        }
        if position < 64 { ac[0] &+= 1 }
    }
}
