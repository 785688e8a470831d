/// The forward DCT and quantiser for one 8×8 block: libjpeg's `jpeg_fdct_islow` (the LL&M
/// integer DCT, CONST_BITS 13, PASS1_BITS 2; docs/jpeg-encoding.md) followed by cjpeg's rounding, so
/// our coefficients are the ones cjpeg writes.
///
/// Shape: eight 16-bit lanes per SIMD vector, as libjpeg-turbo's SSE2 `jfdctint` does it. The
/// samples are loaded a row per vector and transposed, so pass 1 runs the row transform on all
/// eight rows at once (lane = row); a second transpose lets pass 2 run the column transform
/// on all eight columns (lane = column), leaving the coefficients in natural order, one row
/// per vector, for the vector quantiser (`QuantDivisors`). Sums stay in 16 bits where they
/// provably fit and are widened to 32 bits before every multiply (LLVM emits pmaddwd or
/// pmullw/pmulhw), so the results equal the scalar C code exactly:
/// - pass 1 inputs are −128...127, every sum fed to a multiply is within ±1,024, and the
///   outputs (4× a row DCT) within ±4,096;
/// - pass 2 sums of up to four outputs fit ±16,384; the two eight-term sums (DC and the
///   middle even term) are formed in 32 bits; the odd part and `z1` of the even part are
///   multiplied out (`z5 · c = z3 · c + z4 · c`), so `z3 + z4` and `t12 + t13` are never
///   formed in 16 bits. Integer products are exact, so the regrouping changes nothing.
/// `ForwardDCTTests` checks the extremes (every outer product of ±1 sign vectors) and random
/// blocks against the scalar C form.
///
/// Measured (callgrind, 1920×1080 4:2:0 q82 encode, 48,720 blocks): the scalar form (an
/// `InlineArray` workspace, 32-bit arithmetic) ran about 1,560 instructions per block, plus
/// about 300 to quantise with 32×32→64 multiplies and 330 to reorder into zigzag order and
/// build the mask. Now: about 200 for pass 1, 240 for pass 2, and 350 for the loads, the two
/// transposes, quantising and the mask; the stage fell from 107 M to 38 M instructions.
/// Constants are vectors (`k`): `vector &* scalar` lost pmaddwd in places (1.7 % of the encode).
enum ForwardDCT {
    /// Transforms the block whose top-left sample is `src` (rows `stride` bytes apart), stores
    /// the quantised coefficients in natural (row-major) order at `out[0..<64]` and returns the
    /// mask of non-zero AC coefficients in zigzag order (bit k for zigzag position k, bit 0
    /// clear): the entropy coder jumps through it and reads each coefficient through the
    /// zigzag table, so the block is never reordered. `divisors` is one table of
    /// `QuantDivisors.values`; `zigzagBits` is `ZigzagMask.table`.
    @inline(__always)
    static func transform(_ src: UnsafePointer<UInt8>, stride: Int, divisors: UnsafePointer<UInt16>,
                          zigzagBits: UnsafePointer<UInt64>, out: UnsafeMutablePointer<Int16>) -> UInt64 {
        let q = coefficients(src, stride: stride)
        let raw = UnsafeMutableRawPointer(out)
        let d = UnsafeRawPointer(divisors)
        @inline(__always) func put(_ v: SIMD8<Int16>, _ u: Int) -> UInt64 {
            let o = u &* 16
            let bias = d.loadUnaligned(fromByteOffset: o, as: SIMD8<UInt16>.self)
            let multiplier = d.loadUnaligned(fromByteOffset: 128 &+ o, as: SIMD8<UInt16>.self)
            let scale = d.loadUnaligned(fromByteOffset: 256 &+ o, as: SIMD8<UInt16>.self)
            let coefficients = QuantDivisors.quantize(v, bias: bias, multiplier: multiplier, scale: scale)
            raw.storeBytes(of: coefficients, toByteOffset: o, as: SIMD8<Int16>.self)
            return zigzagBits[u &<< 8 | ZigzagMask.rowBits(coefficients)]
        }
        let mask = put(q.0, 0) | put(q.1, 1) | put(q.2, 2) | put(q.3, 3)
            | put(q.4, 4) | put(q.5, 5) | put(q.6, 6) | put(q.7, 7)
        return mask & ~1
    }

