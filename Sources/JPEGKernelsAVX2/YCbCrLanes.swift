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
/// tables, 139 million here.
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

    @inline(__always) private static func clamp(_ v: Int32) -> UInt32 {
        UInt32(truncatingIfNeeded: v < 0 ? 0 : (v > 255 ? 255 : v))
    }

    /// `count` pixels of interleaved RGB into `out`.
    static func ycbcrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                           _ out: UnsafeMutablePointer<UInt8>) {
        var i = 0
        // The 24 bytes of a group are stored as two 16-byte vectors, the second 12 bytes after
        // the first, so it writes 4 bytes past the group: two more pixels must follow.
        while i &+ 10 <= count {
            let yv = load(y + i), x = load(cb + i) &- 128, z = load(cr + i) &- 128
            let r = clamp(yv &+ ((91881 &* z &+ 32768) &>> 16))
            let g = clamp(yv &+ ((-22554 &* x &- 46802 &* z &+ 32768) &>> 16))
            let b = clamp(yv &+ ((116130 &* x &+ 32768) &>> 16))
            // Pixel j is bytes 4j...4j+2 (R, G, B); the interleave drops every fourth byte with
            // constant-index lane picks, which LLVM turns into byte shuffles (`vpshufb`). Picking
            // lanes one by one into stores made it move every lane through a general register.
            let w = unsafeBitCast(r | g &<< 8 | b &<< 16, to: SIMD32<UInt8>.self)
            let low = SIMD16<UInt8>(w[0], w[1], w[2], w[4], w[5], w[6], w[8], w[9], w[10], w[12], w[13], w[14], 0, 0, 0, 0)
            let high = SIMD16<UInt8>(w[16], w[17], w[18], w[20], w[21], w[22], w[24], w[25], w[26], w[28], w[29], w[30], 0, 0, 0, 0)
            let o = UnsafeMutableRawPointer(out + 3 &* i)
            o.storeBytes(of: low, as: SIMD16<UInt8>.self)
            o.storeBytes(of: high, toByteOffset: 12, as: SIMD16<UInt8>.self)
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
