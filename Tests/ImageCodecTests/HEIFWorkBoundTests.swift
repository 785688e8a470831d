import Foundation
import Synchronization
import Testing
@testable import ImageCodec

/// The HEIF work bound (`DecodeLimits.maxPixelsPerCodedByte`, `HEIFDecodeWork`): grids that
/// name a few coded bytes hundreds of times are refused while the items are resolved, honest
/// flat grids are not; and the 256 MP pixel limit that lets 200 MP camera grids through.
/// Files: `Tests/Fixtures/heic/tools/make_work_bound.py`.
@Suite("HEIF work bound")
struct HEIFWorkBoundTests {
    static func kind(_ body: () throws -> Void) -> ImageCodecError.Kind? {
        do { try body(); return nil } catch let e as ImageCodecError { print("  \(e)"); return e.kind } catch { return nil }
    }

    @Test("200 MP of decodes from a few coded bytes is refused in under a second, before any tile is decoded",
          arguments: ["generated/hostile_grid_768_uses.heic", "generated/hostile_grid_shared_range.heic",
                      "generated/hostile_ispe_65535.heic", "generated/hostile_grid_16641_tiles.heic"])
    func hostile(_ file: String) throws {
        let bytes = try HEIFFixtures.bytes(file)
        let calls = Mutex(0)
        let counting: HEIFTileDecoder = { ps, data, ls, limits in
            calls.withLock { $0 += 1 }
            return try HEVCDecoder.decode(parameterSets: ps, data: data, lengthSize: ls, limits: limits)
        }
        let start = Date()
        print("HEIF \(file) (\(bytes.count) bytes):")
        #expect(Self.kind { _ = try ImageCodec.probe(bytes) } == .limitExceeded)
        #expect(Self.kind { _ = try ImageCodec.memoryEstimate(bytes, scale: .eighth) } == .limitExceeded)
        #expect(Self.kind { _ = try HEIFDecoder.decode(bytes, reduction: 8, limits: .default, tileDecoder: counting) } == .limitExceeded)
        let seconds = Date().timeIntervalSince(start)
        print("  refused three times in \(String(format: "%.3f", seconds)) s")
        #expect(seconds < 1)
        #expect(calls.withLock { $0 } == 0)
    }

    @Test("a file cut short keeps the decode's own error, not the work bound's: its missing bytes counted nothing")
    func truncated() throws {
        let kind = Self.kind { _ = try ImageCodec.probe(try HEIFFixtures.bytes("heif_corrupted_corrupted.hif")) }
        #expect(kind != nil && kind != .limitExceeded)
    }

    @Test("the tally counts every decode but each coded byte once")
    func tally() throws {
        for file in ["generated/hostile_grid_768_uses.heic", "generated/hostile_grid_shared_range.heic"] {
            var lenient = DecodeLimits.default
            lenient.maxPixelsPerCodedByte = .max
            let graph = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes(file)), limits: lenient)
            let tally = try #require(HEIFDecodeWork.tally([graph.primary], container: graph.container))
            let tileBytes = try graph.container.data(of: graph.primary.tiles[0].itemID, limits: .default).count
            print("HEIF \(file): \(tally.pixels) pixels from \(tally.codedBytes) coded bytes (one tile: \(tileBytes) bytes)")
            #expect(tally.pixels == 768 * 512 * 512)
            #expect(tally.codedBytes == tileBytes)
        }
    }

    @Test("an honest flat grid above the free pixels passes; the bound is the documented formula")
    func honest() throws {
        let bytes = try HEIFFixtures.bytes("generated/grid_80_flat_tiles.heic")
        let info = try ImageCodec.probe(bytes)
        #expect(info.width == 5120 && info.height == 4096 && info.tileCount == 80)
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let tally = try #require(HEIFDecodeWork.tally([graph.primary], container: graph.container))
        print("HEIF grid_80_flat_tiles.heic: \(tally.pixels) pixels from \(tally.codedBytes) coded bytes, \(tally.pixels / tally.codedBytes) per byte")
        #expect(tally.pixels > DecodeLimits.freeDecodedPixels)
        // Just below what the file has: refused; exactly the bound: accepted.
        let perByte = (tally.pixels - DecodeLimits.freeDecodedPixels + tally.codedBytes - 1) / tally.codedBytes
        var limits = DecodeLimits.default
        limits.maxPixelsPerCodedByte = perByte
        #expect(Self.kind { _ = try ImageCodec.probe(bytes, limits: limits) } == nil)
        limits.maxPixelsPerCodedByte = perByte - 1
        #expect(Self.kind { _ = try ImageCodec.probe(bytes, limits: limits) } == .limitExceeded)
        // And it decodes (one tile type repeated, so our decoder's output is two flat colours).
        let thumb = try ImageCodec.decode(bytes, scale: .eighth)
        #expect(thumb.bitmap.width == 640 && thumb.bitmap.height == 512)
    }

    @Test("a 200 MP grid is within the default pixel limit; 65535x65535 and 257 MP are not")
    func pixelLimit() throws {
        let limits = DecodeLimits.default
        #expect(Self.kind { try limits.check(width: 16320, height: 12240) } == nil)
        #expect(Self.kind { try limits.check(width: 16384, height: 12288) } == nil)
        #expect(Self.kind { try limits.check(width: 16384, height: 15700) } == .limitExceeded)
        #expect(Self.kind { try limits.check(width: 65535, height: 65535) } == .limitExceeded)
    }

    @Test("a coded picture larger than its tile's ispe plus 64 is refused by the decoder's narrowed limits")
    func tileLimits() throws {
        let graph = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes("heif_other_arrow.heic")), limits: .default)
        let tight = HEIFPictureRenderer.tileLimits(graph.primary, .default)
        #expect(tight.maxPixels == 576 * 576 && tight.maxDimension == 576)
        #expect(Self.kind { try tight.check(width: 576, height: 576) } == nil)
        #expect(Self.kind { try tight.check(width: 577, height: 512) } == .limitExceeded)
    }
}
