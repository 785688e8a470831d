import Foundation
import Testing
@testable import ImageCodec

/// Our conversion to sRGB against lcms2's (relative colorimetric, no black point compensation),
/// per source profile; see Tests/Fixtures/colour/tools/make_colour_fixtures.py.
@Suite struct ColourConversionTests {
    static let fixtures = ["adobe_rgb.png", "display_p3.png", "prophoto.png", "lut_mab.png", "lut_mft1.png",
                           "lut_mft2.png", "gray.png", "gray_linear.png", "cmyk_fogra39.jpg"]

    /// Decodes `name` and converts it to sRGB (CMYK inside the decoder).
    static func converted(_ name: String, output: ColourOutput = .srgb) throws -> (Bitmap, ColourTransform) {
        let bytes = try ColourFixtures.bytes(name)
        let info = try ImageCodec.probe(bytes)
        guard let transform = try ColourTransform.make(for: info, output: output) else { throw FixtureError("\(name): no transform") }
        var bitmap = try ImageCodec.decode(bytes, cmyk: transform).bitmap
        if !transform.convertsCMYK { try transform.apply(to: &bitmap) }
        return (bitmap, transform)
    }

    /// Against lcms2 evaluated exactly (cmsFLAGS_NOOPTIMIZE) and as jpgicc runs it (its
    /// precalculated 8-bit transform, whose own error is up to 8 levels on the CMYK fixture and
    /// large in the darks of a linear gray: a 33-node 1-D table).
    @Test(arguments: fixtures)
    func matchesLcms2(_ name: String) throws {
        let (bitmap, _) = try Self.converted(name)
        let ours = bitmap.converted(to: .rgb)
        let stem = name.replacingOccurrences(of: ".png", with: "").replacingOccurrences(of: ".jpg", with: "")
        let exact = DeltaE.compare(ours, try ColourFixtures.rgb(stem + ".exact.png"))
        let jpgicc = DeltaE.compare(ours, try ColourFixtures.rgb(stem + ".ref.png"))
        print(String(format: "colour ΔE2000 %-16@ vs lcms2 exact: mean %.3f max %.3f | vs lcms2 precalculated (jpgicc): mean %.3f max %.3f  (%d px)",
                     name as NSString, exact.mean, exact.max, jpgicc.mean, jpgicc.max, exact.pixels))
        #expect(exact.pixels > 3000)
        #expect(exact.mean <= 0.5)
        #expect(exact.max <= 2)
        if name != "gray_linear.png" { #expect(jpgicc.mean <= 0.5) }
    }

    @Test func sRGBSourcesAreLeftAlone() throws {
        #expect(try ColourTransform.make(for: ImageCodec.probe(ColourFixtures.bytes("srgb_tagged.png"))) == nil)
        #expect(try ColourTransform.make(for: ImageCodec.probe(ColourFixtures.bytes("source_srgb.png"))) == nil)
        #expect(try ColourTransform.make(profile: DisplayP3Profile.bytes) != nil)
        let srgbNclx = ImageInfo(format: .heif, width: 1, height: 1, components: 3, hasAlpha: false, bitDepth: 8,
                                 progressive: false, colorSpace: "RGB",
                                 codePoints: ColourCodePoints(primaries: 1, transfer: 13, matrix: 6, fullRange: true))
        #expect(try ColourTransform.make(for: srgbNclx) == nil)
    }

    @Test func namesColourSpaces() throws {
        func name(_ file: String) throws -> String? { try ImageCodec.probe(ColourFixtures.bytes(file)).colourSpaceName }
        #expect(try name("adobe_rgb.png") == "Adobe RGB")
        #expect(try name("display_p3.png") == "Display P3")
        #expect(try name("prophoto.png") == "ProPhoto RGB")
        #expect(try name("srgb_tagged.png") == "sRGB")
        #expect(try name("source_srgb.png") == nil)
        #expect(try name("lut_mab.png") == "LUT-only Adobe RGB (mAB)")
        #expect(try name("cmyk_fogra39.jpg")?.isEmpty == false)
        var info = try ImageCodec.probe(ColourFixtures.bytes("source_srgb.png"))
        info.codePoints = ColourCodePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true)
        #expect(info.colourSpaceName == "Display P3")
    }

