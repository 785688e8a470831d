/// The 4×4 transforms of VP8. The inverse ones must be exactly the decoder's (RFC 6386 §14.3,
/// §14.4; libwebp's TransformOne / TransformWHT), because the encoder predicts from its own
/// reconstruction and any difference would drift. The forward ones only need to approximate
/// their inverses well; they are the integer forms libwebp's encoder uses, so quantisation
/// sees the same coefficient scale as cwebp's.
///
/// Blocks are 16 Int32 in natural (row-major) order; pixels are read and written through a
/// pointer and a stride.
enum Transforms {
    /// Forward DCT of `src − pred` (4×4, each with its stride) into `out`: both passes four
    /// lanes at a time (rows, then columns after a transpose).
    @inline(__always)
    static func forward(_ src: UnsafePointer<UInt8>, _ srcStride: Int, _ pred: UnsafePointer<UInt8>, _ predStride: Int,
                        _ out: UnsafeMutablePointer<Int32>) {
        @inline(__always) func difference(_ i: Int) -> SIMD4<Int32> {
            row(src + i &* srcStride) &- row(pred + i &* predStride)
        }
        let r0 = difference(0), r1 = difference(1), r2 = difference(2), r3 = difference(3)
        // Horizontal pass on columns of the transpose: lane i is row i.
        let c0 = SIMD4(r0[0], r1[0], r2[0], r3[0]), c1 = SIMD4(r0[1], r1[1], r2[1], r3[1])
        let c2 = SIMD4(r0[2], r1[2], r2[2], r3[2]), c3 = SIMD4(r0[3], r1[3], r2[3], r3[3])
        let a0 = c0 &+ c3, a1 = c1 &+ c2, a2 = c1 &- c2, a3 = c0 &- c3
        let t0 = (a0 &+ a1) &<< 3, t1 = (a2 &* 2217 &+ a3 &* 5352 &+ 1812) &>> 9
        let t2 = (a0 &- a1) &<< 3, t3 = (a3 &* 2217 &- a2 &* 5352 &+ 937) &>> 9
        // Vertical pass on the rows of that result: lane i is column i.
        let u0 = SIMD4(t0[0], t1[0], t2[0], t3[0]), u1 = SIMD4(t0[1], t1[1], t2[1], t3[1])
        let u2 = SIMD4(t0[2], t1[2], t2[2], t3[2]), u3 = SIMD4(t0[3], t1[3], t2[3], t3[3])
        let b0 = u0 &+ u3, b1 = u1 &+ u2, b2 = u1 &- u2, b3 = u0 &- u3
        let o = UnsafeMutableRawPointer(out)
        o.storeBytes(of: (b0 &+ b1 &+ 7) &>> 4, as: SIMD4<Int32>.self)
        // −1 where b3 ≠ 0 (its sign or its negation's is set); subtracted, it adds libwebp's 1.
        let nonZero = (b3 | (0 &- b3)) &>> 31
        o.storeBytes(of: ((b2 &* 2217 &+ b3 &* 5352 &+ 12000) &>> 16) &- nonZero, toByteOffset: 16, as: SIMD4<Int32>.self)
        o.storeBytes(of: (b0 &- b1 &+ 7) &>> 4, toByteOffset: 32, as: SIMD4<Int32>.self)
        o.storeBytes(of: (b3 &* 2217 &- b2 &* 5352 &+ 51000) &>> 16, toByteOffset: 48, as: SIMD4<Int32>.self)
    }

