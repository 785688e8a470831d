import Foundation
import ImageCodec
import Testing
@testable import ImagePipeline

/// The colour stage inside renders: wide-gamut sources come out as sRGB (or Display P3 with a
/// profile in wide mode), sRGB sources are untouched, a broken profile costs a warning only.
@Suite struct ColourStageTests {
    static let wide = ["adobe_rgb.png", "display_p3.png", "prophoto.png", "lut_mab.png", "cmyk_fogra39.jpg"]

    static func png(_ name: String, edge: Int = 32, colour: ColourOutput = .srgb) throws -> (Bitmap, RenderOutcome) {
        let options = RenderOptions(format: .png, allowPassthrough: false, colour: colour)
        let t = try Renderer.render(try fixtureBytes("colour/" + name), mode: .fit(maxEdge: edge), options: options)
        return (try ImageCodec.decode(t.image.bytes).bitmap.converted(to: .rgb), t)
    }

    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        var sum = 0.0
        for i in 0..<a.pixels.count {
            let d = Double(a.pixels[i]) - Double(b.pixels[i])
            sum += d * d
        }
        return sum == 0 ? 99 : 10 * log10(255 * 255 * Double(a.pixels.count) / sum)
    }

    @Test(arguments: wide)
    func wideSourcesRenderLikeTheSRGBOriginal(_ name: String) throws {
        let (reference, _) = try Self.png("source_srgb.png")
        let (ours, t) = try Self.png(name)
        #expect(t.warnings.isEmpty)
        #expect(try ImageCodec.probe(t.image.bytes).iccProfile == nil)
        // The same pixels with the profile ignored: what renders looked like before.
        var info = try ImageCodec.probe(try fixtureBytes("colour/" + name))
        info.iccProfile = nil
        let before = try ImageCodec.decode(try fixtureBytes("colour/" + name)).bitmap.converted(to: .rgb)
        let beforeSmall = try Resampler.resize(before, width: ours.width, height: ours.height)
        let managed = Self.psnr(ours, reference), unmanaged = Self.psnr(beforeSmall, reference)
        print(String(format: "colour render %@: PSNR vs sRGB original %.2f dB managed, %.2f dB ignoring the profile", name, managed, unmanaged))
        // A CMYK press gamut cannot hold the source's saturated colours (the ΔE tests check
        // CMYK against lcms2): only the gain is asserted there.
        if !name.hasSuffix(".jpg") { #expect(managed > 38) }
        #expect(managed > unmanaged + 2)
    }

    @Test func wideModeEmbedsDisplayP3() throws {
        let (_, adobe) = try Self.png("adobe_rgb.png", colour: .wide)
        #expect(try ImageCodec.probe(adobe.image.bytes).iccProfile == ColourTransform.displayP3Profile)
        let jpeg = try Renderer.render(try fixtureBytes("colour/display_p3.png"), mode: .fit(maxEdge: 32),
                                          options: RenderOptions(format: .jpeg, allowPassthrough: false, colour: .wide))
        let info = try ImageCodec.probe(jpeg.image.bytes)
        #expect(info.iccProfile == ColourTransform.displayP3Profile)
        #expect(info.colourSpaceName == "Display P3")
        let (_, gray) = try Self.png("gray.png", colour: .wide)
        #expect(try ImageCodec.probe(gray.image.bytes).iccProfile == nil)
    }

    @Test func sRGBSourcesAreUntouched() throws {
        let bytes = try fixtureBytes("colour/srgb_tagged.png")
        let plan = ColourStage.plan(for: try ImageCodec.probe(bytes), output: .wide)
        #expect(plan.transform == nil && plan.warnings.isEmpty)
        let tagged = try Self.png("srgb_tagged.png").0, plain = try Self.png("source_srgb.png").0
        #expect(tagged == plain)
    }

    @Test func brokenProfileFallsBackWithAWarning() throws {
        // adobe_rgb.png with its profile's colorant tag pointed past the end.
        var info = try ImageCodec.probe(try fixtureBytes("colour/adobe_rgb.png"))
        var profile = try #require(info.iccProfile)
        profile.replaceSubrange(0..<4, with: [0, 0, 0, 200])
        let bitmap = try ImageCodec.decode(try fixtureBytes("colour/source_srgb.png")).bitmap
        let bytes = try PNGEncoder.encode(bitmap, iccProfile: profile)
        let t = try Renderer.render(bytes, mode: .fit(maxEdge: 32), options: RenderOptions(format: .png, allowPassthrough: false))
        #expect(t.warnings.count == 1)
        #expect(t.warnings.first?.contains("colour management skipped") == true)
        info.iccProfile = profile
        #expect(ColourStage.plan(for: info, output: .srgb).warnings.count == 1)
    }

    /// Colour accuracy against vipsthumbnail's colour-managed thumbnails: each tool's render of
    /// a wide-gamut fixture is compared with the same tool's render of the sRGB original, so
    /// only the colour conversion differs.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/vipsthumbnail")), arguments: wide)
    func colourAccuracyLikeVips(_ name: String) throws {
        let dir = makeTempDir("colour-vips")
        defer { try? FileManager.default.removeAllItems(atPath: dir) }
        func vips(_ file: String) throws -> Bitmap {
            let out = dir + "/" + file + ".png"
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/vipsthumbnail")
            p.arguments = [fixturesDir + "/colour/" + file, "--size", "32", "--export-profile", "srgb", "-o", out]
            try p.run()
            p.waitUntilExit()
            return try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))).bitmap.converted(to: .rgb)
        }
        let oursDB = Self.psnr(try Self.png(name).0, try Self.png("source_srgb.png").0)
        let vipsDB = Self.psnr(try vips(name), try vips("source_srgb.png"))
        print(String(format: "colour vs vips %@: ours %.2f dB, vipsthumbnail %.2f dB", name, oursDB, vipsDB))
        #expect(oursDB >= vipsDB - 0.5)
    }
}

private extension FileManager {
    func removeAllItems(atPath path: String) throws { try removeItem(atPath: path) }
}
