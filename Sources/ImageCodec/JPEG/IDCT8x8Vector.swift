// The 8×8 ISLOW IDCT with eight columns (pass 1) or eight rows (pass 2) per SIMD vector, for
// blocks whose values are small enough that 32-bit lanes give exactly libjpeg's 64-bit result.
//
// Why it looks like this:
// - The scalar `idct8x8` ran about 1,560 instructions per block (callgrind, 4.5 MP 4:2:0 photo,
//   36 % of the decode); djpeg's SSE2 IDCT is a fraction of that. Eight lanes per vector does
//   the same arithmetic with an eighth of the operations (SIMD8<Int32> is two SSE2 registers).
// - Exactness: libjpeg computes in 64 bits. With every dequantised input |c| ≤ 8191 and every
//   pass-1 output |w| ≤ 8191, the largest intermediate of the LL&M step (the `c` odd term,
//   |·| ≤ 8191 · 137,832, plus the even part ≤ 2.6e8 and the rounding term) stays below 2^31,
//   so 32-bit lanes never wrap and the results are identical. Blocks outside those bounds
//   (corrupt data, 16-bit tables) take the scalar path; photos essentially never do.
// - The two transposes (before pass 2, and of the pixels before the row stores) are unpack
//   stages on 16-bit lanes, written as lane patterns that LLVM turns into punpck*.
// - Measured (callgrind, 4.5 MP 4:2:0 photo, 107k blocks; scalar path 167 M instructions):
//   plain SIMD8<Int32> multiplies (pmuludq emulation on SSE2) 173 M, worse; 16-bit sums
//   widened before each multiply so LLVM uses pmaddwd 134 M; with the lane conversions of
//   SIMDLanes.swift (needed once other kernels used the same generic conversion, which then
//   stopped being inlined and cost ~60 M in calls) 141 M. Widening by bit-cast and shifts
//   into a permuted lane order was tried and was worse (178 M).
// - Transposing through a stack buffer (stores, then eight scalar loads per column) cost
//   about 1,300 instructions per block in all; the unpack transposes brought the decode
//   from 345.3 M to 308.6 M instructions.

/// Eight 32-bit lanes.
typealias IDCTLanes = SIMD8<Int32>

extension ScaledIDCT {
    /// The vector 8×8 IDCT; returns false (having written nothing) when the block's values are
    /// outside the bounds where 32-bit lanes are exact, so the caller runs the scalar path.
    @inline(__always)
    static func idct8x8Vector(_ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                              _ out: UnsafeMutablePointer<UInt8>, _ stride: Int) -> Bool {
        let craw = UnsafeRawPointer(coef), qraw = UnsafeRawPointer(quant)
        @inline(__always) func row(_ r: Int) -> IDCTLanes {
            let c = craw.loadUnaligned(fromByteOffset: r &* 16, as: SIMD8<Int16>.self)
            let q = qraw.loadUnaligned(fromByteOffset: r &* 16, as: SIMD8<Int16>.self)
            return IDCTLanes(widening: c) &* IDCTLanes(widening: q)
        }
        let d0 = row(0), d1 = row(1), d2 = row(2), d3 = row(3)
        let d4 = row(4), d5 = row(5), d6 = row(6), d7 = row(7)
        if !fitsBound(d0, d1, d2, d3, d4, d5, d6, d7) { return false }

        // Pass 1: lanes are columns; vector k is coefficient row k, the result is workspace row k.
        var p = islowLanes(SIMD8<Int16>(narrowing: d0), SIMD8<Int16>(narrowing: d1),
                           SIMD8<Int16>(narrowing: d2), SIMD8<Int16>(narrowing: d3),
                           SIMD8<Int16>(narrowing: d4), SIMD8<Int16>(narrowing: d5),
                           SIMD8<Int16>(narrowing: d6), SIMD8<Int16>(narrowing: d7))
        let r1 = IDCTLanes(repeating: 1024)
        p = ((p.0 &+ r1) &>> 11, (p.1 &+ r1) &>> 11, (p.2 &+ r1) &>> 11, (p.3 &+ r1) &>> 11,
             (p.4 &+ r1) &>> 11, (p.5 &+ r1) &>> 11, (p.6 &+ r1) &>> 11, (p.7 &+ r1) &>> 11)
        if !fitsBound(p.0, p.1, p.2, p.3, p.4, p.5, p.6, p.7) { return false }

        // Pass 2: lanes are rows; vector k is workspace column k.
        let w = transpose8x8(SIMD8<Int16>(narrowing: p.0), SIMD8<Int16>(narrowing: p.1),
                             SIMD8<Int16>(narrowing: p.2), SIMD8<Int16>(narrowing: p.3),
                             SIMD8<Int16>(narrowing: p.4), SIMD8<Int16>(narrowing: p.5),
                             SIMD8<Int16>(narrowing: p.6), SIMD8<Int16>(narrowing: p.7))
        let q = islowLanes(w.0, w.1, w.2, w.3, w.4, w.5, w.6, w.7)
        // DESCALE by 18, then libjpeg's range limit: the low 10 bits as a signed value + 128,
        // clamped to 0...255 (the values fit 16 bits here).
        @inline(__always) func pixels(_ v: IDCTLanes) -> SIMD8<Int16> {
            let s = (((v &+ IDCTLanes(repeating: 1 << 17)) &>> 18) &<< 22) &>> 22
            // Clamped by masks: `clamped(lowerBound:upperBound:)` stayed a call to the generic
            // `pointwiseMax` (eight calls per block). t = max(v, 0); lanes above 255 get all ones
            // from the sign of 255 − t, and the mask keeps their low byte, 255.
            let v = SIMD8<Int16>(narrowing: s) &+ 128
            let t = v & ~(v &>> 15)
            return (t | ((SIMD8<Int16>(repeating: 255) &- t) &>> 15)) & 255
        }
        let o = transpose8x8(pixels(q.0), pixels(q.1), pixels(q.2), pixels(q.3),
                             pixels(q.4), pixels(q.5), pixels(q.6), pixels(q.7))
        @inline(__always) func put(_ v: SIMD8<Int16>, _ r: Int) {
            UnsafeMutableRawPointer(out + r &* stride).storeBytes(of: SIMD8<UInt8>(narrowing: v), as: SIMD8<UInt8>.self)
        }
        put(o.0, 0); put(o.1, 1); put(o.2, 2); put(o.3, 3)
        put(o.4, 4); put(o.5, 5); put(o.6, 6); put(o.7, 7)
        return true
    }

