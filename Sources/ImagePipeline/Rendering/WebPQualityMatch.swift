import Foundation
import ImageCodec

/// Chooses the WebP quality of a render so that it is as faithful as its JPEG twin (the same
/// render at the JPEG quality), in the fewest bytes that get there.
///
/// Why not one quality for all: measured on the demo gallery's covers (`gallery-bench --only
/// webp-serve`), no single cwebp-scale quality is both light and faithful. At q82 the pages
/// weigh 0.64-0.68× their JPEG weight but smooth photos (sky, fog, water) lose up to 1.5 dB
/// PSNR against the JPEG; q88 keeps every thumbnail within 0.1 dB but weighs 0.85-0.89×. The
/// WebP/JPEG trade differs per picture: on busy ones VP8 at q82 is 1.3-1.6 dB *better* than the
/// JPEG for 0.93× its bytes, so a lower quality suffices; on smooth ones it needs more.
///
/// How: PSNR (RGB) of the JPEG twin against the render's own pixels is the target; a first
/// WebP at `start` is measured the same way, then the quality moves along the slope measured
/// over the demo (about 0.22 dB per quality step near q82) to the lowest quality expected to
/// reach the target, and is checked; at most `maxEncodes` WebP encodes. The search stops at
/// the first encode that reaches the target unless the slope promises at least two quality
/// steps lower (one step saves ~1.5 % of the bytes, and another encode costs as much as the
/// first), and its last encode aims half a step above the target: on the demo's 62 covers
/// that is 1.94 encodes per render instead of 2.27, for 0.617× the JPEG bytes instead of
/// 0.624× (docs/webp.md, "Search cost"). The target is
/// measured against the render's pixels rather than a full-decode reference (which the
/// renderer never has); the two agree within a few hundredths of a dB on the demo, since
/// decode and resampling errors are far below coding errors.
///
/// Cost: one JPEG encode + decode and one to three (1.94 on average) WebP encodes + decodes. Outputs above
/// `calibrationPixels` are calibrated on their central `calibrationEdge` square, so a 2560 px
/// render encodes its full size once.
enum WebPQualityMatch {
    /// Qualities the search may use.
    static let range = 50...95
    /// PSNR change per quality step near the default, in dB (measured over the demo's covers).
    static let slope = 0.22
    /// The WebP may fall this far short of the JPEG twin's PSNR, in dB.
    static let tolerance = 0.05
    static let maxEncodes = 3
    /// Larger outputs are calibrated on a central square of this edge.
    static let calibrationEdge = 512
    static let calibrationPixels = 640 * 640

    /// The quality to encode `bitmap` at, and (when the calibration ran on the whole bitmap)
    /// the encoded WebP at that quality.
    static func quality(for bitmap: Bitmap, jpegQuality: Int, start: Int, iccProfile: [UInt8]?) throws -> (quality: Int, encoded: [UInt8]?) {
        let whole = bitmap.width * bitmap.height <= calibrationPixels
        let sample = whole ? bitmap : try centre(of: bitmap)
        let reference = sample.converted(to: sample.layout == .gray || sample.layout == .grayAlpha ? .gray : .rgb)
        let jpeg = try JPEGEncoder.encode(reference, quality: jpegQuality, subsampling: .s420)
        let target = psnr(try ImageCodec.decode(jpeg).bitmap, reference) - tolerance

        var tried: [(quality: Int, bytes: [UInt8], psnr: Double)] = []
        var q = min(max(start, range.lowerBound), range.upperBound)
        for _ in 0..<maxEncodes {
            let encoded = try WebPEncoder.encode(sample, quality: q, iccProfile: whole ? iccProfile : nil)
            let p = psnr(try ImageCodec.decode(encoded).bitmap, reference)
            tried.append((q, encoded, p))
            // The lowest quality expected to reach the target, at most one step above it; the
            // last encode aims half a step above, since missing then falls back to an earlier,
            // much higher quality (one demo cover went from q75 to q82, +30 % bytes, by 0.01 dB).
            let aim = p < target && tried.count == maxEncodes - 1 ? target + slope / 2 : target
            let next = min(max(q + Int(((aim - p) / slope).rounded(.up)), range.lowerBound), range.upperBound)
            if tried.contains(where: { $0.quality == next }) { break }
            // Good enough: a later encode that reaches the target, or a first one that the
            // slope says is at most one step above the lowest that would.
            if p >= target, tried.count > 1 || next >= q - 1 { break }
            q = next
        }
        let good = tried.filter { $0.psnr >= target }.min { $0.bytes.count < $1.bytes.count }
        let best = good ?? tried.max { $0.psnr < $1.psnr }!
        return (best.quality, whole ? best.bytes : nil)
    }

    /// The central `calibrationEdge` square (or less on a thin bitmap), macroblock aligned.
    static func centre(of bitmap: Bitmap) throws -> Bitmap {
        let w = min(bitmap.width, calibrationEdge), h = min(bitmap.height, calibrationEdge)
        let x = ((bitmap.width - w) / 2) & ~15, y = ((bitmap.height - h) / 2) & ~15
        return try bitmap.cropped(x: x, y: y, width: w, height: h)
    }

    /// PSNR in dB over the colour samples of two bitmaps of one size (alpha ignored, gray
    /// compared with the R, G and B of a colour bitmap); 99 when identical.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        let target: Bitmap.Layout = (a.layout == .gray || a.layout == .grayAlpha) && (b.layout == .gray || b.layout == .grayAlpha) ? .gray : .rgb
        let x = a.converted(to: target), y = b.converted(to: target)
        guard x.width == y.width, x.height == y.height, !x.pixels.isEmpty else { return 0 }
        var sum: UInt64 = 0
        x.pixels.withUnsafeBufferPointer { p in
            y.pixels.withUnsafeBufferPointer { q in
                for i in 0..<p.count {
                    let d = Int(p[i]) &- Int(q[i])
                    sum &+= UInt64(d &* d)
                }
            }
        }
        guard sum > 0 else { return 99 }
        return 10 * log10(255 * 255 * Double(x.pixels.count) / Double(sum))
    }
}
