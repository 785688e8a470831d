/// The 4×4 transforms of VP8. The inverse ones must be exactly the decoder's (RFC 6386 §14.3,
/// §14.4; libwebp's TransformOne / TransformWHT), because the encoder predicts from its own
/// reconstruction and any difference would drift. The forward ones only need to approximate
/// their inverses well; they are the integer forms libwebp's encoder uses, so quantisation
/// sees the same coefficient scale as cwebp's.
///
/// Blocks are 16 Int32 in natural (row-major) order; pixels are read and written through a
/// pointer and a stride. Scalar code: the transforms are a small share of the mode search
/// next to prediction, quantisation and the rate estimate.
enum Transforms {
    /// Forward DCT of `src − pred` (4×4, each with its stride) into `out`.
    @inline(__always)
    static func forward(_ src: UnsafePointer<UInt8>, _ srcStride: Int, _ pred: UnsafePointer<UInt8>, _ predStride: Int,
                        _ out: UnsafeMutablePointer<Int32>) {
        var tmp: InlineArray<16, Int32> = .init(repeating: 0)
        for i in 0..<4 {
            let s = src + i &* srcStride, p = pred + i &* predStride
            let d0 = Int32(s[0]) &- Int32(p[0]), d1 = Int32(s[1]) &- Int32(p[1])
            let d2 = Int32(s[2]) &- Int32(p[2]), d3 = Int32(s[3]) &- Int32(p[3])
            let a0 = d0 &+ d3, a1 = d1 &+ d2, a2 = d1 &- d2, a3 = d0 &- d3
            tmp[i &* 4] = (a0 &+ a1) &* 8
            tmp[i &* 4 &+ 1] = (a2 &* 2217 &+ a3 &* 5352 &+ 1812) &>> 9
            tmp[i &* 4 &+ 2] = (a0 &- a1) &* 8
            tmp[i &* 4 &+ 3] = (a3 &* 2217 &- a2 &* 5352 &+ 937) &>> 9
        }
        for i in 0..<4 {
            let a0 = tmp[i] &+ tmp[12 &+ i], a1 = tmp[4 &+ i] &+ tmp[8 &+ i]
            let a2 = tmp[4 &+ i] &- tmp[8 &+ i], a3 = tmp[i] &- tmp[12 &+ i]
            out[i] = (a0 &+ a1 &+ 7) &>> 4
            out[4 &+ i] = ((a2 &* 2217 &+ a3 &* 5352 &+ 12000) &>> 16) &+ (a3 != 0 ? 1 : 0)
            out[8 &+ i] = (a0 &- a1 &+ 7) &>> 4
            out[12 &+ i] = (a3 &* 2217 &- a2 &* 5352 &+ 51000) &>> 16
        }
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
