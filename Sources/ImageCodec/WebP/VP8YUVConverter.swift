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
