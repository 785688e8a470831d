import Foundation
import ImageCodec

/// WebP encoding: ours against `cwebp -m 4` at equal PSNR, and against our JPEG q82.
///
/// Inputs: bench photos rendered to 480 px and 1920 px (longest edge) by vipsthumbnail
/// (Lanczos-3), as PPM in the scratch folder. PSNR is over R, G, B of the `dwebp` (or
/// `djpeg`) decode against that PPM, the same measure for every file.
/// - ours at q82: bytes, PSNR, in-process time (median of the runs, after a warm-up; thread
///   CPU time beside it, which is what to trust on a loaded machine).
/// - cwebp -m 4: `-q` bisected (7 steps over 0...100) to bracket our PSNR; bytes are
///   interpolated linearly between the bracketing points. Its time is the process at the
///   bracketing q, minus the start-up of cwebp on a 1×1 image (children's CPU time too).
/// - JPEG q82 (`JPEGEncoder`, 4:2:0): its bytes and PSNR; our quality is bisected the same way
///   to reach that PSNR, and our interpolated bytes there give the WebP/JPEG ratio.
/// Targets (the issue): bytes ≤ 1.10× cwebp, ≤ 0.75× JPEG q82, time ≤ 2× cwebp.
enum WebPEncodeBench {
    static func run(_ context: BenchContext) {
        let names = ["mate_Elephants_3840x2160.jpg", "lxqt_after-the-rain.jpg", "sddm_maldives_background.jpg", "lxqt_flowers.png"]
        let tiny = context.scratchDir + "/webp_1x1.ppm"
        let startupArgv = ["cwebp", "-quiet", "-m", "4", tiny, "-o", context.scratchDir + "/startup.webp"]
        guard let one = try? Bitmap(width: 1, height: 1, layout: .rgb), writePPM(one, to: tiny),
              let startup = measureProcess(startupArgv, runs: 5)
        else {
            print("webp-encode: skipped (cwebp is missing)")
            return
        }
        let startupCPU = childCPUSeconds { _ = measureProcess(startupArgv, runs: 5) } / 5
        var table = Table(title: "WebP encode: ours q82 vs cwebp -m 4 at equal PSNR (RGB), and vs our JPEG q82 (cwebp start-up \(ms(startup.medianSeconds)) ms wall, \(ms(startupCPU)) ms CPU subtracted)",
                          columns: ["image", "ours B", "PSNR", "ours ms", "CPU ms", "cwebp q", "cwebp B", "B ratio", "cwebp ms", "time ratio",
                                    "JPEG82 B", "JPEG PSNR", "ours B @JPEG PSNR", "vs JPEG"])
        for name in names {
            for edge in [480, 1920] {
                let label = "\(name.split(separator: "_").dropFirst().first ?? "")-\(edge)"
                let ppm = context.scratchDir + "/webp_\(label).ppm"
                guard measureProcess(["vipsthumbnail", context.photoDir + "/" + name, "-s", "\(edge)x\(edge)", "-o", ppm], runs: 1) != nil,
                      let source = readPPM(ppm) else {
                    print("webp-encode: skipped \(name) (vipsthumbnail failed)")
                    continue
                }
                guard let ours = try? WebPEncoder.encode(source, quality: 82),
                      let oursPSNR = webpPSNR(ours, source: source, context: context) else { continue }
                let (wall, cpu) = medianSeconds(runs: max(context.runs, edge == 480 ? 5 : 3)) {
                    _ = try? WebPEncoder.encode(source, quality: 82)
                }
                guard let theirs = cwebpAtPSNR(oursPSNR, ppm: ppm, source: source, context: context) else { continue }
                var measured: Measurement?
                let out = context.scratchDir + "/cwebp.webp"
                let theirCPU = childCPUSeconds {
                    measured = measureProcess(["cwebp", "-quiet", "-m", "4", "-q", String(format: "%.2f", theirs.q), ppm, "-o", out], runs: context.runs)
                } / Double(context.runs)
                let theirWall = max((measured?.medianSeconds ?? 0) - startup.medianSeconds, 1e-6)
                let theirCPUNet = max(theirCPU - startupCPU, 1e-6)

                let jpeg = (try? JPEGEncoder.encode(source, quality: 82, subsampling: .s420)) ?? []
                let jpegPSNR = jpegPSNR(jpeg, source: source, context: context) ?? 0
                let oursAtJPEG = oursAtPSNR(jpegPSNR, source: source, context: context)
                table.add([label, "\(ours.count)", String(format: "%.2f", oursPSNR), ms(wall), ms(cpu),
                           String(format: "%.1f", theirs.q), String(format: "%.0f", theirs.bytes),
                           String(format: "%.3f", Double(ours.count) / theirs.bytes),
                           ms(theirWall), String(format: "%.2fx wall, %.2fx CPU", wall / theirWall, cpu / theirCPUNet),
                           "\(jpeg.count)", String(format: "%.2f", jpegPSNR),
                           oursAtJPEG.map { String(format: "%.0f", $0) } ?? "-",
                           oursAtJPEG.map { String(format: "%.3f", $0 / Double(jpeg.count)) } ?? "-"])
            }
        }
        print(table.render(), terminator: "")
    }

