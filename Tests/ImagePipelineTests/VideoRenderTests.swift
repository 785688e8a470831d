import Foundation
import ImageCodec
import Synchronization
import Testing
@testable import ImagePipeline

/// Movies through the pipeline: posters rendered from files at every size and format, read
/// with positioned reads only (a 3 GB sparse movie costs its `moov` and one sample), versions
/// without hashing the file, and the facts pages show.
@Suite struct VideoRenderTests {
    static let video = fixturesDir + "/video/"

    static func configuration(_ name: String) -> PipelineConfiguration {
        var c = testConfiguration(cacheDir: makeTempDir(name))
        c.allowedSizes = [SizeSpec(mode: .fit(maxEdge: 96)), SizeSpec(mode: .cover(width: 48, height: 48))]
        return c
    }

    /// `hevc-moov-end.mp4` grown to `padding` more bytes inside its `mdat` as a sparse file
    /// (no disk used): sample offsets stay, the `moov` moves to the end.
    static func sparseMovie(in dir: String, padding: Int) throws -> String {
        let bytes = try fixtureBytes("video/hevc-moov-end.mp4")
        var at = 0
        var mdat = 0..<0
        while at + 8 <= bytes.count {
            let size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            if bytes[(at + 4)..<(at + 8)].elementsEqual("mdat".utf8) { mdat = at..<(at + size) }
            at += size
        }
        var head = Array(bytes[0..<mdat.upperBound])
        let grown = UInt32(mdat.count + padding)
        for i in 0..<4 { head[mdat.lowerBound + i] = UInt8(truncatingIfNeeded: grown >> (24 - 8 * UInt32(i))) }
        let path = dir + "/big.mov"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        _ = head.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
        let tail = Array(bytes[mdat.upperBound...])
        _ = tail.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(head.count + padding)) }
        return path
    }

    final class Counting: ByteSource, @unchecked Sendable {
        let inner: ByteSource
        let read = Atomic<Int>(0)
        init(_ inner: ByteSource) { self.inner = inner }
        var size: Int { inner.size }
        func read(offset: Int, count: Int) throws -> [UInt8] {
            read.add(count, ordering: .relaxed)
            return try inner.read(offset: offset, count: count)
        }
    }

    @Test func posterOfAThreeGigabyteMovieReadsKilobytes() throws {
        let dir = makeTempDir("bigmovie")
        let path = try Self.sparseMovie(in: dir, padding: 3_000_000_000)
        let source = Counting(try ImagePipeline.openFile(path))
        #expect(source.size > 3_000_000_000)
        let outcome = try Renderer.render(source: source, mode: .fit(maxEdge: 64))
        #expect(outcome.image.contentType == "image/jpeg" && outcome.image.width == 64 && outcome.image.height == 48)
        let read = source.read.load(ordering: .relaxed)
        #expect(read < 20_000, "read \(read) bytes")

        // Through the pipeline (its 64 MiB bound on originals would refuse reading it whole).
        var config = Self.configuration("bigmovie-cache")
        config.libraryRoot = dir
        let pipeline = ImagePipeline(configuration: config)
        let url = "file://" + path
        let image = try pipeline.render(url: url, spec: try #require(SizeSpec(parsing: "96")))
        #expect(image.width == 96 && image.height == 72)
        let version = try pipeline.version(url: url)
        #expect(version.count == 12 && version == image.version)

        // The index reads the same version and the facts pages show, without hashing 3 GB.
        let indexed = try FileIndexing.read(path: path)
        #expect(indexed.version == version)
        let video = try #require(indexed.facts?.video)
        #expect(video.codec == "HEVC" && abs((video.frameRate ?? 0) - 25) < 0.01 && video.durationText == "0:01")
        #expect(indexed.facts?.format == "HEVC")
        try? FileManager.default.removeItem(atPath: dir)
    }

    @Test(arguments: [("hevc-rot90.mp4", 72, 96), ("hevc-rot270.mp4", 72, 96), ("hevc-rot180.mp4", 96, 72), ("hevc-keys.mov", 96, 72)])
    func postersRenderUprightAtEverySize(_ name: String, _ width: Int, _ height: Int) throws {
        let pipeline = ImagePipeline(configuration: Self.configuration("posters"))
        let url = "file://" + Self.video + name
        let fit = try pipeline.render(url: url, spec: try #require(SizeSpec(parsing: "96")))
        #expect(fit.width == width && fit.height == height, "\(name): \(fit.width)x\(fit.height)")
        let cover = try pipeline.render(url: url, spec: try #require(SizeSpec(parsing: "48x48")))
        #expect(cover.width == 48 && cover.height == 48 && cover.contentType == "image/jpeg")
        let webp = try pipeline.render(url: url, spec: try #require(SizeSpec(parsing: "96")), format: .webp)
        #expect(webp.contentType == "image/webp")
        #expect(try ImageCodec.decode(webp.bytes).bitmap.width == width)
    }

    /// The clockwise and counter-clockwise turns of one clip are each other turned 180°.
    @Test func rotationsAreTheSamePictureTurned() throws {
        let a = try Renderer.render(source: try ImagePipeline.openFile(Self.video + "hevc-rot90.mp4"), mode: .fit(maxEdge: 96), options: RenderOptions(format: .png))
        let b = try Renderer.render(source: try ImagePipeline.openFile(Self.video + "hevc-rot270.mp4"), mode: .fit(maxEdge: 96), options: RenderOptions(format: .png))
        let ba = try ImageCodec.decode(a.image.bytes).bitmap, bb = try ImageCodec.decode(b.image.bytes).bitmap
        #expect(Orientation.rotated180.apply(to: ba) == bb)
    }

    @Test func factsOfAQuickTimeMovie() throws {
        let pipeline = ImagePipeline(configuration: Self.configuration("facts"))
        let facts = try pipeline.facts(url: "file://" + Self.video + "hevc-keys.mov")
        #expect(facts.cameraMake == "Apple" && facts.cameraModel == "iPhone 15 Pro")
        #expect(facts.dateTaken == "2024:06:01 12:34:56")
        #expect(facts.video?.contentIdentifier == "0A1B2C3D-LIVE")
        #expect(facts.location != nil)
        #expect(ImageFiles.isMovie(name: "IMG_0001.MOV") && !ImageFiles.isMovie(name: "IMG_0001.HEIC"))
        let hlg = try pipeline.facts(url: "file://" + Self.video + "hevc-hlg10.mov")
        #expect(hlg.format == "HEVC, 10-bit, HLG" && hlg.video?.hdr == "HLG")
    }

    /// An HDR poster is tagged BT.2020 and converted by the colour stage: sRGB by default,
    /// Display P3 (with its profile) in wide mode.
    @Test func hlgPosterGoesThroughTheColourStage() throws {
        let source = try ImagePipeline.openFile(Self.video + "hevc-hlg10.mov")
        let srgb = try Renderer.render(source: source, mode: .fit(maxEdge: 160), options: RenderOptions(format: .png))
        #expect(srgb.warnings.isEmpty)
        let wide = try Renderer.render(source: source, mode: .fit(maxEdge: 160), options: RenderOptions(format: .png, colour: .wide))
        #expect(wide.warnings.isEmpty)
        #expect(try ImageCodec.probe(wide.image.bytes).iccProfile != nil)
        #expect(try ImageCodec.probe(srgb.image.bytes).iccProfile == nil)
    }

    /// A movie whose `moov` is damaged still has a version (from its first bytes); its renders
    /// fail as undecodable, like a damaged photo's.
    @Test func damagedMovieHasAVersionAndFailsToRender() throws {
        let dir = makeTempDir("damaged")
        try Data(try fixtureBytes("video/hostile-truncated-moov.mp4")).write(to: URL(fileURLWithPath: dir + "/broken.mov"))
        var config = Self.configuration("damaged-cache")
        config.libraryRoot = dir
        let pipeline = ImagePipeline(configuration: config)
        let url = "file://" + dir + "/broken.mov"
        #expect(try pipeline.version(url: url).count == 12)
        #expect(throws: PipelineError.self) { try pipeline.render(url: url, spec: SizeSpec(parsing: "96")!) }
        try? FileManager.default.removeItem(atPath: dir)
    }

    @Test func h264MoviesRenderPostersThroughOurDecoder() throws {
        let pipeline = ImagePipeline(configuration: Self.configuration("h264"))
        let poster = try pipeline.render(url: "file://" + Self.video + "h264.mp4", spec: SizeSpec(parsing: "96")!)
        #expect(poster.contentType == "image/jpeg" && poster.width == 96 && poster.height == 72)
        #expect(try pipeline.facts(url: "file://" + Self.video + "h264.mp4").video?.codec == "H.264")
    }
}
