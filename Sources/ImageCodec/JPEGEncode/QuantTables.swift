/// Quantisation tables as cjpeg builds them (docs/jpeg-encoding.md): the Annex K base tables scaled
/// by libjpeg's quality curve, clamped to 1...255 because we always write baseline files.
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

/// One table prepared for the vector quantiser in `ForwardDCT`: 192 UInt16 values per table,
/// structure of arrays in natural order so each coefficient row is one vector load:
/// `[0..<64]` the rounding bias 4q, `[64..<128]` the multiplier, `[128..<192]` the scale.
///
/// The FDCT output is 8× the orthonormal DCT, so libjpeg divides by d = 8q and rounds half away
/// from zero: |c| = floor((|x| + 4q) / d). Division becomes two high-half 16-bit multiplies
/// (pmulhuw), as in libjpeg-turbo's SIMD quantiser: with s = ceil(log2 d), m = ceil(2^(15+s) / d)
/// and scale = 2^(17−s), floor(floor(n·m / 2^16) · scale / 2^16) = floor(n·m / 2^(15+s)), which
/// equals floor(n / d) whenever n·(m·d − 2^(15+s)) < 2^(15+s): true for every n < 2^15, since
/// m·d − 2^(15+s) < d ≤ 2^s. Here n = |x| + 4q < 2^14 (|x| ≤ 8192 for 8-bit samples), m lies in
/// 2^15...2^16 − 1 and scale in 2^6...2^14, so all of it is 16-bit. `ForwardDCTTests` checks
/// it exhaustively.
enum QuantDivisors {
    static let valuesPerTable = 192

    /// The 192 values for `table` (natural order quantisers, 1...255).
    static func values(table: [UInt16]) -> [UInt16] {
        var out = [UInt16](repeating: 0, count: valuesPerTable)
        for i in 0..<64 {
            let d = 8 * Int(table[i])
            let s = Int.bitWidth - (d - 1).leadingZeroBitCount
            out[i] = UInt16(4 * Int(table[i]))
            out[64 + i] = UInt16(((1 << (15 + s)) + d - 1) / d)
            out[128 + i] = UInt16(1 << (17 - s))
        }
        return out
    }

    /// The quantised values of eight FDCT outputs `x` (|x| < 2^14) with bias 4q, multiplier m
    /// and scale, lane by lane.
    @inline(__always)
    static func quantize(_ x: SIMD8<Int16>, bias: SIMD8<UInt16>, multiplier: SIMD8<UInt16>,
                         scale: SIMD8<UInt16>) -> SIMD8<Int16> {
        let sign = x &>> SIMD8<Int16>(repeating: 15)
        let magnitude = unsafeBitCast((x ^ sign) &- sign, to: SIMD8<UInt16>.self)
        let q = highHalf(highHalf(magnitude &+ bias, multiplier), scale)
        return (unsafeBitCast(q, to: SIMD8<Int16>.self) ^ sign) &- sign
    }

    /// The high 16 bits of each 16×16-bit unsigned product (pmulhuw).
    @inline(__always)
    private static func highHalf(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
        SIMD8<UInt16>(narrowing: (SIMD8<UInt32>(widening: a) &* SIMD8<UInt32>(widening: b)) &>> SIMD8<UInt32>(repeating: 16))
    }
}
