/// VP8's inverse transforms, in libwebp's exact integer arithmetic (RFC 6386 section 14): the
/// 4×4 Walsh-Hadamard transform that spreads the Y2 block over the luma DCs, and the 4×4 IDCT
/// whose output is added to the prediction with clamping.
enum VP8InverseTransform {
    /// The Y2 block `input` (natural order) turned into the DC of each of the 16 luma blocks
    /// (`output[16·k]`). `full` is only a hint: the DC-only case gives the same result.
    static func walshHadamard(_ input: InlineArray<16, Int16>, into output: UnsafeMutablePointer<Int16>, full: Bool) {
        var tmp = InlineArray<16, Int32>(repeating: 0)
        for i in 0..<4 {
            let a0 = Int32(input[i]) + Int32(input[12 + i])
            let a1 = Int32(input[4 + i]) + Int32(input[8 + i])
            let a2 = Int32(input[4 + i]) - Int32(input[8 + i])
            let a3 = Int32(input[i]) - Int32(input[12 + i])
            tmp[i] = a0 + a1
            tmp[8 + i] = a0 - a1
            tmp[4 + i] = a3 + a2
            tmp[12 + i] = a3 - a2
        }
        for i in 0..<4 {
            let dc = tmp[i * 4] + 3
            let a0 = dc + tmp[3 + i * 4]
            let a1 = tmp[1 + i * 4] + tmp[2 + i * 4]
            let a2 = tmp[1 + i * 4] - tmp[2 + i * 4]
            let a3 = dc - tmp[3 + i * 4]
            let out = output + i * 64
            out[0] = Int16(truncatingIfNeeded: (a0 + a1) >> 3)
            out[16] = Int16(truncatingIfNeeded: (a3 + a2) >> 3)
            out[32] = Int16(truncatingIfNeeded: (a0 - a1) >> 3)
            out[48] = Int16(truncatingIfNeeded: (a3 - a2) >> 3)
        }
    }

    @inline(__always) private static func mul1(_ a: Int32) -> Int32 { ((a &* 20091) >> 16) &+ a }
    @inline(__always) private static func mul2(_ a: Int32) -> Int32 { (a &* 35468) >> 16 }

    /// Adds the IDCT of the 16 coefficients `input` (natural order) to the 4×4 pixels at `dst`.
    @inline(__always)
    static func addIDCT(_ input: UnsafePointer<Int16>, to dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        var tmp = InlineArray<16, Int32>(repeating: 0)
        for i in 0..<4 {  // columns
            let c0 = Int32(input[i]), c4 = Int32(input[4 &+ i]), c8 = Int32(input[8 &+ i]), c12 = Int32(input[12 &+ i])
            let a = c0 &+ c8
            let b = c0 &- c8
            let c = mul2(c4) &- mul1(c12)
            let d = mul1(c4) &+ mul2(c12)
            tmp[i &* 4] = a &+ d
            tmp[i &* 4 &+ 1] = b &+ c
            tmp[i &* 4 &+ 2] = b &- c
            tmp[i &* 4 &+ 3] = a &- d
        }
        var row = dst
        for i in 0..<4 {  // rows
            let dc = tmp[i] &+ 4
            let a = dc &+ tmp[8 &+ i]
            let b = dc &- tmp[8 &+ i]
            let c = mul2(tmp[4 &+ i]) &- mul1(tmp[12 &+ i])
            let d = mul1(tmp[4 &+ i]) &+ mul2(tmp[12 &+ i])
            row[0] = clampAdd(row[0], (a &+ d) >> 3)
            row[1] = clampAdd(row[1], (b &+ c) >> 3)
            row[2] = clampAdd(row[2], (b &- c) >> 3)
            row[3] = clampAdd(row[3], (a &- d) >> 3)
            row += stride
        }
    }

    /// Adds the IDCT of a block whose only non-zero coefficient is `dc`: (dc + 4) >> 3 on
    /// every pixel, what `addIDCT` gives for such a block (libwebp TransformDC).
    @inline(__always)
    static func addDC(_ dc: Int16, to dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        let delta = SIMD4<Int16>(repeating: Int16(truncatingIfNeeded: (Int32(dc) &+ 4) >> 3))
        var row = dst
        for _ in 0..<4 {
            let pixels = SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(row).loadUnaligned(as: SIMD4<UInt8>.self))
            // |delta| ≤ 4096, so the sum fits 16 bits; clamp to 0...255 with shift masks.
            var sum = pixels &+ delta
            sum &= ~(sum &>> 15)
            let over = (SIMD4<Int16>(repeating: 255) &- sum) &>> 15
            sum = (sum & ~over) | (SIMD4<Int16>(repeating: 255) & over)
            UnsafeMutableRawPointer(row).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: sum), as: SIMD4<UInt8>.self)
            row += stride
        }
    }

    @inline(__always) static func clampAdd(_ pixel: UInt8, _ delta: Int32) -> UInt8 {
        let v = Int32(pixel) &+ delta
        return v < 0 ? 0 : (v > 255 ? 255 : UInt8(truncatingIfNeeded: v))
    }
}
