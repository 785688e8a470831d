import Foundation
import Testing
@testable import ImageCodec

/// The same pixel checks as `HEIFReferenceDecodeTests`, through our own HEVC decoder. The
/// suite switches itself on once `HEVCDecoder` decodes a tiny probe tile; until then it skips.
@Suite("HEIC with our HEVC decoder", .enabled(if: HEIFFixtures.ourDecoderWorks))
struct HEICWithOurDecoderTests {
    @Test("full-size decode matches libheif within ±1 on every decodable fixture", arguments: HEIFFixtures.decodable)
    func fullSize(_ file: String) throws {
        let bytes = try HEIFFixtures.bytes(file)
        let info = try ImageCodec.probe(bytes)
        if info.bitDepth > 10 {
            // Beyond 10 bits: a clear "unsupported", never a picture.
            #expect(throws: ImageCodecError.self) { _ = try ImageCodec.decode(bytes) }
            do { _ = try ImageCodec.decode(bytes) } catch let e as ImageCodecError { #expect(e.kind == .unsupported, "\(file): \(e)") }
            return
        }
        let decoded = try ImageCodec.decode(bytes)
        let reference = try HEIFFixtures.reference(HEIFFixtures.referencePath(file))
        let ours = HEIFFixtures.matching(decoded.bitmap, reference)
        #expect(ours.width == reference.width && ours.height == reference.height)
        let diff = SampleDiff(ours.pixels, reference.pixels)
        print("HEIC (our HEVC) \(file): max diff \(diff.maxAbs)")
        #expect(diff.maxAbs <= 1, "\(file): max diff \(diff.maxAbs)")
    }

    @Test("large files: bit-exact with libheif at full size, ±1 at 1/8", arguments: HEIFFixtures.large)
    func large(_ file: String) throws {
        let bytes = try HEIFFixtures.bytes(file)
        let reference = try HEIFFixtures.largeReference(file)
        let full = try ImageCodec.decode(bytes)
        #expect(HEIFFixtures.crc32(full.bitmap.pixels) == reference.crc32, "\(file): full-size pixels differ from libheif")
        let eighth = try ImageCodec.decode(bytes, scale: .eighth)
        let expected = try HEIFFixtures.reference(reference.reduced8)
        let diff = SampleDiff(HEIFFixtures.matching(eighth.bitmap, expected).pixels, expected.pixels)
        print("HEIC (our HEVC) \(file) at 1/8: max diff \(diff.maxAbs)")
        #expect(diff.maxAbs <= 1)
    }
}

extension HEIFFixtures {
    /// Whether `HEVCDecoder.decode` returns a picture for the 64x100 monochrome tile of one fixture.
    static let ourDecoderWorks: Bool = {
        guard let bytes = try? HEIFFixtures.bytes("heif_L_8__29x100.heif"),
              let container = try? HEIFContainer(bytes),
              let graph = try? HEIFImageGraph(container, limits: .default),
              let tile = graph.primary.tiles.first,
              let data = try? container.data(of: tile.itemID, limits: .default) else { return false }
        let c = graph.primary.configuration
        return (try? HEVCDecoder.decode(parameterSets: c.parameterSets, data: data, lengthSize: c.lengthSize)) != nil
    }()
}
