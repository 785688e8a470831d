/// YUV 4:2:0 to RGB exactly as libwebp's default ("fancy") output: chroma is upsampled with
/// the 9-3-3-1 bilinear kernel (computed through libwebp's two rounded diagonal averages),
/// then converted with its 14-bit fixed-point BT.601 formulas (constants from libwebp's
/// src/dsp/yuv.h: 19077, 26149, 6419, 13320, 33050 and offsets −14234, 8708, −17685).
///
/// Output row y uses the chroma row nearest to it (y / 2) with weight 3 and the other
/// neighbouring chroma row with weight 1, clamped at the top and bottom edges.
enum VP8YUVConverter {
    @inline(__always) private static func multiplyHigh(_ v: Int32, _ c: Int32) -> Int32 { (v &* c) >> 8 }

    @inline(__always) private static func clip(_ v: Int32) -> UInt8 {
        (v & ~16383) == 0 ? UInt8(truncatingIfNeeded: v >> 6) : (v < 0 ? 0 : 255)
    }

    @inline(__always)
    private static func store(_ y: UInt8, _ u: Int32, _ v: Int32, _ out: UnsafeMutablePointer<UInt8>) {
        let luma = multiplyHigh(Int32(y), 19077)
        out[0] = clip(luma &+ multiplyHigh(v, 26149) &- 14234)
        out[1] = clip(luma &- multiplyHigh(u, 6419) &- multiplyHigh(v, 13320) &+ 8708)
        out[2] = clip(luma &+ multiplyHigh(u, 33050) &- 17685)
    }

    private typealias U16 = SIMD8<UInt16>

    /// (a · c) >> 16 on 16-bit lanes; LLVM lowers the widened multiply to `pmulhuw`.
    @inline(__always) private static func multiplyHigh(_ a: U16, _ c: UInt16) -> U16 {
        U16(narrowing: (SIMD8<UInt32>(widening: a) &* SIMD8<UInt32>(repeating: UInt32(c))) &>> 16)
    }

    @inline(__always) private static func bytes(_ p: UnsafePointer<UInt8>) -> U16 {
        let v = unsafeBitCast(UnsafeRawPointer(p).loadUnaligned(as: UInt64.self), to: SIMD8<UInt8>.self)
        return U16(UInt16(v[0]), UInt16(v[1]), UInt16(v[2]), UInt16(v[3]), UInt16(v[4]), UInt16(v[5]), UInt16(v[6]), UInt16(v[7]))
    }

    /// `clip` for a value computed modulo 2¹⁶: the sums are at most 34237 (534 after the shift
    /// by 6) when not negative, and a negative one wraps to at least 2¹⁶ − 17685 (747 after the
    /// shift), so a shifted value above 640 was negative (→ 0) and one above 255 saturates.
    @inline(__always) private static func clip(_ v: U16) -> SIMD8<UInt8> {
        let s = SIMD8<Int16>(truncatingIfNeeded: v &>> 6)
        let negative = (640 &- s) &>> 15
        let e = s &- 255
        return SIMD8<UInt8>(narrowing: (255 &+ (e & (e &>> 15))) & ~negative)
    }

    /// The upsampled chroma of eight pairs: the odd pixel 2k−1 and the even pixel 2k of each.
    @inline(__always) private static func fancy(_ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>) -> (odd: U16, even: U16) {
        let np = bytes(near - 1), nc = bytes(near), fp = bytes(far - 1), fc = bytes(far)
        let average = np &+ nc &+ fp &+ fc &+ 8
        let a = (average &+ 2 &* (nc &+ fp)) &>> 3, b = (average &+ 2 &* (np &+ fc)) &>> 3
        return ((a &+ np) &>> 1, (b &+ nc) &>> 1)
    }

    /// RGB of eight pixels from luma and chroma already shifted left by 8 (libwebp's formulas).
    @inline(__always) private static func rgb(_ y8: U16, _ u: U16, _ v: U16) -> (SIMD8<UInt8>, SIMD8<UInt8>, SIMD8<UInt8>) {
        let luma = multiplyHigh(y8, 19077)
        let u8 = u &<< 8, v8 = v &<< 8
        let r = luma &+ multiplyHigh(v8, 26149) &- 14234
        let g = luma &- multiplyHigh(u8, 6419) &- multiplyHigh(v8, 13320) &+ 8708
        let b = luma &+ multiplyHigh(u8, 33050) &- 17685
        return (clip(r), clip(g), clip(b))
    }