    /// Inverse DCT of `coeffs` added to `pred`, clamped, written to `dst` (the decoder's
    /// TransformOne: vertical pass, then horizontal with rounding by 4 and >> 3), four lanes
    /// at a time with a transpose between the passes. Products wrap in 32 bits as libwebp's do.
    @inline(__always)
    static func inverseAdd(_ coeffs: UnsafePointer<Int32>, _ pred: UnsafePointer<UInt8>, _ predStride: Int,
                           _ dst: UnsafeMutablePointer<UInt8>, _ dstStride: Int) {
        @inline(__always) func mul1(_ a: SIMD4<Int32>) -> SIMD4<Int32> { ((a &* 20091) &>> 16) &+ a }
        @inline(__always) func mul2(_ a: SIMD4<Int32>) -> SIMD4<Int32> { (a &* 35468) &>> 16 }
        let raw = UnsafeRawPointer(coeffs)
        let r0 = raw.loadUnaligned(as: SIMD4<Int32>.self), r1 = raw.loadUnaligned(fromByteOffset: 16, as: SIMD4<Int32>.self)
        let r2 = raw.loadUnaligned(fromByteOffset: 32, as: SIMD4<Int32>.self), r3 = raw.loadUnaligned(fromByteOffset: 48, as: SIMD4<Int32>.self)
        // Vertical pass, lane i = column i.
        let a = r0 &+ r2, b = r0 &- r2
        let c = mul2(r1) &- mul1(r3), d = mul1(r1) &+ mul2(r3)
        let v0 = a &+ d, v1 = b &+ c, v2 = b &- c, v3 = a &- d
        // Horizontal pass, lane i = row i: w_m[i] = v_i[m].
        let w0 = SIMD4(v0[0], v1[0], v2[0], v3[0]) &+ 4, w1 = SIMD4(v0[1], v1[1], v2[1], v3[1])
        let w2 = SIMD4(v0[2], v1[2], v2[2], v3[2]), w3 = SIMD4(v0[3], v1[3], v2[3], v3[3])
        let e = w0 &+ w2, f = w0 &- w2
        let g = mul2(w1) &- mul1(w3), h = mul1(w1) &+ mul2(w3)
        let x0 = (e &+ h) &>> 3, x1 = (f &+ g) &>> 3, x2 = (f &- g) &>> 3, x3 = (e &- h) &>> 3
        @inline(__always) func put(_ i: Int, _ residual: SIMD4<Int32>) {
            var v = row(pred + i &* predStride) &+ residual
            v &= ~(v &>> 31)  // max(v, 0)
            let over = (255 &- v) &>> 31
            v = (v & ~over) | (255 & over)  // min(v, 255)
            UnsafeMutableRawPointer(dst + i &* dstStride).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), as: SIMD4<UInt8>.self)
        }
        put(0, SIMD4(x0[0], x1[0], x2[0], x3[0]))
        put(1, SIMD4(x0[1], x1[1], x2[1], x3[1]))
        put(2, SIMD4(x0[2], x1[2], x2[2], x3[2]))
        put(3, SIMD4(x0[3], x1[3], x2[3], x3[3]))
    }

    /// Forward Walsh-Hadamard transform of the 16 luma DC values (`dcs[k]` is block k's DC,
    /// blocks in raster order) into `out`.
    @inline(__always)
    static func forwardWHT(_ dcs: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<Int32>) {
        var tmp: InlineArray<16, Int32> = .init(repeating: 0)
        for i in 0..<4 {
            let r = dcs + i &* 4
            let a0 = r[0] &+ r[2], a1 = r[1] &+ r[3], a2 = r[1] &- r[3], a3 = r[0] &- r[2]
            tmp[i &* 4] = a0 &+ a1
            tmp[i &* 4 &+ 1] = a3 &+ a2
            tmp[i &* 4 &+ 2] = a3 &- a2
            tmp[i &* 4 &+ 3] = a0 &- a1
        }
        for i in 0..<4 {
            let a0 = tmp[i] &+ tmp[8 &+ i], a1 = tmp[4 &+ i] &+ tmp[12 &+ i]
            let a2 = tmp[4 &+ i] &- tmp[12 &+ i], a3 = tmp[i] &- tmp[8 &+ i]
            out[i] = (a0 &+ a1) &>> 1
            out[4 &+ i] = (a3 &+ a2) &>> 1
            out[8 &+ i] = (a3 &- a2) &>> 1
            out[12 &+ i] = (a0 &- a1) &>> 1
        }
    }

    /// The decoder's inverse WHT: `out[k]` becomes block k's DC coefficient.
    @inline(__always)
    static func inverseWHT(_ coeffs: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<Int32>) {
        var tmp: InlineArray<16, Int32> = .init(repeating: 0)
        for i in 0..<4 {
            let a0 = coeffs[i] &+ coeffs[12 &+ i], a1 = coeffs[4 &+ i] &+ coeffs[8 &+ i]
            let a2 = coeffs[4 &+ i] &- coeffs[8 &+ i], a3 = coeffs[i] &- coeffs[12 &+ i]
            tmp[i] = a0 &+ a1
            tmp[8 &+ i] = a0 &- a1
            tmp[4 &+ i] = a3 &+ a2
            tmp[12 &+ i] = a3 &- a2
        }
        for i in 0..<4 {
            let dc = tmp[i &* 4] &+ 3
            let a0 = dc &+ tmp[i &* 4 &+ 3], a1 = tmp[i &* 4 &+ 1] &+ tmp[i &* 4 &+ 2]
            let a2 = tmp[i &* 4 &+ 1] &- tmp[i &* 4 &+ 2], a3 = dc &- tmp[i &* 4 &+ 3]
            out[i &* 4] = (a0 &+ a1) &>> 3
            out[i &* 4 &+ 1] = (a3 &+ a2) &>> 3
            out[i &* 4 &+ 2] = (a0 &- a1) &>> 3
            out[i &* 4 &+ 3] = (a3 &- a2) &>> 3
        }
    }

    /// Four pixels as one 32-bit load, widened (one load instead of four).
    @inline(__always)
    static func row(_ p: UnsafePointer<UInt8>) -> SIMD4<Int32> {
        SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
    }

    /// Sum of squared differences of a w×h block, w a multiple of 4: four pixels per step.
    /// |d| ≤ 255, so d² fits 16 bits unsigned and the squares are formed on 16-bit lanes.
    @inline(__always)
    static func sse(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int, w: Int, h: Int) -> Int {
        var sum = SIMD4<UInt32>()
        for y in 0..<h {
            let p = a + y &* aStride, q = b + y &* bStride
            var x = 0
            while x < w {
                let d = row(p + x) &- row(q + x)
                let m = (d ^ (d &>> 31)) &- (d &>> 31)
                let m16 = SIMD4<UInt16>(truncatingIfNeeded: m)
                sum &+= SIMD4<UInt32>(truncatingIfNeeded: m16 &* m16)
                x &+= 4
            }
        }
        return Int(sum[0] &+ sum[1] &+ sum[2] &+ sum[3])
    }
}
