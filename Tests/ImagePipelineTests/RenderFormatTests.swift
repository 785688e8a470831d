import Foundation
import ImageCodec
import Testing
@testable import ImagePipeline

/// Render variants that enter the URL: the format (`.webp`) and the colour mode (a "-p3"
/// version suffix). Each must have its own cache entry and validator, and nothing else may
/// change between them.
@Suite struct RenderFormatTests {
    @Test func formatsSplitFromTheSizeSegment() {
        #expect(RenderFormat.split("480x480")! == ("480x480", .standard))
        #expect(RenderFormat.split("480x480.webp")! == ("480x480", .webp))
        for bad in ["480.jpg", "480.WEBP", "480.webp.webp", "480.", "480..webp"] {
            #expect(RenderFormat.split(bad) == nil, "\(bad)")
        }
        #expect(RenderFormat(rawValue: "jpeg") == .standard && RenderFormat(rawValue: "webp") == .webp)
    }

    @Test func webpHasItsOwnCacheEntryAndValidator() throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("webp")))
        let url = "file://" + fixturesDir + "/jpeg/generated/flower_420_q75.jpg"
        let spec = SizeSpec(mode: .cover(width: 120, height: 120))
        let jpeg = try pipeline.render(url: url, spec: spec)
        let webp = try pipeline.render(url: url, spec: spec, format: .webp)
        #expect(jpeg.contentType == "image/jpeg" && webp.contentType == "image/webp")
        #expect(Array(webp.bytes.prefix(4)) == Array("RIFF".utf8))
        #expect(jpeg.etag != webp.etag)
        let version = try pipeline.version(url: url)
        #expect(jpeg.etag == ImagePipeline.etag(version: version, spec: spec))
        #expect(webp.etag == ImagePipeline.etag(version: version, spec: spec, format: .webp))
        #expect(webp.etag == "\"\(version)-120x120.webp-\(ImagePipeline.renderTag)\"")
        // Both stay cached side by side.
        #expect(pipeline.engine.renderCache.count == 2)
        #expect(try pipeline.render(url: url, spec: spec, format: .webp).bytes == webp.bytes)
        #expect(try pipeline.render(url: url, spec: spec).bytes == jpeg.bytes)
        #expect(pipeline.engine.renderCache.count == 2)
        let a = try ImageCodec.decode(jpeg.bytes).bitmap, b = try ImageCodec.decode(webp.bytes).bitmap
        #expect(a.width == b.width && a.height == b.height)
    }

    /// With transparency the `.webp` render is lossy WebP with alpha where that is smaller, and
    /// PNG (lossless, so no worse) where PNG is smaller.
    @Test func transparentRendersTakeTheSmallerOfWebPAndPNG() throws {
        var photo = try Bitmap(width: 320, height: 240, layout: .rgba, pixels: [UInt8](repeating: 0, count: 320 * 240 * 4))
        var flat = photo
        var rng = SplitMix(seed: 7)
        for y in 0..<240 {
            for x in 0..<320 {
                let i = (y * 320 + x) * 4
                // Photo-like: gradients plus fine noise, a soft alpha edge.
                photo.pixels[i] = UInt8(truncatingIfNeeded: x * 255 / 319 &+ Int(rng.next() % 24))
                photo.pixels[i + 1] = UInt8(truncatingIfNeeded: y &+ Int(rng.next() % 24))
                photo.pixels[i + 2] = UInt8(truncatingIfNeeded: (x &+ y) / 3 &+ Int(rng.next() % 24))
                photo.pixels[i + 3] = UInt8(max(0, min(255, 400 - abs(x - 160) * 3)))
                // Flat: two colours, hard alpha.
                let inside = x > 80 && x < 240
                flat.pixels[i] = inside ? 200 : 0
                flat.pixels[i + 1] = 40
                flat.pixels[i + 2] = inside ? 40 : 0
                flat.pixels[i + 3] = inside ? 255 : 0
            }
        }
        for (name, bitmap, expected) in [("photo", photo, "image/webp"), ("flat", flat, "image/png")] {
            let source = try PNGEncoder.encode(bitmap)
            var options = RenderOptions(format: .webp, allowPassthrough: false)
            options.webpQuality = 82  // fixed: the choice between WebP and PNG is what is tested
            let t = try Renderer.render(source, mode: .fit(maxEdge: 160), options: options)
            let png = try PNGEncoder.encode(try ImageCodec.decode(t.image.bytes).bitmap)
            print("transparent \(name): \(t.image.contentType) \(t.image.bytes.count) bytes (PNG of the same pixels: \(png.count))")
            #expect(t.image.contentType == expected, "\(name)")
            let shown = try ImageCodec.decode(t.image.bytes).bitmap
            #expect(shown.hasTransparency, "\(name) lost its alpha")
        }
    }

    @Test func wideColourModeEntersTheVersionOnly() throws {
        var config = testConfiguration(cacheDir: makeTempDir("wide"))
        config.colour = .wide
        let wide = ImagePipeline(configuration: config)
        let srgb = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("srgb")))
        let plain = "file://" + fixturesDir + "/jpeg/generated/flower_420_q75.jpg"
        let adobe = "file://" + fixturesDir + "/colour/adobe_rgb.png"
        let spec = SizeSpec(mode: .fit(maxEdge: 480))
        let version = try srgb.version(url: plain)
        #expect(try wide.version(url: plain) == version + "-p3")
        #expect(wide.knownVersion(url: plain) == version + "-p3")
        for format in RenderFormat.allCases {
            // An sRGB source: the same bytes in both modes, under different versions and validators.
            let a = try srgb.render(url: plain, spec: spec, format: format), b = try wide.render(url: plain, spec: spec, format: format)
            #expect(a.bytes == b.bytes, "\(format)")
            #expect(b.version == version + "-p3" && a.version == version)
            #expect(a.etag != b.etag)
            // A wide source keeps Display P3 with our profile in wide mode, none in sRGB mode.
            let w = try wide.render(url: adobe, spec: spec, format: format)
            let s = try srgb.render(url: adobe, spec: spec, format: format)
            #expect(try ImageCodec.probe(w.bytes).iccProfile == ColourTransform.displayP3Profile, "\(format)")
            #expect(try ImageCodec.probe(s.bytes).iccProfile == nil, "\(format)")
        }
        // Placeholders are found under the version pages link.
        _ = try wide.render(url: plain, spec: SizeSpec(mode: .cover(width: 120, height: 120)))
        #expect(wide.placeholderColour(url: plain, version: version + "-p3") != nil)
    }
}

/// A small deterministic generator for test pixels.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