    /// Pixels 2k−1 … 2k+14 of a row (`luma` at pixel 2k−1, the chroma rows at column k).
    @inline(__always)
    private static func convert16(_ luma: UnsafePointer<UInt8>, _ nu: UnsafePointer<UInt8>, _ fu: UnsafePointer<UInt8>,
                                  _ nv: UnsafePointer<UInt8>, _ fv: UnsafePointer<UInt8>, channels: Int, out: UnsafeMutablePointer<UInt8>) {
        // Lane i holds pixels 2k−1+2i (low byte) and 2k+2i (high byte).
        let pairs = UnsafeRawPointer(luma).loadUnaligned(as: U16.self)
        let u = fancy(nu, fu), v = fancy(nv, fv)
        let (r0, g0, b0) = rgb(pairs &<< 8, u.odd, v.odd)
        let (r1, g1, b1) = rgb(pairs & 0xFF00, u.even, v.even)
        @inline(__always) func word(_ i: Int) -> UInt32 {
            let odd = i & 1 == 0
            let k = i >> 1
            let r = odd ? r0[k] : r1[k], g = odd ? g0[k] : g1[k], b = odd ? b0[k] : b1[k]
            return UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | 0xFF00_0000
        }
        let words = SIMD16<UInt32>(word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7),
                                   word(8), word(9), word(10), word(11), word(12), word(13), word(14), word(15))
        if channels == 4 {
            UnsafeMutableRawPointer(out).storeBytes(of: words, as: SIMD16<UInt32>.self)
        } else {
            for i in 0..<16 { UnsafeMutableRawPointer(out + 3 &* i).storeBytes(of: words[i], as: UInt32.self) }
        }
    }

    /// Writes row `y` of `planes` as RGB (`channels` 3) or RGB plus alpha (`channels` 4, alpha
    /// from `alpha` when given, else 255) into `out`.
    static func convertRow(_ planes: UnsafePointer<UInt8>, y yIndex: Int, width: Int, height: Int,
                           yStride: Int, uPlane: UnsafePointer<UInt8>, vPlane: UnsafePointer<UInt8>, uvStride: Int,
                           alpha: UnsafePointer<UInt8>?, channels: Int, out: UnsafeMutablePointer<UInt8>) {
        let chromaRows = (height + 1) >> 1
        let near = yIndex >> 1
        var far = yIndex & 1 == 1 ? near + 1 : near - 1
        far = min(max(far, 0), chromaRows - 1)
        let luma = planes + yIndex * yStride
        let nu = uPlane + near * uvStride, nv = vPlane + near * uvStride
        let fu = uPlane + far * uvStride, fv = vPlane + far * uvStride
        let c = channels

        @inline(__always) func edge(_ nearValue: UInt8, _ farValue: UInt8) -> Int32 {
            (3 &* Int32(nearValue) &+ Int32(farValue) &+ 2) >> 2
        }
        store(luma[0], edge(nu[0], fu[0]), edge(nv[0], fv[0]), out)
        let pairs = (width - 1) >> 1
        var x = 1
        // Eight chroma pairs (16 pixels) at a time; with 3 channels each pixel is stored as 4
        // bytes, so the pixel after the group must exist to take the spare byte.
        let vectorEnd = c == 4 ? pairs &- 7 : min(pairs &- 7, (width &- 16) >> 1)
        while x <= vectorEnd {
            convert16(luma + (2 &* x &- 1), nu + x, fu + x, nv + x, fv + x, channels: c, out: out + (2 &* x &- 1) &* c)
            x &+= 8
        }
        while x <= pairs {
            // Previous and current chroma columns of the near and far rows.
            let np = Int32(nu[x &- 1]), nc = Int32(nu[x]), fp = Int32(fu[x &- 1]), fc = Int32(fu[x])
            let avgU = np &+ nc &+ fp &+ fc &+ 8
            let uA = (avgU &+ 2 &* (nc &+ fp)) >> 3, uB = (avgU &+ 2 &* (np &+ fc)) >> 3
            let vnp = Int32(nv[x &- 1]), vnc = Int32(nv[x]), vfp = Int32(fv[x &- 1]), vfc = Int32(fv[x])
            let avgV = vnp &+ vnc &+ vfp &+ vfc &+ 8
            let vA = (avgV &+ 2 &* (vnc &+ vfp)) >> 3, vB = (avgV &+ 2 &* (vnp &+ vfc)) >> 3
            store(luma[2 &* x &- 1], (uA &+ np) >> 1, (vA &+ vnp) >> 1, out + (2 &* x &- 1) &* c)
            store(luma[2 &* x], (uB &+ nc) >> 1, (vB &+ vnc) >> 1, out + (2 &* x) &* c)
            x &+= 1
        }
        if width & 1 == 0 {
            let last = (width - 1) >> 1
            store(luma[width - 1], edge(nu[last], fu[last]), edge(nv[last], fv[last]), out + (width - 1) * c)
        }
        if c == 4 {
            if let alpha {
                let a = alpha + yIndex * width
                for i in 0..<width { out[i &* 4 &+ 3] = a[i] }
            } else {
                for i in 0..<width { out[i &* 4 &+ 3] = 255 }
            }
        }
    }
}
