import Foundation
import ImageCodec
import ImagePipeline

/// Cold 480 px thumbnails (JPEG q82) from originals on disk, each tool as a whole process:
/// ours (`gallery thumb`), vipsthumbnail, and Pillow (draft + LANCZOS thumbnail). Quality is
/// PSNR of each thumbnail against a full decode + Lanczos resize of the same original.
enum ThumbnailBench {
    static let size = 480

    /// Pillow's fast path: DCT-scaled draft, then a Lanczos thumbnail. argv: IN OUT.
    static let pillowThumb = """
    import sys
    from PIL import Image, ImageOps
    im = Image.open(sys.argv[1])
    im.draft('RGB', (480, 480))
    im = ImageOps.exif_transpose(im).convert('RGB')
    im.thumbnail((480, 480), Image.LANCZOS)
    im.save(sys.argv[2], quality=82)
    """

    /// argv: ORIGINAL THUMB...; prints one PSNR (dB) per thumbnail against a full decode of
    /// the original, oriented, resized with Lanczos to that thumbnail's size.
    static let psnrScript = """
    import sys, math
    from PIL import Image, ImageOps, ImageChops, ImageStat
    full = ImageOps.exif_transpose(Image.open(sys.argv[1])).convert('RGB')
    out = []
    for path in sys.argv[2:]:
        try:
            t = Image.open(path).convert('RGB')
        except Exception:
            out.append('nan'); continue
        ref = full.resize(t.size, Image.LANCZOS)
        st = ImageStat.Stat(ImageChops.difference(t, ref))
        mse = sum(st.sum2) / (3 * t.size[0] * t.size[1])
        out.append('%.2f' % (99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)))
    print(' '.join(out))
    """

    static func run(_ context: BenchContext) {
        let photos = context.photos([".jpg", ".jpeg", ".png"])
        guard !photos.isEmpty else {
            print("thumb: no JPEG/PNG photos in \(context.photoDir)")
            return
        }
        var table = Table(title: "thumb: cold \(size) px JPEG q82 from disk (whole process; peak RSS in MiB by /usr/bin/time; PSNR dB vs full decode + Lanczos)",
                          columns: ["photo", "ours ms", "vips ms", "pillow ms", "ours/vips", "ours/pillow",
                                    "ours RSS", "extra RSS", "vips RSS", "pillow RSS", "PSNR ours", "vips", "pillow"])
        let idle = peakRSSKiB([context.galleryBinary, "help"])
        var ratios: [Double] = []
        for photo in photos {
            let name = (photo as NSString).lastPathComponent
            let ours = context.scratchDir + "/ours.jpg"
            let vips = context.scratchDir + "/vips.jpg"
            let pillow = context.scratchDir + "/pillow.jpg"
            for f in [ours, vips, pillow] { try? FileManager.default.removeItem(atPath: f) }
            let o = measureProcess([context.galleryBinary, "thumb", photo, ours, "--size", String(size)], runs: context.runs)
            let v = measureProcess(["vipsthumbnail", photo, "--size", String(size), "-o", vips + "[Q=82]"], runs: context.runs)
            let p = measureProcess(["/usr/bin/python3", "-c", pillowThumb, photo, pillow], runs: context.runs)
            let psnrOut = context.scratchDir + "/psnr.txt"
            _ = measureProcess(["/usr/bin/python3", "-c", psnrScript, photo, ours, vips, pillow], runs: 1, stdoutPath: psnrOut)
            let psnr = ((try? String(contentsOfFile: psnrOut, encoding: .utf8)) ?? "")
                .split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
            func cell(_ m: Measurement?) -> String { m.map { ms($0.medianSeconds) } ?? "fail" }
            let oursRSS = peakRSSKiB([context.galleryBinary, "thumb", photo, ours, "--size", String(size)])
            let vipsRSS = peakRSSKiB(["vipsthumbnail", photo, "--size", String(size), "-o", vips + "[Q=82]"])
            let pillowRSS = peakRSSKiB(["/usr/bin/python3", "-c", pillowThumb, photo, pillow])
            func rss(_ kib: Int?) -> String { kib.map { mib($0) } ?? "-" }
            var extra = "-"
            if let oursRSS, let idle { extra = mib(oursRSS - idle) }
            if let o, let v { ratios.append(o.medianSeconds / v.medianSeconds) }
            table.add([name, cell(o), cell(v), cell(p),
                       o.flatMap { o in v.map { ratio(o.medianSeconds, $0.medianSeconds) } } ?? "-",
                       o.flatMap { o in p.map { ratio(o.medianSeconds, $0.medianSeconds) } } ?? "-",
                       rss(oursRSS), extra, rss(vipsRSS), rss(pillowRSS),
                       psnr.count > 0 ? psnr[0] : "-", psnr.count > 1 ? psnr[1] : "-", psnr.count > 2 ? psnr[2] : "-"])
        }
        print(table.render(), terminator: "")
        if let idle { print("idle `gallery help` peak RSS: \(mib(idle)) MiB (extra RSS = ours - idle)") }
        if !ratios.isEmpty {
            let geo = exp(ratios.map { log($0) }.reduce(0, +) / Double(ratios.count))
            print(String(format: "ours/vipsthumbnail geometric mean: %.2fx (target <= 0.70x)", geo))
        }
        headroomStudy(context, photos: photos)
        ColourCostBench.run(context)
    }

