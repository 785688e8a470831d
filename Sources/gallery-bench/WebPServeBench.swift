import Foundation
import ImageCodec
import ImagePipeline

/// Serving WebP (issue #15's "Done when"): what a list page weighs in WebP against JPEG, and
/// whether the WebP thumbnails are as good as their JPEG twins.
///
/// For every photo under the photo folder (albums are subfolders, as the gallery reads them):
/// the 240x240 and 480x480 covers (what list pages fetch at device scale 1 and 2) rendered as
/// the pipeline serves them, JPEG q82 and WebP with its quality chosen per render
/// (`WebPQualityMatch`, "auto"), and a reference of the same crop from a full-size decode + Lanczos-3 (no DCT-domain
/// shrink, lossless). PSNR (RGB) of each against the reference; a page's weight is the sum of
/// its thumbnails' bytes. A sweep over fixed WebP qualities shows why the quality is chosen per
/// render: no single one is both light and faithful.
/// Renders with transparency are left to the alpha table (they compare WebP with PNG).
enum WebPServeBench {
    static let covers = [240, 480]
    static let sweep = [80, 82, 85, 88]

    struct Row {
        var album: String
        var name: String
        var edge: Int
        var jpegBytes: Int
        var jpegPSNR: Double
        /// By WebP quality (0: chosen per render): bytes and PSNR.
        var webp: [Int: (bytes: Int, psnr: Double)]
    }

    static func run(_ context: BenchContext) {
        let files = photoFiles(context.photoDir)
        guard !files.isEmpty else { print("webp-serve: no photos under \(context.photoDir)"); return }
        let quality = 0
        var rows: [Row] = []
        for (album, path) in files {
            guard let bytes = try? ImagePipeline.readFile(path) else { continue }
            for edge in covers {
                let mode = ResizeMode.cover(width: edge, height: edge)
                guard let reference = try? Renderer.render(bytes, mode: mode, options: RenderOptions(decodeHeadroom: 1000, format: .png, allowPassthrough: false)),
                      let refBitmap = try? ImageCodec.decode(reference.image.bytes).bitmap, !refBitmap.hasTransparency,
                      let jpeg = try? Renderer.render(bytes, mode: mode, options: RenderOptions()),
                      let jpegBitmap = try? ImageCodec.decode(jpeg.image.bytes).bitmap else { continue }
                var row = Row(album: album, name: (path as NSString).lastPathComponent, edge: edge, jpegBytes: jpeg.image.bytes.count,
                              jpegPSNR: psnr(jpegBitmap, refBitmap), webp: [:])
                for q in Set(sweep + [quality]) {
                    var options = RenderOptions(format: .webp)
                    options.webpQuality = q == 0 ? nil : q
                    guard let webp = try? Renderer.render(bytes, mode: mode, options: options),
                          let bitmap = try? ImageCodec.decode(webp.image.bytes).bitmap else { continue }
                    row.webp[q] = (webp.image.bytes.count, psnr(bitmap, refBitmap))
                }
                rows.append(row)
            }
        }

        var table = Table(title: "webp-serve: covers as served, JPEG q82 vs WebP (quality per render); PSNR dB vs full decode + Lanczos",
                          columns: ["photo", "size", "JPEG bytes", "WebP bytes", "ratio", "JPEG dB", "WebP dB", "Δ dB"])
        for r in rows {
            guard let w = r.webp[quality] else { continue }
            table.add(["\(r.album)/\(r.name)", "\(r.edge)", "\(r.jpegBytes)", "\(w.bytes)", ratio(Double(w.bytes), Double(r.jpegBytes)),
                       String(format: "%.2f", r.jpegPSNR), String(format: "%.2f", w.psnr), String(format: "%+.2f", w.psnr - r.jpegPSNR)])
        }
        print(table.render(), terminator: "")

        var pages = Table(title: "webp-serve: list page weight (sum of its thumbnails), JPEG vs WebP (quality per render)",
                          columns: ["album", "scale", "photos", "JPEG bytes", "WebP bytes", "ratio", "worst Δ dB"])
        let albums = Array(Set(rows.map(\.album))).sorted()
        for edge in covers {
            for album in albums + ["(all)"] {
                let chosen = rows.filter { $0.edge == edge && (album == "(all)" || $0.album == album) && $0.webp[quality] != nil }
                guard !chosen.isEmpty else { continue }
                let jpeg = chosen.reduce(0) { $0 + $1.jpegBytes }, webp = chosen.reduce(0) { $0 + $1.webp[quality]!.bytes }
                let worst = chosen.map { $0.webp[quality]!.psnr - $0.jpegPSNR }.min() ?? 0
                pages.add([album, "\(edge / 240)x", "\(chosen.count)", "\(jpeg)", "\(webp)", ratio(Double(webp), Double(jpeg)),
                           String(format: "%+.2f", worst)])
            }
        }
        print(pages.render(), terminator: "")

        var knob = Table(title: "webp-serve: WebP quality sweep over all covers (ratio of summed bytes; PSNR delta per thumbnail)",
                         columns: ["quality", "bytes 1x", "bytes 2x", "worst Δ dB", "mean Δ dB", "thumbnails below -0.3 dB"])
        for q in sweep.sorted() + [0] {
            let chosen = rows.filter { $0.webp[q] != nil }
            guard !chosen.isEmpty else { continue }
            func share(_ edge: Int) -> String {
                let r = chosen.filter { $0.edge == edge }
                return ratio(Double(r.reduce(0) { $0 + $1.webp[q]!.bytes }), Double(r.reduce(0) { $0 + $1.jpegBytes }))
            }
            let deltas = chosen.map { $0.webp[q]!.psnr - $0.jpegPSNR }
            knob.add([q == 0 ? "per render" : "\(q)", share(240), share(480), String(format: "%+.2f", deltas.min() ?? 0),
                      String(format: "%+.2f", deltas.reduce(0, +) / Double(deltas.count)), "\(deltas.filter { $0 < -0.3 }.count) of \(deltas.count)"])
        }
        print(knob.render(), terminator: "")
        alphaTable(files.map(\.path), quality: PipelineConfiguration.defaultWebPQuality)
    }