    @Test func ourDisplayP3ProfileIsCompactAndMatchesApples() throws {
        let ours = try ICCProfile(DisplayP3Profile.bytes)
        let apple = try ICCProfile(ColourFixtures.profile("display_p3.png"))
        #expect(DisplayP3Profile.bytes.count < 600)
        #expect(ours.majorVersion == 4 && ours.description == "Display P3")
        let d = try #require(ours.colorants).distance(to: try #require(apple.colorants))
        print(String(format: "colour: our P3 profile %d bytes, colorants within %.6f of Apple's", DisplayP3Profile.bytes.count, d))
        #expect(d < 0.0005)
        #expect(ours.curves.allSatisfy { $0.isClose(to: apple.curves[0], tolerance: 1.0 / 1024) })
    }

    /// Wide mode keeps Adobe RGB in P3; reading those pixels back through our P3 profile gives
    /// what lcms2 gives for the original (in-gamut pixels).
    @Test func wideModeKeepsDisplayP3() throws {
        let (p3, transform) = try Self.converted("adobe_rgb.png", output: .wide)
        #expect(transform.destination == .displayP3)
        #expect(transform.outputProfile == DisplayP3Profile.bytes)
        var back = p3
        try #require(try ColourTransform.make(profile: DisplayP3Profile.bytes)).apply(to: &back)
        let d = DeltaE.compare(back, try ColourFixtures.rgb("adobe_rgb.ref.png"))
        print(String(format: "colour: Adobe RGB → our P3 → sRGB vs lcms2: mean %.3f max %.3f", d.mean, d.max))
        #expect(d.mean <= 0.6)
        // Narrow and gray sources stay sRGB in wide mode.
        #expect(try Self.converted("gray.png", output: .wide).1.destination == .srgb)
    }

    @Test func pngChromaticitiesAndGamma() throws {
        var info = try ImageCodec.probe(ColourFixtures.bytes("adobe_rgb.png"))
        info.iccProfile = nil
        info.chromaticities = .adobeRGB
        info.gamma = 256.0 / 563
        var fromChunks = try ImageCodec.decode(ColourFixtures.bytes("adobe_rgb.png")).bitmap
        try #require(try ColourTransform.make(for: info)).apply(to: &fromChunks)
        let d = DeltaE.compare(fromChunks, try ColourFixtures.rgb("adobe_rgb.ref.png"))
        print(String(format: "colour: Adobe RGB from cHRM+gAMA vs lcms2 ICC: mean %.3f max %.3f", d.mean, d.max))
        #expect(d.mean <= 0.5 && d.max <= 2)
        info.chromaticities = nil
        info.gamma = 0.45455
        #expect(try ColourTransform.make(for: info) == nil)
        info.gamma = 1.0
        #expect(try ColourTransform.make(for: info) != nil)
    }

    @Test func encodersEmbedProfiles() throws {
        let bitmap = try ColourFixtures.rgb("source_srgb.png")
        let p3 = DisplayP3Profile.bytes
        #expect(try ImageCodec.probe(JPEGEncoder.encode(bitmap, iccProfile: p3)).iccProfile == p3)
        #expect(try ImageCodec.probe(PNGEncoder.encode(bitmap, iccProfile: p3)).iccProfile == p3)
        #expect(try ImageCodec.probe(JPEGEncoder.encode(bitmap)).iccProfile == nil)
        // A profile larger than one APP2 segment is split and joined again.
        let big = try ColourFixtures.profile("cmyk_fogra39.jpg") + [UInt8](repeating: 7, count: 100_000)
        #expect(try ImageCodec.probe(JPEGEncoder.encode(bitmap, iccProfile: big)).iccProfile == big)
    }
}
