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

    /// Adds the IDCT of the 16 coefficients `input` (natural order) to the 4×4 pixels at `dst`:
    /// the same 32-bit arithmetic as the scalar form (RFC 6386 14.3), four columns at a time,
    /// then four rows at a time after a transpose.
    @inline(__always)
    static func addIDCT(_ input: UnsafePointer<Int16>, to dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        typealias V = SIMD4<Int32>
        @inline(__always) func mul1(_ a: V) -> V { ((a &* 20091) &>> 16) &+ a }
        @inline(__always) func mul2(_ a: V) -> V { (a &* 35468) &>> 16 }
        @inline(__always) func row(_ k: Int) -> V {
            V(truncatingIfNeeded: UnsafeRawPointer(input + 4 &* k).loadUnaligned(as: SIMD4<Int16>.self))
        }
        @inline(__always) func transpose(_ a: V, _ b: V, _ c: V, _ d: V) -> (V, V, V, V) {
            (V(a[0], b[0], c[0], d[0]), V(a[1], b[1], c[1], d[1]), V(a[2], b[2], c[2], d[2]), V(a[3], b[3], c[3], d[3]))
        }
        // Vertical pass: lane i is column i.
        let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3)
        let a = r0 &+ r2, b = r0 &- r2
        let c = mul2(r1) &- mul1(r3), d = mul1(r1) &+ mul2(r3)
        // Horizontal pass: after the transpose lane i is row i.
        let (u0, u1, u2, u3) = transpose(a &+ d, b &+ c, b &- c, a &- d)
        let dc = u0 &+ 4
        let e = dc &+ u2, f = dc &- u2
        let g = mul2(u1) &- mul1(u3), h = mul1(u1) &+ mul2(u3)
        let (o0, o1, o2, o3) = transpose((e &+ h) &>> 3, (f &+ g) &>> 3, (f &- g) &>> 3, (e &- h) &>> 3)
        @inline(__always) func add(_ delta: V, _ p: UnsafeMutablePointer<UInt8>) {
            var v = V(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self)) &+ delta
            v &= ~(v &>> 31)  // max(v, 0)
            let over = (V(repeating: 255) &- v) &>> 31
            v = (v & ~over) | (V(repeating: 255) & over)  // min(v, 255)
            UnsafeMutableRawPointer(p).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), as: SIMD4<UInt8>.self)
        }
        add(o0, dst)
        add(o1, dst + stride)
        add(o2, dst + 2 &* stride)
        add(o3, dst + 3 &* stride)
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
}