    /// Renders with transparency: lossy WebP (lossless alpha) against PNG, on a photograph
    /// given a soft round mask and on a flat graphic (few colours, hard edges), 480 px.
    static func alphaTable(_ paths: [String], quality: Int) {
        var table = Table(title: "webp-serve: renders with transparency, 480 px (the .webp URL sends the smaller)",
                          columns: ["image", "PNG bytes", "WebP bytes", "WebP/PNG", "sent"])
        var samples: [(String, Bitmap)] = []
        if let path = paths.first, let bytes = try? ImagePipeline.readFile(path),
           let t = try? Renderer.render(bytes, mode: .cover(width: 480, height: 480), options: RenderOptions(format: .png, allowPassthrough: false)),
           let photo = try? ImageCodec.decode(t.image.bytes).bitmap {
            samples.append(("photo, round soft mask", masked(photo)))
        }
        if let flat = flatGraphic(480) { samples.append(("flat graphic, 6 colours", flat)) }
        for (label, bitmap) in samples {
            guard let png = try? PNGEncoder.encode(bitmap), let webp = try? WebPEncoder.encode(bitmap, quality: quality) else { continue }
            table.add([label, "\(png.count)", "\(webp.count)", ratio(Double(webp.count), Double(png.count)), webp.count <= png.count ? "WebP" : "PNG"])
        }
        print(table.render(), terminator: "")
    }

    static func masked(_ rgb: Bitmap) -> Bitmap {
        let w = rgb.width, h = rgb.height
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * rgb.rowBytes + x * rgb.channels, o = (y * w + x) * 4
                for c in 0..<3 { out[o + c] = rgb.pixels[i + min(c, rgb.channels - 1)] }
                let dx = Double(x - w / 2) / Double(w / 2), dy = Double(y - h / 2) / Double(h / 2)
                let d = (dx * dx + dy * dy).squareRoot()
                out[o + 3] = UInt8(max(0, min(255, (1.1 - d) * 5 * 255)))
            }
        }
        return (try? Bitmap(width: w, height: h, layout: .rgba, pixels: out)) ?? rgb
    }

    static func flatGraphic(_ n: Int) -> Bitmap? {
        let colours: [[UInt8]] = [[220, 40, 40, 255], [40, 120, 220, 255], [250, 200, 30, 255], [30, 30, 30, 255], [255, 255, 255, 200], [0, 0, 0, 0]]
        var out = [UInt8](repeating: 0, count: n * n * 4)
        for y in 0..<n {
            for x in 0..<n {
                let band = ((x / 40) + (y / 60)) % 5
                let inCircle = (x - n / 2) * (x - n / 2) + (y - n / 2) * (y - n / 2) < (n / 3) * (n / 3)
                let c = inCircle ? colours[band] : colours[5]
                out.replaceSubrange((y * n + x) * 4..<(y * n + x) * 4 + 4, with: c)
            }
        }
        return try? Bitmap(width: n, height: n, layout: .rgba, pixels: out)
    }

    /// (album, path) of every photo under `root`: the album is the folder relative to it.
    static func photoFiles(_ root: String) -> [(album: String, path: String)] {
        let extensions = ["jpg", "jpeg", "png", "webp", "heic", "heif", "hif"]
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var out: [(String, String)] = []
        while let relative = walker.nextObject() as? String {
            guard extensions.contains((relative as NSString).pathExtension.lowercased()) else { continue }
            let folder = (relative as NSString).deletingLastPathComponent
            out.append((folder.isEmpty ? "." : folder, root + "/" + relative))
        }
        return out.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// PSNR over the RGB samples (gray bitmaps compared as gray), in dB; 99 when identical.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        guard a.width == b.width, a.height == b.height else { return 0 }
        let ra = a.channels >= 3 ? a : a.converted(to: .rgb), rb = b.channels >= 3 ? b : b.converted(to: .rgb)
        var sum = 0.0, count = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                for c in 0..<3 {
                    let d = Double(ra.pixels[y * ra.rowBytes + x * ra.channels + c]) - Double(rb.pixels[y * rb.rowBytes + x * rb.channels + c])
                    sum += d * d
                    count += 1
                }
            }
        }
        guard sum > 0 else { return 99 }
        return 10 * log10(255 * 255 / (sum / Double(count)))
    }
}
