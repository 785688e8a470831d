import Foundation
import Testing
@testable import ImageCodec

/// The issue's quality check: a thumbnail made our way (DCT-scaled decode, then Lanczos-3 to
/// the exact size) against Pillow's full decode resized with LANCZOS, both unencoded.
///
/// Findings (figures printed by the test; bench photos measured the same way with djpeg,
/// which our decoder matches bit for bit):
/// - Geometry matters most. A decode at M/8 is ceil(W·M/8) wide, but the image ends inside
///   its last pixel; resizing the whole decoded bitmap stretches it by up to one pixel and
///   costs 5-9 dB on detailed photos. Resizing `ResizePlan.sourceRegion(…, decodeScale:)`
///   instead fixes that (1001×667 fixture: 26.2 → 33.2 dB).
/// - Decoding at the *smallest* M/8 that covers the target still trails Pillow on very
///   detailed content, because the reduced IDCT is a box filter (fixture: 33 dB; bench photos:
///   35-49 dB). Decoding at the smallest M/8 whose output is at least **twice** the target
///   gives 43-55 dB on every bench photo and is what we recommend to the pipeline; the 42 dB
///   bound is asserted for that policy. The minimal policy is held to 31 dB here (fixture worst: 31.6 dB).
@Suite struct ThumbnailQualityTests {
    typealias S = EncoderTestSupport

    static let files = ["jpeg/generated/odd_1001x667_420.jpg", "jpeg/generated/odd_1001x667_422_prog.jpg"]

    /// The smallest M/8 whose output is at least `factor` × the target on both axes.
    private func scale(_ info: ImageInfo, _ w: Int, _ h: Int, factor: Int) -> DecodeScale {
        ImageCodec.scale(for: info, minWidth: w * factor, minHeight: h * factor)
    }

    @Test(.enabled(if: S.pillowAvailable), arguments: files)
    func scaledDecodeThenLanczosMatchesFullDecode(file: String) throws {
        let path = S.fixture(file)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let info = try ImageCodec.probe(bytes)
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for edge in [480, 240, 120] {
            let plan = ResizeMode.fit(maxEdge: edge).plan(width: info.width, height: info.height)
            let out = dir + "/pillow_\(edge).ppm"
            try S.run("/usr/bin/python3", ["-c", """
                import sys
                from PIL import Image
                f = getattr(Image, 'Resampling', Image).LANCZOS
                Image.open(sys.argv[1]).convert('RGB').resize((int(sys.argv[3]), int(sys.argv[4])), f).save(sys.argv[2])
                """, path, out, "\(plan.scaledWidth)", "\(plan.scaledHeight)"])
            let reference = try S.readPNM(out)
            for (policy, factor, bound) in [("covers target", 1, 31.0), ("covers 2x target", 2, 42.0)] {
                let s = scale(info, plan.scaledWidth, plan.scaledHeight, factor: factor)
                let decoded = try ImageCodec.decode(bytes, scale: s).bitmap
                #expect(decoded.width >= plan.scaledWidth && decoded.height >= plan.scaledHeight)
                let region = plan.sourceRegion(sourceWidth: info.width, sourceHeight: info.height, decodeScale: s)
                let aligned = try Resampler.resize(decoded, width: plan.outputWidth, height: plan.outputHeight, region: region)
                let naive = try Resampler.resize(decoded, width: plan.outputWidth, height: plan.outputHeight)
                let p = S.psnr(aligned.converted(to: .rgb), reference)
                let pNaive = S.psnr(naive.converted(to: .rgb), reference)
                print("thumbnail \(file) fit \(edge) → \(plan.outputWidth)x\(plan.outputHeight), decode at \(s) (\(decoded.width)x\(decoded.height), \(policy)) + Lanczos-3 vs Pillow full decode + LANCZOS: PSNR \(p.isInfinite ? "inf" : S.f1(p)) dB with sourceRegion, \(pNaive.isInfinite ? "inf" : S.f1(pNaive)) dB resizing the whole decoded bitmap")
                #expect(p >= bound, "\(file) fit \(edge) \(policy): \(p) dB")
            }
        }
    }
}
