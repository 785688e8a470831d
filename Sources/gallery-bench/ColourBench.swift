import Foundation
import ImageCodec
import ImagePipeline

/// Colour management: what the colour stage adds to a 480 px render of the largest JPEG (made
/// Adobe RGB with lcms2's jpgicc), and how close wide-gamut renders get to the sRGB original
/// next to vipsthumbnail's colour-managed ones (PSNR against Pillow's full decode + Lanczos of
/// the sRGB original at the thumbnail's size).
enum ColourBench {
    static let size = 480

    /// (label, profile path) made from the original with `jpgicc -t1 -e -q95`.
    static func profiles(_ scratch: String) -> [(String, String)] {
        let p3 = scratch + "/display-p3.icc"
        _ = FileManager.default.createFile(atPath: p3, contents: Data(ColourTransform.displayP3Profile))
        return [("Adobe RGB", "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"), ("Display P3", p3),
                ("ProPhoto RGB", "/usr/share/color/icc/ghostscript/rommrgb.icc")]
    }

    static func run(_ context: BenchContext) {
        let photos = context.photos([".jpg", ".jpeg"]).sorted { pixels($0) > pixels($1) }
        guard let photo = photos.first else { print("colour: no JPEG photos in \(context.photoDir)"); return }
        let name = (photo as NSString).lastPathComponent
        var table = Table(title: "colour: \(name) (\(String(format: "%.1f", Double(pixels(photo)) / 1e6)) MP) made wide with jpgicc; \(size) px JPEG q82; PSNR dB vs the sRGB original",
                          columns: ["source", "render ms", "colour ms", "colour %", "build ms", "PSNR ours", "vips", "profile ignored"])
        for (label, icc) in profiles(context.scratchDir) {
            let wide = context.scratchDir + "/colour-wide.jpg"
            guard measureProcess(["jpgicc", "-t1", "-e", "-q95", "-o" + icc, photo, wide], runs: 1) != nil,
                  let bytes = try? ImagePipeline.readFile(wide), let info = try? ImageCodec.probe(bytes) else {
                table.add([label, "jpgicc failed"]); continue
            }
            let options = RenderOptions(format: .jpeg, allowPassthrough: false)
            ColourStage.clearCache()
            let buildStart = DispatchTime.now().uptimeNanoseconds
            _ = ColourStage.plan(for: info, output: .srgb)
            let build = seconds(since: buildStart)
            var renders: [Double] = [], stages: [Double] = []
            var last: RenderOutcome?
            for _ in 0..<max(1, context.runs) {
                let start = DispatchTime.now().uptimeNanoseconds
                last = try? Renderer.render(bytes, mode: .fit(maxEdge: size), options: options)
                renders.append(seconds(since: start))
                // The stage alone on a bitmap of the output size: cached plan + conversion.
                guard let t = last, var bitmap = try? ImageCodec.decode(t.image.bytes).bitmap else { continue }
                let s = DispatchTime.now().uptimeNanoseconds
                var plan = ColourStage.plan(for: info, output: .srgb)
                plan.apply(to: &bitmap)
                stages.append(seconds(since: s))
            }
            guard let ours = last, !stages.isEmpty else { table.add([label, "render failed"]); continue }
            let oursPath = context.scratchDir + "/colour-ours.jpg", vipsPath = context.scratchDir + "/colour-vips.jpg"
            let plainPath = context.scratchDir + "/colour-ignored.jpg"
            _ = FileManager.default.createFile(atPath: oursPath, contents: Data(ours.image.bytes))
            if let plain = try? Renderer.render(stripICC(bytes), mode: .fit(maxEdge: size), options: options) {
                _ = FileManager.default.createFile(atPath: plainPath, contents: Data(plain.image.bytes))
            }
            _ = measureProcess(["vipsthumbnail", wide, "--size", String(size), "--export-profile", "srgb", "-o", vipsPath + "[Q=82]"], runs: 1)
            let psnrOut = context.scratchDir + "/colour-psnr.txt"
            _ = measureProcess(["/usr/bin/python3", "-c", ThumbnailBench.psnrScript, photo, oursPath, vipsPath, plainPath], runs: 1, stdoutPath: psnrOut)
            let psnr = ((try? String(contentsOfFile: psnrOut, encoding: .utf8)) ?? "").split(separator: " ")
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            renders.sort(); stages.sort()
            let render = renders[renders.count / 2], stage = stages[stages.count / 2]
            table.add([label, ms(render), String(format: "%.2f", stage * 1000), String(format: "%.2f", 100 * stage / render),
                       ms(build), psnr.count > 0 ? psnr[0] : "-", psnr.count > 1 ? psnr[1] : "-", psnr.count > 2 ? psnr[2] : "-"])
        }
        // The untouched sRGB original: the stage is a lookup that finds nothing to do.
        if let bytes = try? ImagePipeline.readFile(photo), let info = try? ImageCodec.probe(bytes),
           let t = try? Renderer.render(bytes, mode: .fit(maxEdge: size), options: RenderOptions(format: .jpeg, allowPassthrough: false)),
           var bitmap = try? ImageCodec.decode(t.image.bytes).bitmap {
            let s = DispatchTime.now().uptimeNanoseconds
            var plan = ColourStage.plan(for: info, output: .srgb)
            plan.apply(to: &bitmap)
            table.add(["sRGB (original)", "-", String(format: "%.3f", seconds(since: s) * 1000), "0", "-", "-", "-", "-"])
        }
        print(table.render(), terminator: "")
        print("colour %: the stage's time over the whole in-process render (target <= 5 %); build: first use of a profile (then cached)")
    }

    static func pixels(_ path: String) -> Int {
        guard let bytes = try? ImagePipeline.readFile(path), let info = try? ImageCodec.probe(bytes) else { return 0 }
        return info.width * info.height
    }

    static func seconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    /// The JPEG without its APP2 segments: the same pixels, shown as if untagged.
    static func stripICC(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = Array(bytes.prefix(2))
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xDA {
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if bytes[i + 1] != 0xE2 { out += bytes[i..<min(bytes.count, i + 2 + length)] }
            i += 2 + length
        }
        out += bytes[min(i, bytes.count)...]
        return out
    }
}
