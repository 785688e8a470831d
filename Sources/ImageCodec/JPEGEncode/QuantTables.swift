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

/// One table prepared for the quantiser: 192 UInt32 values per table, laid out for the
/// block loop in `ForwardDCT` (structure of arrays, so the natural-order loop vectorises):
/// `[0..<64]` the rounding bias 4q, `[64..<128]` the multiplier, `[128..<192]` the natural
/// index of each zigzag position.
///
/// The FDCT output is 8× the orthonormal DCT, so libjpeg divides by d = 8q and rounds half away
/// from zero: |c| = floor((|x| + 4q) / d). We replace the division by a multiply: with
/// m = floor(2^32 / d) + 1, floor(n·m / 2^32) = floor(n / d) whenever n·d < 2^32, and here
/// n < 2^14 (|x| ≤ 8192 for 8-bit samples) and d ≤ 2040; m < 2^30 fits 32 bits, so the product
/// is one 32×32→64 multiply. `JPEGEncoderTests` checks it exhaustively.
enum QuantDivisors {
    static let valuesPerTable = 192

    /// The 192 values for `table` (natural order quantisers).
    static func values(table: [UInt16]) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: valuesPerTable)
        for i in 0..<64 {
            let q = UInt32(table[i])
            out[i] = 4 * q
            out[64 + i] = UInt32((UInt64(1) << 32) / UInt64(8 * q) + 1)
            out[128 + i] = UInt32(QuantTables.zigzag[i])
        }
        return out
    }

    /// The quantised value of one FDCT output `x` (|x| < 2^14) with bias 4q and multiplier m.
    @inline(__always)
    static func quantize(_ x: Int32, bias: UInt32, multiplier: UInt32) -> Int16 {
        let sign = x >> 31
        let magnitude = UInt32(bitPattern: (x ^ sign) &- sign)
        let q = Int32(truncatingIfNeeded: (UInt64(magnitude &+ bias) &* UInt64(multiplier)) >> 32)
        return Int16(truncatingIfNeeded: (q ^ sign) &- sign)
    }
}