    /// Factors tried for `RenderOptions.decodeHeadroom`.
    static let headrooms: [Double] = [1.0, 1.25, 1.5, 2.0]

    /// How much the reduced-scale decode must exceed the target: in-process time of the JPEG
    /// q82 render, and PSNR against Pillow's full decode + Lanczos at the same output size, of
    /// a lossless PNG render (decode + resample alone) and of the JPEG q82 render.
    static func headroomStudy(_ context: BenchContext, photos: [String]) {
        var table = Table(title: "thumb headroom: \(size) px fit, in-process ms (JPEG q82), PSNR dB vs full decode + Lanczos of PNG / JPEG output",
                          columns: ["photo"] + headrooms.flatMap { ["x\($0)", "ms", "png", "jpg"] })
        let refScript = """
        import sys
        from PIL import Image, ImageOps
        im = ImageOps.exif_transpose(Image.open(sys.argv[1])).convert('RGB')
        im.resize((int(sys.argv[3]), int(sys.argv[4])), Image.LANCZOS).save(sys.argv[2])
        """
        for photo in photos {
            guard let bytes = try? ImagePipeline.readFile(photo) else { continue }
            var row = [(photo as NSString).lastPathComponent]
            var reference: Bitmap?
            for h in headrooms {
                let lossless = RenderOptions(decodeHeadroom: h, format: .png, allowPassthrough: false)
                let jpeg = RenderOptions(decodeHeadroom: h, format: .jpeg, allowPassthrough: false)
                var times: [Double] = []
                var last: RenderOutcome?
                for _ in 0..<max(1, context.runs) {
                    let start = DispatchTime.now().uptimeNanoseconds
                    last = try? Renderer.render(bytes, mode: .fit(maxEdge: size), options: jpeg)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                }
                guard let t = last, let ours = try? ImageCodec.decode(t.image.bytes).bitmap.converted(to: .rgb),
                      let png = try? Renderer.render(bytes, mode: .fit(maxEdge: size), options: lossless),
                      let oursPNG = try? ImageCodec.decode(png.image.bytes).bitmap.converted(to: .rgb) else {
                    row += ["fail", "-", "-", "-"]
                    continue
                }
                if reference == nil {
                    let refPath = context.scratchDir + "/reference.png"
                    _ = measureProcess(["/usr/bin/python3", "-c", refScript, photo, refPath, String(ours.width), String(ours.height)], runs: 1)
                    reference = (try? ImagePipeline.readFile(refPath)).flatMap { try? ImageCodec.decode($0).bitmap.converted(to: .rgb) }
                }
                times.sort()
                func db(_ b: Bitmap) -> String { reference.map { String(format: "%.2f", psnr($0, b)) } ?? "-" }
                row += [t.decodeScale?.description ?? "orig", ms(times[times.count / 2]), db(oursPNG), db(ours)]
            }
            table.add(row)
        }
        print(table.render(), terminator: "")
    }

    /// PSNR in dB over all samples of two same-shaped bitmaps; nan when the shapes differ.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        guard a.width == b.width, a.height == b.height, a.layout == b.layout else { return .nan }
        var sum = 0.0
        a.pixels.withUnsafeBufferPointer { pa in
            b.pixels.withUnsafeBufferPointer { pb in
                for i in 0..<pa.count {
                    let d = Double(pa[i]) - Double(pb[i])
                    sum += d * d
                }
            }
        }
        return sum == 0 ? 99 : 10 * log10(255 * 255 * Double(a.pixels.count) / sum)
    }
}