    /// The unquantised transform of the block at `src`: vector u is coefficient row u, 8× the
    /// orthonormal DCT, exactly `jpeg_fdct_islow`'s output.
    @inline(__always)
    static func coefficients(_ src: UnsafePointer<UInt8>, stride: Int)
        -> (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>) {
        @inline(__always) func row(_ r: Int) -> SIMD8<Int16> {
            let v = UnsafeRawPointer(src + r &* stride).loadUnaligned(as: SIMD8<UInt8>.self)
            return SIMD8<Int16>(widening: v) &- SIMD8<Int16>(repeating: 128)
        }
        // Lane r of column vector j is sample (r, j).
        let c = transpose8x8(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
        let p = pass1(c.0, c.1, c.2, c.3, c.4, c.5, c.6, c.7)
        // Lane k of vector r is pass-1 output (r, k).
        let w = transpose8x8(p.0, p.1, p.2, p.3, p.4, p.5, p.6, p.7)
        return pass2(w.0, w.1, w.2, w.3, w.4, w.5, w.6, w.7)
    }

    private typealias Wide = SIMD8<Int32>

    @inline(__always)
    private static func w(_ v: SIMD8<Int16>) -> Wide { Wide(widening: v) }

    /// A constant as a vector: `vector &* scalar` is sometimes lowered lane by lane, and the
    /// multiplies below then lose pmaddwd (1.7 % of the encode's instructions, callgrind).
    @inline(__always)
    private static func k(_ c: Int32) -> Wide { Wide(repeating: c) }

    /// Rounds away the fraction bits of `v` and keeps 16 bits (the values fit, see above).
    @inline(__always)
    private static func descale(_ v: Wide, _ bits: Int32) -> SIMD8<Int16> {
        SIMD8<Int16>(narrowing: (v &+ Wide(repeating: 1 &<< (bits &- 1))) &>> Wide(repeating: bits))
    }

    /// 4·v as two doublings: written as a shift of a sum, LLVM moved the shift into the
    /// transpose that follows and extracted the lanes one by one.
    @inline(__always)
    private static func times4(_ v: SIMD8<Int16>) -> SIMD8<Int16> {
        let twice = v &+ v
        return twice &+ twice
    }

    /// Pass 1 on eight rows at once: input vector j holds sample column j (level-shifted),
    /// output vector k holds coefficient k of every row, scaled by 2^PASS1_BITS.
    /// Not inlined on purpose: inlined, LLVM folded the descaling into the transpose that
    /// follows and rebuilt several vectors lane by lane (pextrw/pinsrw); the call costs less
    /// (callgrind: 1 % of the whole encode).
    @inline(never)
    private static func pass1(_ c0: SIMD8<Int16>, _ c1: SIMD8<Int16>, _ c2: SIMD8<Int16>, _ c3: SIMD8<Int16>,
                              _ c4: SIMD8<Int16>, _ c5: SIMD8<Int16>, _ c6: SIMD8<Int16>, _ c7: SIMD8<Int16>)
        -> (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>) {
        let b = butterfly(c0, c1, c2, c3, c4, c5, c6, c7)
        return (times4(b.t10 &+ b.t11), descale(b.y1, 11), descale(b.e2, 11), descale(b.y3, 11),
                times4(b.t10 &- b.t11), descale(b.y5, 11), descale(b.e6, 11), descale(b.y7, 11))
    }

    /// Pass 2 on eight columns at once: input vector r holds pass-1 row r, output vector u
    /// holds coefficient row u (natural order), 8× the orthonormal DCT.
    @inline(__always)
    private static func pass2(_ d0: SIMD8<Int16>, _ d1: SIMD8<Int16>, _ d2: SIMD8<Int16>, _ d3: SIMD8<Int16>,
                              _ d4: SIMD8<Int16>, _ d5: SIMD8<Int16>, _ d6: SIMD8<Int16>, _ d7: SIMD8<Int16>)
        -> (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>) {
        let b = butterfly(d0, d1, d2, d3, d4, d5, d6, d7)
        return (descale(w(b.t10) &+ w(b.t11), 2), descale(b.y1, 15), descale(b.e2, 15), descale(b.y3, 15),
                descale(w(b.t10) &- w(b.t11), 2), descale(b.y5, 15), descale(b.e6, 15), descale(b.y7, 15))
    }

    /// The 1-D LL&M transform both passes share, before descaling: the even sums t10 and t11
    /// (16-bit; outputs 0 and 4 are their sum and difference) and outputs 2, 6, 1, 3, 5, 7.
    @inline(__always)
    private static func butterfly(_ d0: SIMD8<Int16>, _ d1: SIMD8<Int16>, _ d2: SIMD8<Int16>, _ d3: SIMD8<Int16>,
                                  _ d4: SIMD8<Int16>, _ d5: SIMD8<Int16>, _ d6: SIMD8<Int16>, _ d7: SIMD8<Int16>)
        -> (t10: SIMD8<Int16>, t11: SIMD8<Int16>, e2: Wide, e6: Wide, y1: Wide, y3: Wide, y5: Wide, y7: Wide) {
        let t0 = d0 &+ d7, t7 = d0 &- d7
        let t1 = d1 &+ d6, t6 = d1 &- d6
        let t2 = d2 &+ d5, t5 = d2 &- d5
        let t3 = d3 &+ d4, t4 = d3 &- d4
        let t10 = t0 &+ t3, t13 = t0 &- t3
        let t11 = t1 &+ t2, t12 = t1 &- t2
        let (e2, e6) = evenRotation(t12, t13)
        let (y7, y5, y3, y1) = odd(t4, t5, t6, t7)
        return (t10, t11, e2, e6, y1, y3, y5, y7)
    }

    /// Outputs 2 and 6 before descaling: z1 = (t12 + t13) · 0.541196100, out2 = z1 +
    /// t13 · 0.765366865, out6 = z1 − t12 · 1.847759065, with z1 multiplied out.
    @inline(__always)
    private static func evenRotation(_ t12: SIMD8<Int16>, _ t13: SIMD8<Int16>) -> (Wide, Wide) {
        (w(t12) &* k(4433) &+ w(t13) &* k(10703), w(t12) &* k(-10704) &+ w(t13) &* k(4433))
    }

    /// The odd part (T.81 / LL&M) before descaling: returns (y7, y5, y3, y1). libjpeg adds
    /// z5 = (z3 + z4) · 1.175875602 to two terms; here z5's two products are folded into the
    /// z3 and z4 constants (−1.961570560 + 1.175875602 and −0.390180644 + 1.175875602).
    @inline(__always)
    private static func odd(_ t4: SIMD8<Int16>, _ t5: SIMD8<Int16>, _ t6: SIMD8<Int16>, _ t7: SIMD8<Int16>)
        -> (Wide, Wide, Wide, Wide) {
        let z1 = w(t4 &+ t7), z2 = w(t5 &+ t6), z3 = w(t4 &+ t6), z4 = w(t5 &+ t7)
        let m1 = z1 &* k(-7373), m2 = z2 &* k(-20995)
        let m3 = z3 &* k(-6436) &+ z4 &* k(9633)
        let m4 = z3 &* k(9633) &+ z4 &* k(6437)
        return (w(t4) &* k(2446) &+ m1 &+ m3, w(t5) &* k(16819) &+ m2 &+ m4,
                w(t6) &* k(25172) &+ m2 &+ m3, w(t7) &* k(12299) &+ m1 &+ m4)
    }
}

/// Non-zero masks in zigzag order from natural-order coefficient rows, by table: the eight
/// non-zero flags of row u form a byte b, and `table[u << 8 | b]` holds their zigzag bits.
/// Eight lookups replace a 63-step gather (16 KiB of table, read a few entries per row).
enum ZigzagMask {
    /// 8 × 256 masks, row u at `[u << 8 ..< (u + 1) << 8]`.
    static let table: [UInt64] = {
        var position = [Int](repeating: 0, count: 64)
        for (k, natural) in QuantTables.zigzag.enumerated() { position[natural] = k }
        var out = [UInt64](repeating: 0, count: 8 * 256)
        for u in 0..<8 {
            for b in 0..<256 {
                var m: UInt64 = 0
                for j in 0..<8 where b & (1 << j) != 0 { m |= 1 << UInt64(position[u * 8 + j]) }
                out[u << 8 | b] = m
            }
        }
        return out
    }()

    /// The byte whose bit j says lane j of `row` is non-zero: 0/1 bytes gathered by one
    /// multiply (each lane's bit lands in the top byte at its own position, without carries).
    @inline(__always)
    static func rowBits(_ row: SIMD8<Int16>) -> Int {
        let flags = SIMD8<Int16>(repeating: 0).replacing(with: SIMD8<Int16>(repeating: 1), where: row .!= SIMD8<Int16>(repeating: 0))
        let bytes = unsafeBitCast(SIMD8<UInt8>(narrowing: flags), to: UInt64.self)
        return Int(truncatingIfNeeded: (bytes &* 0x0102_0408_1020_4080) &>> 56)
    }
}