    /// Whether every lane of the eight vectors lies in −8192...8191.
    @inline(__always)
    private static func fitsBound(_ a: IDCTLanes, _ b: IDCTLanes, _ c: IDCTLanes, _ d: IDCTLanes,
                                  _ e: IDCTLanes, _ f: IDCTLanes, _ g: IDCTLanes, _ h: IDCTLanes) -> Bool {
        let bias = IDCTLanes(repeating: 8192)
        let any = (a &+ bias) | (b &+ bias) | (c &+ bias) | (d &+ bias)
            | (e &+ bias) | (f &+ bias) | (g &+ bias) | (h &+ bias)
        let outside = any & IDCTLanes(repeating: ~16383)
        return (outside[0] | outside[1] | outside[2] | outside[3] | outside[4] | outside[5] | outside[6] | outside[7]) == 0
    }

    /// `islow1D` on eight lanes at once (CONST_BITS 13), before descaling. Inputs are 16-bit
    /// lanes within −8192...8191, so every sum fed to a multiply fits 16 bits and the
    /// multiplies are 16×16 → 32-bit (pmullw/pmulhw on SSE2).
    @inline(__always)
    private static func islowLanes(_ c0: SIMD8<Int16>, _ c1: SIMD8<Int16>, _ c2: SIMD8<Int16>, _ c3: SIMD8<Int16>,
                                   _ c4: SIMD8<Int16>, _ c5: SIMD8<Int16>, _ c6: SIMD8<Int16>, _ c7: SIMD8<Int16>)
        -> (IDCTLanes, IDCTLanes, IDCTLanes, IDCTLanes, IDCTLanes, IDCTLanes, IDCTLanes, IDCTLanes) {
        @inline(__always) func w(_ v: SIMD8<Int16>) -> IDCTLanes { IDCTLanes(widening: v) }
        let z1 = w(c2 &+ c6) &* 4433
        let t2 = z1 &+ w(c6) &* -15137
        let t3 = z1 &+ w(c2) &* 6270
        let t0 = w(c0 &+ c4) &<< 13
        let t1 = w(c0 &- c4) &<< 13
        let t10 = t0 &+ t3, t13 = t0 &- t3
        let t11 = t1 &+ t2, t12 = t1 &- t2

        let z5 = w(c7 &+ c3 &+ c5 &+ c1) &* 9633
        let o1 = w(c7 &+ c1) &* -7373
        let o2 = w(c5 &+ c3) &* -20995
        let o3 = w(c7 &+ c3) &* -16069 &+ z5
        let o4 = w(c5 &+ c1) &* -3196 &+ z5
        let a = w(c7) &* 2446 &+ o1 &+ o3
        let b = w(c5) &* 16819 &+ o2 &+ o4
        let c = w(c3) &* 25172 &+ o2 &+ o3
        let d = w(c1) &* 12299 &+ o1 &+ o4

        return (t10 &+ d, t11 &+ c, t12 &+ b, t13 &+ a, t13 &- a, t12 &- b, t11 &- c, t10 &- d)
    }
}
