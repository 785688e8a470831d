/// RGB(A) or gray → the VP8 encoder's Y′CbCr 4:2:0 planes, as libwebp's picture import does it
/// (src/dsp/yuv.h, src/enc/picture_csp_enc.c, non-"sharp" path):
///
///     Y = (16839 R + 33059 G + 6420 B + 2^15 + (16 << 16)) >> 16         (limited range, BT.601)
///     U = clip((−9719 R4 − 19081 G4 + 28800 B4 + 2^17 + (128 << 18)) >> 18)
///     V = clip(( 28800 R4 − 24116 G4 − 4684 B4 + 2^17 + (128 << 18)) >> 18)
///
/// where R4, G4, B4 are four times the 2×2 average taken in a gamma-compressed domain
/// (γ = 0.8): each sample goes to a 12-bit "linear" value by table, the four are summed, and
/// the sum is mapped back through a 33-entry table with linear interpolation. An odd last
/// column or row repeats its pixel, which gives libwebp's SUM2 exactly. Alpha is ignored here
/// (libwebp weights chroma by alpha at transparent edges; ours does not).
///
/// The planes are padded to whole macroblocks by repeating the last column and row, as the
/// encoder's iterator does when it imports an edge macroblock.
struct YUVPlanes: ~Copyable {
    let yStride: Int, uvStride: Int, rows: Int
    let y: UnsafeMutablePointer<UInt8>
    let u: UnsafeMutablePointer<UInt8>
    let v: UnsafeMutablePointer<UInt8>

    init(macroblocksWide mbw: Int, high mbh: Int) {
        yStride = mbw &* 16
        uvStride = mbw &* 8
        rows = mbh &* 16
        y = .allocate(capacity: yStride &* rows)
        u = .allocate(capacity: uvStride &* rows / 2)
        v = .allocate(capacity: uvStride &* rows / 2)
    }

    deinit {
        y.deallocate()
        u.deallocate()
        v.deallocate()
    }
}

enum YUVConverter {
    /// 12-bit "linear" value of each 8-bit sample: round(4095 · (v/255)^0.8).
    static let gammaToLinear: [Int32] = (0...255).map { v in
        Int32(EncoderMath.pow(Double(v) / 255, 0.8) * 4095 + 0.5)
    }

    /// Back to gamma, 33 knots 128 linear units apart: round(255 · (k · 128/4095)^(1/0.8)).
    static let linearToGamma: [Int32] = (0...32).map { k in
        Int32(255 * EncoderMath.pow(Double(k) * 128 / 4095, 1 / 0.8) + 0.5)
    }

    /// Four times the gamma-domain mean of four samples (libwebp's SUM4 / LinearToGamma).
    @inline(__always)
    static func chromaSum(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8,
                          _ toLinear: UnsafePointer<Int32>, _ toGamma: UnsafePointer<Int32>) -> Int32 {
        let sum = toLinear[Int(a)] &+ toLinear[Int(b)] &+ toLinear[Int(c)] &+ toLinear[Int(d)]
        let pos = Int(sum &>> 9)
        let frac = sum & 511
        let interpolated = toGamma[pos &+ 1] &* frac &+ toGamma[pos] &* (512 &- frac)
        return (interpolated &+ 64) &>> 7
    }

    /// Fills `planes` from `pixels` (`width`×`height`, `channels` 1...4 per pixel; 2 and 4 carry
    /// alpha, which is skipped).
    static func convert(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int, channels: Int, into planes: borrowing YUVPlanes) {
        let yStride = planes.yStride, uvStride = planes.uvStride
        let gray = channels <= 2
        gammaToLinear.withUnsafeBufferPointer { lin in
        linearToGamma.withUnsafeBufferPointer { gam in
            let toLinear = lin.baseAddress!, toGamma = gam.baseAddress!
            let rowBytes = width &* channels
            @inline(__always) func rgb(_ p: UnsafePointer<UInt8>) -> (UInt8, UInt8, UInt8) {
                gray ? (p[0], p[0], p[0]) : (p[0], p[1], p[2])
            }
            for row in 0..<height {
                let src = pixels + row &* rowBytes
                let dst = planes.y + row &* yStride
                for x in 0..<width {
                    let (r, g, b) = rgb(src + x &* channels)
                    let luma = 16839 &* Int32(r) &+ 33059 &* Int32(g) &+ 6420 &* Int32(b)
                    dst[x] = UInt8(truncatingIfNeeded: (luma &+ 32768 &+ (16 &<< 16)) &>> 16)
                }
            }
            let uvWidth = (width &+ 1) / 2, uvHeight = (height &+ 1) / 2
            for row in 0..<uvHeight {
                let r0 = pixels + (2 &* row) &* rowBytes
                let r1 = pixels + min(2 &* row &+ 1, height &- 1) &* rowBytes
                let du = planes.u + row &* uvStride, dv = planes.v + row &* uvStride
                for x in 0..<uvWidth {
                    let x0 = 2 &* x &* channels, x1 = min(2 &* x &+ 1, width &- 1) &* channels
                    let a = rgb(r0 + x0), b = rgb(r0 + x1), c = rgb(r1 + x0), d = rgb(r1 + x1)
                    let rs = chromaSum(a.0, b.0, c.0, d.0, toLinear, toGamma)
                    let gs = chromaSum(a.1, b.1, c.1, d.1, toLinear, toGamma)
                    let bs = chromaSum(a.2, b.2, c.2, d.2, toLinear, toGamma)
                    du[x] = clipChroma(-9719 &* rs &- 19081 &* gs &+ 28800 &* bs)
                    dv[x] = clipChroma(28800 &* rs &- 24116 &* gs &- 4684 &* bs)
                }
            }
            pad(planes.y, stride: yStride, width: width, height: height, rows: planes.rows)
            pad(planes.u, stride: uvStride, width: uvWidth, height: uvHeight, rows: planes.rows / 2)
            pad(planes.v, stride: uvStride, width: uvWidth, height: uvHeight, rows: planes.rows / 2)
        }
        }
    }

    @inline(__always)
    private static func clipChroma(_ sum: Int32) -> UInt8 {
        let v = (sum &+ (1 &<< 17) &+ (128 &<< 18)) &>> 18
        return UInt8(clamping: v)
    }

    /// Repeats the last column to `stride` and the last row to `rows`.
    private static func pad(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, rows: Int) {
        if width < stride {
            for row in 0..<height {
                let line = plane + row &* stride
                line.advanced(by: width).update(repeating: line[width &- 1], count: stride &- width)
            }
        }
        let last = plane + (height &- 1) &* stride
        for row in height..<rows { (plane + row &* stride).update(from: last, count: stride) }
    }
}
