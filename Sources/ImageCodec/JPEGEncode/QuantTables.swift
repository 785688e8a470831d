/// Quantisation tables as cjpeg builds them (CODEC-NOTES §8): the Annex K base tables scaled by
/// libjpeg's quality curve, clamped to 1...255 because we always write baseline files.
struct QuantTables {
    /// Luma (index 0) and chroma (index 1) tables, 64 values each in natural (row-major) order.
    let luma: [UInt16]
    let chroma: [UInt16]

    /// Quality 1...100 (clamped), libjpeg's `jpeg_quality_scaling` plus `jpeg_add_quant_table`
    /// with force_baseline on.
    init(quality: Int) {
        let q = min(max(quality, 1), 100)
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        luma = QuantTables.scaled(QuantTables.annexKLuma, scale)
        chroma = QuantTables.scaled(QuantTables.annexKChroma, scale)
    }

    private static func scaled(_ base: [UInt16], _ scale: Int) -> [UInt16] {
        base.map { b in UInt16(min(max((Int(b) * scale + 50) / 100, 1), 255)) }
    }

    /// T.81 Table K.1, natural order.
    static let annexKLuma: [UInt16] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// T.81 Table K.2, natural order.
    static let annexKChroma: [UInt16] = [
        17, 18, 24, 47, 99, 99, 99, 99,
        18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99,
        47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// zigzag[k] is the natural index of zigzag position k.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]
}

/// One table prepared for the quantiser, in zigzag order so the quantiser writes the block in
/// the order the entropy coder reads it.
///
/// The FDCT output is 8× the orthonormal DCT, so libjpeg divides by d = 8q and rounds half away
/// from zero: |c| = floor((|x| + 4q) / d). We replace the division by a multiply: with
/// m = floor(2^32 / d) + 1, floor(n·m / 2^32) = floor(n / d) whenever n·d < 2^32, and here
/// n < 2^16 (|x| ≤ 2^15 for 8-bit samples) and d ≤ 2040. `QuantTables` tests check it exhaustively.
struct QuantDivisors {
    /// One zigzag position: where to read the FDCT output and how to divide it.
    struct Entry {
        /// Natural (row-major) index of this zigzag position.
        var natural: Int32
        /// 4q: the rounding bias.
        var bias: Int32
        /// floor(2^32 / 8q) + 1.
        var multiplier: UInt64
    }

    /// 64 entries in zigzag order.
    let entries: [Entry]

    init(table: [UInt16]) {
        entries = (0..<64).map { k in
            let n = QuantTables.zigzag[k]
            let q = Int(table[n])
            return Entry(natural: Int32(n), bias: Int32(4 * q), multiplier: UInt64((1 << 32) / (8 * q) + 1))
        }
    }

    /// The quantised value of one FDCT output `x` (|x| < 2^15).
    @inline(__always)
    static func quantize(_ x: Int32, _ e: Entry) -> Int16 {
        let negative = x < 0
        let n = UInt64(UInt32(truncatingIfNeeded: (negative ? 0 &- x : x) &+ e.bias))
        let v = Int16(truncatingIfNeeded: (n &* e.multiplier) >> 32)
        return negative ? 0 &- v : v
    }
}
