import Foundation
import Testing
@testable import ImageCodec

/// `ImageCodec.decodeRows` for WebP (`WebPDecoder.decodeRows`): at full size the rows handed to
/// a sink 16 at a time are the bitmap `decode` returns, byte for byte, for every WebP fixture
/// (lossy, lossless, alpha, an animation's first frame on its canvas) and for frames tall
/// enough for many bands; the memory limit counts the band, not the bitmap; a sink's error
/// ends the decode. Other scales are decoded whole and handed over as one group.
@Suite struct WebPRowStreamTests {
    typealias Collector = JPEGRowStreamTests.Collector

    static let files: [String] = {
        let fixtures = WebPFixtures.root.deletingLastPathComponent()
        guard let walk = FileManager.default.enumerator(atPath: fixtures.path) else { return [] }
        return walk.compactMap { $0 as? String }.filter { $0.lowercased().hasSuffix(".webp") }.sorted()
    }()

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: WebPFixtures.root.deletingLastPathComponent().appendingPathComponent(file)))
    }

    /// A frame of `width` × `height` with a gradient and an edge, encoded by our encoder.
    static func encoded(width: Int, height: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(truncatingIfNeeded: x &* 3 &+ y)
                pixels[i + 1] = x > width / 2 ? 220 : UInt8(truncatingIfNeeded: y &* 2)
                pixels[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) &* 5)
            }
        }
        return try WebPEncoder.encode(Bitmap(width: width, height: height, layout: .rgb, pixels: pixels), quality: 80)
    }

    static func expectSame(_ bytes: [UInt8], _ label: String, limits: DecodeLimits = .default) throws {
        let whole = try ImageCodec.decode(bytes, scale: .full, limits: .default)
        let sink = Collector()
        let streamed = try ImageCodec.decodeRows(bytes, scale: .full, limits: limits, into: sink)
        #expect(sink.begins == 1, "\(label)")
        #expect(sink.problems.isEmpty, "\(label): \(sink.problems)")
        #expect(sink.width == whole.bitmap.width && sink.height == whole.bitmap.height && sink.layout == whole.bitmap.layout, "\(label)")
        #expect(sink.pixels == whole.bitmap.pixels, "\(label): streamed rows differ from the bitmap")
        #expect(sink.nextRow == whole.bitmap.height, "\(label): rows missing")
        #expect(sink.largestBand <= WebPDecoder.streamedRows, "\(label)")
        #expect(streamed.info.width == whole.info.width && streamed.info.height == whole.info.height, "\(label)")
    }

    @Test func everyFixtureStreamsTheBitmap() throws {
        #expect(Self.files.count >= 20)
        for file in Self.files { try Self.expectSame(try Self.bytes(file), file) }
    }

    @Test func tallFramesComeInBandsOfSixteen() throws {
        for (w, h) in [(40, 16), (40, 17), (33, 95), (130, 257)] {
            let bytes = try Self.encoded(width: w, height: h)
            try Self.expectSame(bytes, "\(w)x\(h)")
            let sink = Collector()
            _ = try ImageCodec.decodeRows(bytes, into: sink)
            #expect(sink.bands == (h + 15) / 16, "\(w)x\(h): \(sink.bands) bands")
        }
    }

    @Test func theMemoryLimitCountsTheBandNotTheBitmap() throws {
        let bytes = try Self.encoded(width: 512, height: 512)
        // Planes 384 KB + band 24 KB + rows fit; the 768 KB bitmap would not.
        var limits = DecodeLimits.default
        limits.maxMemoryBytes = 600 * 1024
        #expect(throws: ImageCodecError.self) { _ = try ImageCodec.decode(bytes, scale: .full, limits: limits) }
        try Self.expectSame(bytes, "512x512 under 600 KB", limits: limits)
        limits.maxMemoryBytes = 300 * 1024
        #expect(throws: ImageCodecError.self) { _ = try ImageCodec.decodeRows(bytes, limits: limits, into: Collector()) }
    }

    @Test func aSinkErrorEndsTheDecode() throws {
        let sink = Collector()
        sink.failAtBand = 2
        #expect(throws: ImageCodecError.self) { _ = try ImageCodec.decodeRows(try Self.encoded(width: 64, height: 100), into: sink) }
        #expect(sink.bands == 2)
    }

    @Test func reducedScalesAreHandedOverWhole() throws {
        let bytes = try Self.encoded(width: 130, height: 257)
        let whole = try ImageCodec.decode(bytes, scale: .quarter, limits: .default)
        let sink = Collector()
        _ = try ImageCodec.decodeRows(bytes, scale: .quarter, into: sink)
        #expect(sink.bands == 1 && sink.pixels == whole.bitmap.pixels)
    }
}
