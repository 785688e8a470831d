import Foundation
import Testing
@testable import ImageCodec

/// Pixels of every decodable fixture against libheif 1.23's reference, with libde265 (dec265)
/// decoding the HEVC tiles: checks the container, grid, colour conversion, chroma upsampling,
/// bit-depth reduction, alpha, transforms and reduction without our HEVC decoder.
@Suite("HEIF decode with a reference HEVC decoder", .enabled(if: HEIFFixtures.dec265Available))
struct HEIFReferenceDecodeTests {
    @Test("full-size decode matches libheif within ±1 on every decodable fixture", arguments: HEIFFixtures.decodable)
    func fullSize(_ file: String) throws {
        let decoded = try HEIFDecoder.decode(try HEIFFixtures.bytes(file), reduction: 1, limits: .default,
                                             tileDecoder: HEIFFixtures.referenceTileDecoder)
        let reference = try HEIFFixtures.reference(HEIFFixtures.referencePath(file))
        let ours = HEIFFixtures.matching(decoded.bitmap, reference)
        #expect(ours.width == reference.width && ours.height == reference.height, "\(file): \(ours.width)x\(ours.height) vs \(reference.width)x\(reference.height)")
        let diff = SampleDiff(ours.pixels, reference.pixels)
        print("HEIF \(file): \(ours.width)x\(ours.height) \(decoded.bitmap.layout), max diff \(diff.maxAbs) (\(diff.total - diff.exact) samples differ)")
        #expect(diff.maxAbs <= 1, "\(file): max diff \(diff.maxAbs)")
        #expect(decoded.info.width == reference.width && decoded.info.height == reference.height)
    }

    @Test("1/2, 1/4 and 1/8 decodes are the box reduction of libheif's image in displayed orientation",
          arguments: ["heif_RGBA_8__29x100.heif", "heif_L_10__29x100.heif", "generated/grid_3x2_rot180.heic",
                      "generated/mirror1_rot270_clap_even.heic", "generated/iden_rot90_of_mirror.heic", "heif_RGB_12__128x128.heif",
                      "generated/iovl_two_inputs.heic", "generated/iovl_grid_rot90.heic"])
    func reduced(_ file: String) throws {
        let bytes = try HEIFFixtures.bytes(file)
        let reference = try HEIFFixtures.reference(HEIFFixtures.referencePath(file))
        var worst = 0
        for factor in [2, 4, 8] {
            let decoded = try HEIFDecoder.decode(bytes, reduction: factor, limits: .default, tileDecoder: HEIFFixtures.referenceTileDecoder)
            // Alpha-weighted means differ from plain ones where alpha varies: compare opaque files only by colour.
            let expected = try HEIFFixtures.boxReduced(reference, factor: factor)
            let ours = HEIFFixtures.matching(decoded.bitmap, expected)
            #expect(ours.width == expected.width && ours.height == expected.height, "\(file) at 1/\(factor)")
            let scale = try DecodeScale(numerator: 8 / factor)
            #expect((ours.width, ours.height) == scale.outputSize(width: decoded.info.width, height: decoded.info.height))
            let diff = SampleDiff(ours.pixels, expected.pixels)
            worst = max(worst, diff.maxAbs)
            #expect(diff.maxAbs <= (expected.layout.hasAlpha ? 8 : 1), "\(file) at 1/\(factor): max diff \(diff.maxAbs)")
        }
        print("HEIF \(file) reduced: worst max diff \(worst)")
    }

    @Test("odd crops and turns of 4:2:0: same size and luma-driven detail, colour edges differ from libheif's bilinear path",
          arguments: HEIFFixtures.oddGeometry)
    func oddGeometry(_ file: String) throws {
        let decoded = try HEIFDecoder.decode(try HEIFFixtures.bytes(file), reduction: 1, limits: .default,
                                             tileDecoder: HEIFFixtures.referenceTileDecoder)
        let reference = try HEIFFixtures.reference(HEIFFixtures.referencePath(file))
        #expect(decoded.bitmap.width == reference.width && decoded.bitmap.height == reference.height)
        let diff = SampleDiff(decoded.bitmap.pixels, reference.pixels)
        let mean = zip(decoded.bitmap.pixels, reference.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        let meanDiff = Double(mean) / Double(max(1, diff.total))
        print("HEIF \(file) (odd geometry, libheif upsamples chroma bilinearly): max diff \(diff.maxAbs), mean \(meanDiff)")
        #expect(meanDiff < 6)
    }

    @Test("large files: full decode is bit-exact with libheif (CRC-32), 1/8 decode matches the reduced reference",
          arguments: HEIFFixtures.large)
    func large(_ file: String) throws {
        let bytes = try HEIFFixtures.bytes(file)
        let reference = try HEIFFixtures.largeReference(file)
        let full = try HEIFDecoder.decode(bytes, reduction: 1, limits: .default, tileDecoder: HEIFFixtures.referenceTileDecoder)
        #expect(full.bitmap.width == reference.width && full.bitmap.height == reference.height)
        let crc = HEIFFixtures.crc32(full.bitmap.pixels)
        print("HEIF \(file): full size \(full.bitmap.width)x\(full.bitmap.height), CRC-32 \(crc == reference.crc32 ? "equal to libheif's" : "DIFFERS")")
        #expect(crc == reference.crc32, "\(file): full-size pixels differ from libheif")
        let eighth = try HEIFDecoder.decode(bytes, reduction: 8, limits: .default, tileDecoder: HEIFFixtures.referenceTileDecoder)
        let expected = try HEIFFixtures.reference(reference.reduced8)
        let ours = HEIFFixtures.matching(eighth.bitmap, expected)
        #expect(ours.width == expected.width && ours.height == expected.height)
        let diff = SampleDiff(ours.pixels, expected.pixels)
        print("HEIF \(file) at 1/8: \(ours.width)x\(ours.height), max diff \(diff.maxAbs)")
        #expect(diff.maxAbs <= 1)
    }
}
