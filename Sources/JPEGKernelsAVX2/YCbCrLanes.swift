/// libjpeg's YCbCr → RGB (`jdcolor.c`, docs/jpeg-decoding.md "Colour conversion") computed on
/// eight 32-bit lanes instead of read from its tables, for the AVX2 kernel set: with AVX2 a
/// lane vector is one register and the multiplies are `vpmulld`. The formulas are the tables'
/// own, x = Cb − 128, z = Cr − 128:
///   R = Y + ((91881·z + 32768) >> 16)
///   G = Y + ((−22554·x − 46802·z + 32768) >> 16)
///   B = Y + ((116130·x + 32768) >> 16)
/// each clamped to 0...255, so the output is the table path's (`KernelDispatchTests` compares
/// all 16.7 million inputs). This file exists only in the AVX2 target: the portable set keeps
/// the tables (`ColourToRGB.ycbcrToRGB`), since SSE2 has neither `pmulld` nor `pshufb` and a
/// portable lane version was slower than the tables (docs/performance.md).
///
/// Measured (callgrind, 17.9 MP 4:2:2 full-size decode): 358 million instructions with the
/// tables, 139 million with the first interleave here, the current one in docs/performance.md.
enum YCbCrLanes {
    private typealias Lanes = SIMD8<Int32>

    @inline(__always) private static func load(_ p: UnsafePointer<UInt8>) -> Lanes {
        let v = unsafeBitCast(UnsafeRawPointer(p).loadUnaligned(as: UInt64.self), to: SIMD8<UInt8>.self)
        return Lanes(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// clamp(v) to 0...255 as two maxima written with sign masks, t = max(v, 0) and
    /// t − max(t − 255, 0), which LLVM turns into `vpmaxsd`/`vpminsd`. `clamped` and
    /// `replacing(with:where:)` stayed generic calls (2.6 billion instructions for a 17.9 MP
    /// decode), and a mask-and-or form of the upper clamp was broken up lane by lane.
    @inline(__always) private static func clamp(_ v: Lanes) -> Lanes {
        let t = v & ~(v &>> 31)
        let e = t &- 255
        return t &- (e & ~(e &>> 31))
    }

    /// The low 16 bits of each lane, written lane by lane (the generic conversion is not
    /// always inlined; SIMDLanes.swift).
    @inline(__always) private static func words(_ v: Lanes) -> SIMD8<UInt16> {
        SIMD8<UInt16>(UInt16(truncatingIfNeeded: v[0]), UInt16(truncatingIfNeeded: v[1]),
                      UInt16(truncatingIfNeeded: v[2]), UInt16(truncatingIfNeeded: v[3]),
                      UInt16(truncatingIfNeeded: v[4]), UInt16(truncatingIfNeeded: v[5]),
                      UInt16(truncatingIfNeeded: v[6]), UInt16(truncatingIfNeeded: v[7]))
    }

    @inline(__always) private static func clamp(_ v: Int32) -> UInt32 {
        UInt32(truncatingIfNeeded: v < 0 ? 0 : (v > 255 ? 255 : v))
    }

    /// `count` pixels of interleaved RGB into `out`.
    static func ycbcrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                           _ out: UnsafeMutablePointer<UInt8>) {
        var i = 0
        while i &+ 8 <= count {
            let yv = load(y + i), x = load(cb + i) &- 128, z = load(cr + i) &- 128
            let r = clamp(yv &+ ((91881 &* z &+ 32768) &>> 16))
            let g = clamp(yv &+ ((-22554 &* x &- 46802 &* z &+ 32768) &>> 16))
            let b = clamp(yv &+ ((116130 &* x &+ 32768) &>> 16))
            // Interleave: r | g << 8 and b narrowed to 16-bit lanes (`vpackusdw`), then the 24
            // bytes picked from those two vectors by constant indices (`vpshufb`, `vpunpckhbw`),
            // stored as 16 + 8 bytes. Picking them from the 32-bit word r | g << 8 | b << 16
            // instead let LLVM trace bytes through the OR and move lanes through general
            // registers (about 30 instructions per group instead of 13); picking lanes one by
            // one into stores did the same.
            let rg = words(r | g &<< 8), bw = words(b)
            let p = unsafeBitCast(rg, to: SIMD16<UInt8>.self), q = unsafeBitCast(bw, to: SIMD16<UInt8>.self)
            let low = SIMD16<UInt8>(p[0], p[1], q[0], p[2], p[3], q[2], p[4], p[5], q[4], p[6], p[7], q[6], p[8], p[9], q[8], p[10])
            let high = SIMD8<UInt8>(p[11], q[10], p[12], p[13], q[12], p[14], p[15], q[14])
            let o = UnsafeMutableRawPointer(out + 3 &* i)
            o.storeBytes(of: low, as: SIMD16<UInt8>.self)
            o.storeBytes(of: high, toByteOffset: 16, as: SIMD8<UInt8>.self)
            i &+= 8
        }
        while i < count {
            let yv = Int32(y[i]), x = Int32(cb[i]) &- 128, z = Int32(cr[i]) &- 128
            let o = out + 3 &* i
            o[0] = UInt8(truncatingIfNeeded: clamp(yv &+ ((91881 &* z &+ 32768) &>> 16)))
            o[1] = UInt8(truncatingIfNeeded: clamp(yv &+ ((-22554 &* x &- 46802 &* z &+ 32768) &>> 16)))
            o[2] = UInt8(truncatingIfNeeded: clamp(yv &+ ((116130 &* x &+ 32768) &>> 16)))
            i &+= 1
        }
    }
}
