/// The forward DCT and quantiser for one 8×8 block: libjpeg's `jpeg_fdct_islow` (the LL&M
/// integer DCT, CONST_BITS 13, PASS1_BITS 2, CODEC-NOTES §8) followed by cjpeg's rounding, so
/// our coefficients are the ones cjpeg writes.
///
/// Shape: one call per block reads 8 rows of samples straight from the component strip and
/// writes 64 quantised values in zigzag order. The workspace is a local `InlineArray`, so there
/// is no allocation or ARC traffic per block (STACK-NOTES: the fastest scalar form measured).
enum ForwardDCT {
    // FIX(x) = round(x · 2^13) of the LL&M constants.
    private static let f0_298631336: Int32 = 2446
    private static let f0_390180644: Int32 = 3196
    private static let f0_541196100: Int32 = 4433
    private static let f0_765366865: Int32 = 6270
    private static let f0_899976223: Int32 = 7373
    private static let f1_175875602: Int32 = 9633
    private static let f1_501321110: Int32 = 12299
    private static let f1_847759065: Int32 = 15137
    private static let f1_961570560: Int32 = 16069
    private static let f2_053119869: Int32 = 16819
    private static let f2_562915447: Int32 = 20995
    private static let f3_072711026: Int32 = 25172

    /// Transforms the block whose top-left sample is `src` (rows `stride` bytes apart), stores
    /// the quantised coefficients in zigzag order at `out[0..<64]` and returns the mask of
    /// non-zero AC coefficients (bit k for zigzag position k, bit 0 clear) for the entropy coder.
    /// `scratch` is 64 Int16 of working space owned by the caller (a raw buffer, so the
    /// zigzag gather below reads it without bounds checks).
    @inline(__always)
    static func transform(_ src: UnsafePointer<UInt8>, stride: Int, divisors: UnsafePointer<UInt32>,
                          scratch quantised: UnsafeMutablePointer<Int16>, out: UnsafeMutablePointer<Int16>) -> UInt64 {
        var ws = InlineArray<64, Int32>(repeating: 0)
        // Pass 1: rows, level-shifted by 128; results carry PASS1_BITS extra bits.
        for r in 0..<8 {
            let p = src + r &* stride
            let d0 = Int32(p[0]) &- 128, d1 = Int32(p[1]) &- 128
            let d2 = Int32(p[2]) &- 128, d3 = Int32(p[3]) &- 128
            let d4 = Int32(p[4]) &- 128, d5 = Int32(p[5]) &- 128
            let d6 = Int32(p[6]) &- 128, d7 = Int32(p[7]) &- 128
            let t0 = d0 &+ d7, t7 = d0 &- d7
            let t1 = d1 &+ d6, t6 = d1 &- d6
            let t2 = d2 &+ d5, t5 = d2 &- d5
            let t3 = d3 &+ d4, t4 = d3 &- d4
            let t10 = t0 &+ t3, t13 = t0 &- t3
            let t11 = t1 &+ t2, t12 = t1 &- t2
            let o = r &* 8
            ws[o] = (t10 &+ t11) << 2
            ws[o &+ 4] = (t10 &- t11) << 2
            let z1 = (t12 &+ t13) &* f0_541196100
            ws[o &+ 2] = (z1 &+ t13 &* f0_765366865 &+ 1024) >> 11
            ws[o &+ 6] = (z1 &- t12 &* f1_847759065 &+ 1024) >> 11
            let (y7, y5, y3, y1) = odd(t4, t5, t6, t7)
            ws[o &+ 7] = (y7 &+ 1024) >> 11
            ws[o &+ 5] = (y5 &+ 1024) >> 11
            ws[o &+ 3] = (y3 &+ 1024) >> 11
            ws[o &+ 1] = (y1 &+ 1024) >> 11
        }
        // Pass 2: columns; removes PASS1_BITS and leaves 8× the orthonormal DCT.
        for c in 0..<8 {
            let d0 = ws[c], d1 = ws[c &+ 8], d2 = ws[c &+ 16], d3 = ws[c &+ 24]
            let d4 = ws[c &+ 32], d5 = ws[c &+ 40], d6 = ws[c &+ 48], d7 = ws[c &+ 56]
            let t0 = d0 &+ d7, t7 = d0 &- d7
            let t1 = d1 &+ d6, t6 = d1 &- d6
            let t2 = d2 &+ d5, t5 = d2 &- d5
            let t3 = d3 &+ d4, t4 = d3 &- d4
            let t10 = t0 &+ t3, t13 = t0 &- t3
            let t11 = t1 &+ t2, t12 = t1 &- t2
            ws[c] = (t10 &+ t11 &+ 2) >> 2
            ws[c &+ 32] = (t10 &- t11 &+ 2) >> 2
            let z1 = (t12 &+ t13) &* f0_541196100
            ws[c &+ 16] = (z1 &+ t13 &* f0_765366865 &+ 16384) >> 15
            ws[c &+ 48] = (z1 &- t12 &* f1_847759065 &+ 16384) >> 15
            let (y7, y5, y3, y1) = odd(t4, t5, t6, t7)
            ws[c &+ 56] = (y7 &+ 16384) >> 15
            ws[c &+ 40] = (y5 &+ 16384) >> 15
            ws[c &+ 24] = (y3 &+ 16384) >> 15
            ws[c &+ 8] = (y1 &+ 16384) >> 15
        }
        // Quantise in natural order (a loop the compiler vectorises), then reorder.
        for i in 0..<64 {
            quantised[i] = QuantDivisors.quantize(ws[i], bias: divisors[i], multiplier: divisors[64 &+ i])
        }
        out[0] = quantised[0]
        var mask: UInt64 = 0
        for k in 1..<64 {
            let v = quantised[Int(divisors[128 &+ k])]
            out[k] = v
            mask |= UInt64(v != 0 ? 1 : 0) &<< UInt64(k)
        }
        return mask
    }

    /// The shared odd part (T.81 / LL&M), not yet descaled: returns (y7, y5, y3, y1).
    @inline(__always)
    private static func odd(_ t4: Int32, _ t5: Int32, _ t6: Int32, _ t7: Int32) -> (Int32, Int32, Int32, Int32) {
        let z1 = t4 &+ t7, z2 = t5 &+ t6, z3 = t4 &+ t6, z4 = t5 &+ t7
        let z5 = (z3 &+ z4) &* f1_175875602
        let a = t4 &* f0_298631336, b = t5 &* f2_053119869
        let c = t6 &* f3_072711026, d = t7 &* f1_501321110
        let m1 = z1 &* (0 &- f0_899976223), m2 = z2 &* (0 &- f2_562915447)
        let m3 = z3 &* (0 &- f1_961570560) &+ z5, m4 = z4 &* (0 &- f0_390180644) &+ z5
        return (a &+ m1 &+ m3, b &+ m2 &+ m4, c &+ m2 &+ m3, d &+ m1 &+ m4)
    }
}
