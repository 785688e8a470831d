import Foundation
import Testing
@testable import ImagePipeline
import ImageCodec

/// GIF, TIFF and camera raws through the pipeline's URLs: local TIFFs and raws are read with
/// positioned reads (`Original.file`), versions are still the content hash, renders come out
/// upright in the raw's orientation, and the original is served whole on request.
@Suite struct StillsPipelineTests {
    static let stills = fixturesDir + "/stills/"

    @Test(arguments: ["raw_cr3.cr3", "raw_nef.nef", "raw_dng.dng", "tiff_rgb_lzw_tiled.tif", "gif_animated.gif", "raw_raf.raf"])
    func rendersThroughURLs(_ name: String) throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("stills")))
        let url = "file://" + Self.stills + name
        let bytes = try fixtureBytes("stills/" + name)
        #expect(try pipeline.version(url: url) == String(SHA256.hex(bytes).prefix(12)))
        let info = try pipeline.info(url: url)
        for edge in [120, 480] {
            let image = try pipeline.render(url: url, spec: SizeSpec(mode: .fit(maxEdge: edge)))
            let decoded = try ImageCodec.decode(image.bytes)
            #expect(max(decoded.bitmap.width, decoded.bitmap.height) == min(edge, max(info.orientedWidth, info.orientedHeight)))
            // Upright: the render's aspect follows the oriented size.
            #expect((decoded.bitmap.width >= decoded.bitmap.height) == (info.orientedWidth >= info.orientedHeight))
        }
        #expect(try pipeline.original(url: url).bytes == bytes)
    }

    @Test func positionedOriginalsReadOnlyWhatTheyNeed() throws {
        let file = try #require(try LocalSource.openPositioned(Self.stills + "raw_cr3.cr3", root: nil))
        #expect(file.1 == .raw)
        #expect(try LocalSource.openPositioned(Self.stills + "gif_basic.gif", root: nil) == nil)
        let facts = try FileIndexing.read(path: Self.stills + "raw_nef.nef")
        #expect(facts.facts?.width == 800)
    }
}
