import Foundation
import ImageCodec
import Testing
@testable import ImagePipeline

/// End-to-end renders: these need the JPEG/PNG decoders, the resampler and the encoders.
@Suite(.serialized) struct RenderTests {
    private func fixtureURL(_ name: String) -> String { "file://" + fixturesDir + "/jpeg/generated/" + name }

    private func decode(_ image: RenderedImage) throws -> Bitmap {
        try ImageCodec.decode(image.bytes).bitmap
    }

    /// orient_k.jpg store the same picture turned by the inverse of EXIF orientation k, so
    /// every k must render to the same upright pixels as orient_1 (up to IDCT/resampling
    /// rounding of the turned blocks) and to the expected size.
    @Test func fitAndCoverForAllEightOrientations() throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("orient")))
        let cases: [(SizeSpec, Int, Int)] = [
            (SizeSpec(mode: .fit(maxEdge: 120)), 80, 120),
            (SizeSpec(mode: .fit(maxEdge: 240)), 160, 240),
            (SizeSpec(mode: .cover(width: 80, height: 80)), 80, 80),
            (SizeSpec(mode: .cover(width: 160, height: 160)), 160, 160),
        ]
        var worst = Double.infinity
        for (spec, w, h) in cases {
            let upright = try decode(try pipeline.render(url: fixtureURL("orient_1.jpg"), spec: spec))
            #expect(upright.width == w && upright.height == h, "orient_1 at \(spec)")
            for k in 2...8 {
                let image = try pipeline.render(url: fixtureURL("orient_\(k).jpg"), spec: spec)
                #expect(image.contentType == "image/jpeg")
                #expect(image.width == w && image.height == h, "orient_\(k) at \(spec): \(image.width)x\(image.height)")
                let bitmap = try decode(image)
                #expect(bitmap.width == w && bitmap.height == h)
                guard bitmap.width == w, bitmap.height == h, bitmap.layout == upright.layout else { continue }
                let p = psnr(bitmap, upright)
                worst = min(worst, p)
                #expect(p >= 32, "orient_\(k) at \(spec) differs from orient_1: \(p) dB")
            }
        }
        print("orientation renders: worst PSNR vs orient_1 \(worst) dB")
    }

    /// Independent of the fast path: each orientation's thumbnail against a full-size decode,
    /// turned upright with `Orientation.apply`, resized with the resampler to the same size.
    @Test func orientedThumbnailsMatchAFullDecodeReference() throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("orientref")))
        var worst = Double.infinity
        for k in 1...8 {
            let bytes = try fixtureBytes("jpeg/generated/orient_\(k).jpg")
            let full = try ImageCodec.decode(bytes)
            #expect(full.info.orientation.rawValue == k)
            let upright = full.info.orientation.apply(to: full.bitmap)
            let reference = try Resampler.resize(upright, width: 80, height: 120)
            let thumb = try decode(try pipeline.render(url: fixtureURL("orient_\(k).jpg"), spec: SizeSpec(mode: .fit(maxEdge: 120))))
            let p = psnr(thumb, reference.converted(to: thumb.layout))
            worst = min(worst, p)
            #expect(p >= 30, "orient_\(k): \(p) dB against the full-decode reference")
        }
        print("orientation renders: worst PSNR vs full decode + resample \(worst) dB")
    }

    /// A picture already within the size, upright and in the output format is served as is;
    /// the same picture stored turned is rendered (rotated) instead.
    @Test func passthroughOnlyWhenNothingChanges() throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("pass")))
        let original = try fixtureBytes("jpeg/generated/orient_1.jpg")
        let same = try pipeline.render(url: fixtureURL("orient_1.jpg"), spec: SizeSpec(mode: .fit(maxEdge: 480)))
        #expect(same.bytes == original)
        #expect(same.width == 192 && same.height == 288)
        let turned = try pipeline.render(url: fixtureURL("orient_6.jpg"), spec: SizeSpec(mode: .fit(maxEdge: 480)))
        #expect(turned.bytes != (try fixtureBytes("jpeg/generated/orient_6.jpg")))
        let bitmap = try decode(turned)
        #expect(bitmap.width == 192 && bitmap.height == 288)
        #expect(pipeline.metricsText().contains("pipeline_passthrough_total 1\n"))
    }

    /// The grid asks for a cover size and the detail page for a fit size, in either order:
    /// one download, two renders, each exactly its size and identical to a direct render.
    @Test(arguments: [true, false])
    func listThenDetailAndTheOtherOrder(listFirst: Bool) throws {
        let original = try fixtureBytes("jpeg/generated/odd_1001x667_420.jpg")
        let origin = try TestOrigin()
        origin.set("/photo.jpg", .ok(original, "image/jpeg"), delay: 0.1)
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("screens")))
        let list = SizeSpec(mode: .cover(width: 240, height: 240))
        let detail = SizeSpec(mode: .fit(maxEdge: 960))
        let order = listFirst ? [list, detail] : [detail, list]
        var images: [SizeSpec: RenderedImage] = [:]
        for spec in order { images[spec] = try pipeline.render(url: origin.url("/photo.jpg"), spec: spec) }
        #expect(origin.count("/photo.jpg") == 1)
        #expect(pipeline.metricsText().contains("pipeline_renders_total 2\n"))

        let listImage = try #require(images[list])
        let listBitmap = try decode(listImage)
        #expect(listBitmap.width == 240 && listBitmap.height == 240)
        let detailImage = try #require(images[detail])
        let detailBitmap = try decode(detailImage)
        #expect(max(detailBitmap.width, detailBitmap.height) == 960)
        #expect(abs(detailBitmap.height - 640) <= 1)

        // Neither is made from the other: both equal a render straight from the original.
        #expect(listImage.bytes == (try Renderer.render(original, mode: list.mode).image.bytes))
        #expect(detailImage.bytes == (try Renderer.render(original, mode: detail.mode).image.bytes))
        // Asking again is a render-cache hit.
        _ = try pipeline.render(url: origin.url("/photo.jpg"), spec: list)
        #expect(pipeline.metricsText().contains("pipeline_render_cache_hits_total 1\n"))
    }

    @Test func tenRendersOfOneSizeDecodeOnce() throws {
        let original = try fixtureBytes("jpeg/generated/odd_1001x667_420.jpg")
        let origin = try TestOrigin()
        origin.set("/same.jpg", .ok(original, "image/jpeg"), delay: 0.4)
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("samerender")))
        let results = Collector<[UInt8]?>()
        runConcurrently(10) { _ in
            results.add(try? pipeline.render(url: origin.url("/same.jpg"), spec: SizeSpec(mode: .fit(maxEdge: 480))).bytes)
        }
        #expect(origin.count("/same.jpg") == 1)
        #expect(pipeline.metricsText().contains("pipeline_renders_total 1\n"))
        let first = try #require(results.all.first ?? nil)
        #expect(results.all.allSatisfy { $0 == first })
    }

    /// A cached original that still starts like a JPEG but no longer decodes is dropped and
    /// fetched again once.
    @Test func undecodableDiskEntryIsFetchedAgain() throws {
        let original = try fixtureBytes("jpeg/generated/odd_1001x667_420.jpg")
        let origin = try TestOrigin()
        origin.set("/d.jpg", .ok(original, "image/jpeg"))
        let dir = makeTempDir("undecodable")
        let url = origin.url("/d.jpg")
        _ = try ImagePipeline(configuration: testConfiguration(cacheDir: dir)).original(url: url)
        var damaged = [UInt8](repeating: 0, count: original.count)
        damaged[0] = 0xFF; damaged[1] = 0xD8; damaged[2] = 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: dir + "/" + DiskDataCache.key(url)))
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let image = try pipeline.render(url: url, spec: SizeSpec(mode: .fit(maxEdge: 480)))
        #expect(try decode(image).width == 480)
        #expect(origin.count("/d.jpg") == 2)
    }

    @Test func transparentPNGStaysPNGAndOpaqueBecomesJPEG() throws {
        let root = makeTempDir("pngroot")
        var rgba = try Bitmap(width: 400, height: 300, layout: .rgba)
        for y in 0..<300 {
            for x in 0..<400 {
                let i = (y * 400 + x) * 4
                rgba.pixels[i] = UInt8(x * 255 / 399)
                rgba.pixels[i + 1] = UInt8(y * 255 / 299)
                rgba.pixels[i + 2] = 128
                rgba.pixels[i + 3] = x < 200 ? 255 : 64
            }
        }
        try Data(try PNGEncoder.encode(rgba)).write(to: URL(fileURLWithPath: root + "/alpha.png"))
        try Data(try PNGEncoder.encode(rgba.converted(to: .rgb))).write(to: URL(fileURLWithPath: root + "/opaque.png"))
        var config = testConfiguration(cacheDir: makeTempDir("png"))
        config.libraryRoot = root
        let pipeline = ImagePipeline(configuration: config)
        let alpha = try pipeline.render(url: "file://" + root + "/alpha.png", spec: SizeSpec(mode: .fit(maxEdge: 160)))
        #expect(alpha.contentType == "image/png")
        let alphaBitmap = try decode(alpha)
        #expect(alphaBitmap.width == 160 && alphaBitmap.height == 120)
        #expect(alphaBitmap.hasTransparency)
        let opaque = try pipeline.render(url: "file://" + root + "/opaque.png", spec: SizeSpec(mode: .cover(width: 80, height: 80)))
        #expect(opaque.contentType == "image/jpeg")
        let opaqueBitmap = try decode(opaque)
        #expect(opaqueBitmap.width == 80 && opaqueBitmap.height == 80)
    }

    @Test func brokenFilesAreTypedErrors() throws {
        let root = makeTempDir("broken")
        try Data("hello, not an image".utf8).write(to: URL(fileURLWithPath: root + "/text.jpg"))
        var corrupt: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x02]
        corrupt += [UInt8](repeating: 0x13, count: 500)
        try Data(corrupt).write(to: URL(fileURLWithPath: root + "/corrupt.jpg"))
        let jpeg = try fixtureBytes("jpeg/generated/odd_1001x667_420.jpg")
        try Data(jpeg.prefix(400)).write(to: URL(fileURLWithPath: root + "/headonly.jpg"))
        var config = testConfiguration(cacheDir: makeTempDir("brokencache"))
        config.libraryRoot = root
        let pipeline = ImagePipeline(configuration: config)
        let spec = SizeSpec(mode: .fit(maxEdge: 240))
        func kind(_ name: String) -> String {
            do { _ = try pipeline.render(url: "file://" + root + "/" + name, spec: spec); return "ok" } catch { return error.kind.rawValue }
        }
        #expect(kind("text.jpg") == "not_an_image")
        #expect(kind("corrupt.jpg") == "undecodable")
        #expect(kind("headonly.jpg") == "undecodable")
        #expect(pipeline.metricsText().contains("pipeline_errors_total{kind=\"undecodable\"} 2"))
    }

    @Test func infoAndMetrics() throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("info")))
        let info = try pipeline.info(url: fixtureURL("orient_6.jpg"))
        #expect(info.format == .jpeg)
        #expect(info.width == 288 && info.height == 192)
        #expect(info.orientation == .rotatedClockwise)
        #expect(info.orientedWidth == 192 && info.orientedHeight == 288)
        _ = try pipeline.render(url: fixtureURL("orient_6.jpg"), spec: SizeSpec(mode: .fit(maxEdge: 120)))
        _ = try pipeline.render(url: fixtureURL("orient_6.jpg"), spec: SizeSpec(mode: .fit(maxEdge: 120)))
        let text = pipeline.metricsText()
        for line in ["pipeline_requests_total 2", "pipeline_render_cache_hits_total 1", "pipeline_render_cache_misses_total 1",
                     "pipeline_renders_total 1", "pipeline_decode_seconds_count 1", "pipeline_decode_seconds_bucket{le=\"+Inf\"} 1",
                     "# TYPE pipeline_decode_seconds histogram"] {
            #expect(text.contains(line + "\n"), "missing \(line)")
        }
    }

    /// With one render slot and no queue, a second concurrent render of another size is refused.
    @Test func overloadIsRefusedNotQueuedForever() throws {
        let original = try fixtureBytes("jpeg/generated/odd_1001x667_420.jpg")
        let origin = try TestOrigin()
        origin.set("/o.jpg", .ok(original, "image/jpeg"))
        var config = testConfiguration(cacheDir: makeTempDir("overload"))
        config.maxConcurrentRenders = 1
        config.renderQueueLength = 0
        let pipeline = ImagePipeline(configuration: config)
        _ = try pipeline.original(url: origin.url("/o.jpg"))
        let specs = [80, 120, 160, 240, 320, 360].map { SizeSpec(mode: .cover(width: $0, height: $0)) }
        let outcomes = Collector<String>()
        runConcurrently(specs.count) { i in
            do { _ = try pipeline.render(url: origin.url("/o.jpg"), spec: specs[i]); outcomes.add("ok") } catch let e as PipelineError { outcomes.add(e.kind.rawValue) } catch { outcomes.add("other") }
        }
        #expect(outcomes.all.contains("ok"))
        #expect(outcomes.all.allSatisfy { $0 == "ok" || $0 == "overloaded" })
        print("overload: \(outcomes.all.filter { $0 == "overloaded" }.count) of \(specs.count) refused")
    }

    /// Other kinds of source: gray, CMYK and progressive JPEG; 16-bit gray, palette and
    /// gray+alpha PNG (PngSuite, 32×32: within the size, so only re-encoded, or served as is
    /// when the original already is the right format).
    @Test(arguments: [
        ("jpeg/generated/flower_gray_q75.jpg", "120", "image/jpeg", 120, 75),
        ("jpeg/generated/flower_gray_q75.jpg", "80x80", "image/jpeg", 80, 80),
        ("jpeg/generated/flower_cmyk_adobe_q85.jpg", "120", "image/jpeg", 120, 75),
        ("jpeg/generated/odd_1001x667_422_prog.jpg", "120", "image/jpeg", 120, 80),
        ("jpeg/generated/odd_1001x667_422_prog.jpg", "240x240", "image/jpeg", 240, 240),
        ("png/pngsuite/basn0g16.png", "120", "image/jpeg", 32, 32),
        ("png/pngsuite/basn3p08.png", "120", "image/jpeg", 32, 32),
        ("png/pngsuite/basn4a08.png", "120", "image/png", 32, 32),
    ])
    func otherSourceKinds(file: String, size: String, type: String, width: Int, height: Int) throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("kinds")))
        let spec = try #require(SizeSpec(parsing: size))
        let image = try pipeline.render(url: "file://" + fixturesDir + "/" + file, spec: spec)
        #expect(image.contentType == type, "\(file) at \(size)")
        let bitmap = try decode(image)
        #expect(bitmap.width == width && bitmap.height == height, "\(file) at \(size): \(bitmap.width)x\(bitmap.height)")
        #expect(image.width == width && image.height == height)
    }
}

