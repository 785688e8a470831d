import Foundation
import ImageCodec
import ImagePipeline

/// What colour management adds to a thumbnail (part of the `thumb` section, issue #13's target
/// of at most 5 % on an Adobe RGB 20 MP photo and nothing on sRGB).
///
/// The largest bench JPEG is scaled to 20 MP and converted to Adobe RGB (1998) by Pillow's
/// ImageCms (lcms2), saved with the profile; its sRGB twin is the same scaling without the
/// conversion. Each is rendered in process to a 480 px JPEG q82 as the pipeline does, and the
/// Adobe RGB file once more with its profile removed (the same decode, no colour stage). The
/// colour stage's own time (plan from the cache + conversion at the output size) is timed on
/// the rendered bitmap, as the renderer runs it.
enum ColourCostBench {
    static let megapixels = 20.0
    static let adobeProfile = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"

    static let makeScript = """
    import sys, math
    from PIL import Image, ImageCms
    src, srgb_out, adobe_out, profile, mp = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
    im = Image.open(src).convert('RGB')
    k = math.sqrt(mp * 1e6 / (im.width * im.height))
    im = im.resize((round(im.width * k), round(im.height * k)), Image.LANCZOS)
    im.save(srgb_out, quality=90)
    icc = open(profile, 'rb').read()
    wide = ImageCms.profileToProfile(im, ImageCms.createProfile('sRGB'), ImageCms.ImageCmsProfile(profile),
                                     renderingIntent=1, outputMode='RGB')
    wide.save(adobe_out, quality=90, icc_profile=icc)
    """

    static func run(_ context: BenchContext) {
        let photos = context.photos([".jpg", ".jpeg"]).sorted { ColourBench.pixels($0) > ColourBench.pixels($1) }
        guard let photo = photos.first, FileManager.default.fileExists(atPath: adobeProfile) else {
            print("thumb colour: needs a JPEG photo and \(adobeProfile) (icc-profiles-free)")
            return
        }
        let srgbPath = context.scratchDir + "/colour-cost-srgb.jpg", adobePath = context.scratchDir + "/colour-cost-adobe.jpg"
        guard measureProcess(["/usr/bin/python3", "-c", makeScript, photo, srgbPath, adobePath, adobeProfile, String(megapixels)], runs: 1) != nil,
              let srgb = try? ImagePipeline.readFile(srgbPath), let adobe = try? ImagePipeline.readFile(adobePath),
              let info = try? ImageCodec.probe(adobe) else {
            print("thumb colour: could not make the 20 MP Adobe RGB photo (Pillow with littlecms2 needed)")
            return
        }
        let stripped = ColourBench.stripICC(adobe)
        var table = Table(title: "thumb colour: \((photo as NSString).lastPathComponent) scaled to \(info.width)x\(info.height) (\(String(format: "%.1f", Double(info.width * info.height) / 1e6)) MP); 480 px JPEG q82 in process, median of \(max(1, context.runs))",
                          columns: ["source", "render ms", "same, profile removed", "colour stage ms", "stage % of render"])
        for (label, bytes) in [("Adobe RGB (1998)", adobe), ("sRGB (no profile)", srgb)] {
            let options = RenderOptions(format: .jpeg, allowPassthrough: false)
            ColourStage.clearCache()
            guard let probe = try? ImageCodec.probe(bytes) else { continue }
            _ = ColourStage.plan(for: probe, output: .srgb)  // built once, as a server keeps it
            let render = median(context.runs) { _ = try? Renderer.render(bytes, mode: .fit(maxEdge: 480), options: options) }
            let plain = label.hasPrefix("Adobe")
                ? ms(median(context.runs) { _ = try? Renderer.render(stripped, mode: .fit(maxEdge: 480), options: options) }) : "-"
            guard let t = try? Renderer.render(bytes, mode: .fit(maxEdge: 480), options: RenderOptions(format: .png, allowPassthrough: false)),
                  let bitmap = try? ImageCodec.decode(t.image.bytes).bitmap else { continue }
            let stage = median(max(5, context.runs)) {
                var copy = bitmap
                var plan = ColourStage.plan(for: probe, output: .srgb)
                plan.apply(to: &copy)
            }
            table.add([label, ms(render), plain, String(format: "%.3f", stage * 1000), String(format: "%.2f", 100 * stage / render)])
        }
        print(table.render(), terminator: "")
        print("target: the colour stage at most 5 % of the thumbnail time on Adobe RGB, nothing on sRGB (a cache lookup that finds no transform)")
    }

    static func median(_ runs: Int, _ body: () -> Void) -> Double {
        var times: [Double] = []
        for _ in 0..<max(1, runs) {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        times.sort()
        return times[times.count / 2]
    }
}
