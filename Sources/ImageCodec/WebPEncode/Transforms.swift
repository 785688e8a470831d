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
            let s = src + i &* srcStride, p = pred + i &* predStride
            return SIMD4(Int32(s[0]), Int32(s[1]), Int32(s[2]), Int32(s[3])) &- SIMD4(Int32(p[0]), Int32(p[1]), Int32(p[2]), Int32(p[3]))
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
    /// TransformOne: vertical pass, then horizontal with rounding by 4 and >> 3).
    @inline(__always)
    static func inverseAdd(_ coeffs: UnsafePointer<Int32>, _ pred: UnsafePointer<UInt8>, _ predStride: Int,
                           _ dst: UnsafeMutablePointer<UInt8>, _ dstStride: Int) {
        @inline(__always) func mul1(_ a: Int32) -> Int32 { ((a &* 20091) &>> 16) &+ a }
        @inline(__always) func mul2(_ a: Int32) -> Int32 { (a &* 35468) &>> 16 }
        var tmp: InlineArray<16, Int32> = .init(repeating: 0)
        for i in 0..<4 {
            let a = coeffs[i] &+ coeffs[8 &+ i], b = coeffs[i] &- coeffs[8 &+ i]
            let c = mul2(coeffs[4 &+ i]) &- mul1(coeffs[12 &+ i])
            let d = mul1(coeffs[4 &+ i]) &+ mul2(coeffs[12 &+ i])
            tmp[i &* 4] = a &+ d
            tmp[i &* 4 &+ 1] = b &+ c
            tmp[i &* 4 &+ 2] = b &- c
            tmp[i &* 4 &+ 3] = a &- d
        }
        for i in 0..<4 {
            let dc = tmp[i] &+ 4
            let a = dc &+ tmp[8 &+ i], b = dc &- tmp[8 &+ i]
            let c = mul2(tmp[4 &+ i]) &- mul1(tmp[12 &+ i])
            let d = mul1(tmp[4 &+ i]) &+ mul2(tmp[12 &+ i])
            let p = pred + i &* predStride, o = dst + i &* dstStride
            o[0] = UInt8(clamping: Int32(p[0]) &+ ((a &+ d) &>> 3))
            o[1] = UInt8(clamping: Int32(p[1]) &+ ((b &+ c) &>> 3))
            o[2] = UInt8(clamping: Int32(p[2]) &+ ((b &- c) &>> 3))
            o[3] = UInt8(clamping: Int32(p[3]) &+ ((a &- d) &>> 3))
        }
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

    /// Sum of squared differences of a w×h block.
    @inline(__always)
    static func sse(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int, w: Int, h: Int) -> Int {
        var sum = 0
        for y in 0..<h {
            let p = a + y &* aStride, q = b + y &* bStride
            for x in 0..<w {
                let d = Int(p[x]) &- Int(q[x])
                sum &+= d &* d
            }
        }
        return sum
    }
}