/// HEIC renders: the iPhone photo (48 tiles, turned by `irot`, with a 240×320 `thmb` item).
@Suite struct HEICRenderTests {
    static let arrow = "heic/heif_other_arrow.heic"

    @Test func embeddedThumbnailIsUsedOnlyWhenItCovers() throws {
        let info = try ImageCodec.probe(try fixtureBytes(Self.arrow))
        #expect(Renderer.coveringThumbnail(info, width: 240, height: 320)?.width == 240)
        #expect(Renderer.coveringThumbnail(info, width: 480, height: 640) == nil)
    }

    /// A 128x96 grid whose 64x48 `thmb` is plain magenta: sizes the thumbnail covers come from
    /// it (as libvips does), bigger ones from the grid.
    @Test func embeddedThumbnailServesTheSizesItCovers() throws {
        let bytes = try fixtureBytes("heic/generated/thumb_magenta.heic")
        func centre(_ mode: ResizeMode) throws -> (width: Int, height: Int, rgb: [Int]) {
            let outcome = try Renderer.render(bytes, mode: mode)
            let bitmap = try ImageCodec.decode(outcome.image.bytes).bitmap.converted(to: .rgb)
            let i = ((bitmap.height / 4) * bitmap.width + bitmap.width / 4) * 3
            return (bitmap.width, bitmap.height, bitmap.pixels[i..<(i + 3)].map(Int.init))
        }
        let covered = try centre(.fit(maxEdge: 64))
        #expect(covered.width == 64 && covered.height == 48)
        #expect(covered.rgb[0] > 180 && covered.rgb[1] < 80 && covered.rgb[2] > 180, "64 px: \(covered.rgb), want the magenta thumbnail")
        let square = try centre(.cover(width: 48, height: 48))
        #expect(square.rgb[0] > 180 && square.rgb[1] < 80 && square.rgb[2] > 180, "48x48 cover: \(square.rgb), want the magenta thumbnail")
        let bigger = try centre(.fit(maxEdge: 128))
        #expect(bigger.width == 128 && bigger.height == 96)
        #expect(bigger.rgb[0] > 180 && bigger.rgb[1] < 80 && bigger.rgb[2] < 80, "128 px: \(bigger.rgb), want the grid's red quadrant")
    }

    @Test func gridAndDetailSizesRenderUpright() throws {
        let bytes = try fixtureBytes(Self.arrow)
        // 240x240 comes from the thumbnail item, 480 from the tiles.
        let cover = try Renderer.render(bytes, mode: .cover(width: 240, height: 240))
        #expect(cover.image.width == 240 && cover.image.height == 240)
        let fit = try Renderer.render(bytes, mode: .fit(maxEdge: 480))
        #expect(fit.image.width == 360 && fit.image.height == 480, "portrait after irot")
        // The arrow points up: its tip (dark ink) is in the top half, centred.
        let decoded = try ImageCodec.decode(fit.image.bytes).bitmap.converted(to: .gray)
        func darkness(_ y0: Int, _ y1: Int) -> Int {
            var n = 0
            for y in y0..<y1 { for x in 150..<210 where decoded.pixels[y * decoded.width + x] < 100 { n += 1 } }
            return n
        }
        #expect(darkness(20, 60) > 0, "the arrow's tip is at the top")
    }
}