    /// Bisects cwebp's quality to bracket `target` dB; returns the quality nearest to it and
    /// the bytes interpolated to exactly `target`.
    private static func cwebpAtPSNR(_ target: Double, ppm: String, source: Bitmap, context: BenchContext) -> (q: Double, bytes: Double)? {
        let out = context.scratchDir + "/cwebp_bisect.webp"
        func sample(_ q: Double) -> (bytes: Double, psnr: Double)? {
            guard measureProcess(["cwebp", "-quiet", "-m", "4", "-q", String(format: "%.2f", q), ppm, "-o", out], runs: 1) != nil,
                  let file = FileManager.default.contents(atPath: out),
                  let p = webpPSNR([UInt8](file), source: source, context: context) else { return nil }
            return (Double(file.count), p)
        }
        return bisect(target, sample)
    }

    /// Our bytes interpolated to `target` dB (integer qualities bisected).
    private static func oursAtPSNR(_ target: Double, source: Bitmap, context: BenchContext) -> Double? {
        func sample(_ q: Double) -> (bytes: Double, psnr: Double)? {
            guard let file = try? WebPEncoder.encode(source, quality: Int(q.rounded())),
                  let p = webpPSNR(file, source: source, context: context) else { return nil }
            return (Double(file.count), p)
        }
        return bisect(target, sample).map(\.bytes)
    }

    private static func bisect(_ target: Double, _ sample: (Double) -> (bytes: Double, psnr: Double)?) -> (q: Double, bytes: Double)? {
        var lo = 0.0, hi = 100.0
        guard var low = sample(lo), var high = sample(hi) else { return nil }
        if target <= low.psnr { return (lo, low.bytes) }
        if target >= high.psnr { return (hi, high.bytes) }
        for _ in 0..<7 {
            let mid = (lo + hi) / 2
            guard let m = sample(mid) else { return nil }
            if m.psnr < target { lo = mid; low = m } else { hi = mid; high = m }
        }
        let t = high.psnr == low.psnr ? 0 : (target - low.psnr) / (high.psnr - low.psnr)
        let q = abs(target - low.psnr) < abs(high.psnr - target) ? lo : hi
        return (q, low.bytes + t * (high.bytes - low.bytes))
    }

    private static func webpPSNR(_ file: [UInt8], source: Bitmap, context: BenchContext) -> Double? {
        let input = context.scratchDir + "/psnr.webp", output = context.scratchDir + "/psnr_webp.ppm"
        guard FileManager.default.createFile(atPath: input, contents: Data(file)),
              measureProcess(["dwebp", input, "-ppm", "-o", output], runs: 1) != nil,
              let decoded = readPPM(output) else { return nil }
        return psnr(source, decoded)
    }

    private static func jpegPSNR(_ file: [UInt8], source: Bitmap, context: BenchContext) -> Double? {
        let input = context.scratchDir + "/psnr.jpg", output = context.scratchDir + "/psnr_jpg.ppm"
        guard FileManager.default.createFile(atPath: input, contents: Data(file)),
              measureProcess(["djpeg", "-outfile", output, input], runs: 1) != nil,
              let decoded = readPPM(output) else { return nil }
        return psnr(source, decoded)
    }

    private static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double? {
        guard a.width == b.width, a.height == b.height, a.pixels.count == b.pixels.count else { return nil }
        var sse = 0.0
        a.pixels.withUnsafeBufferPointer { p in
            b.pixels.withUnsafeBufferPointer { q in
                for i in 0..<p.count {
                    let d = Double(Int(p[i]) - Int(q[i]))
                    sse += d * d
                }
            }
        }
        return sse == 0 ? 99 : 10 * log10(255 * 255 * Double(a.pixels.count) / sse)
    }
}
