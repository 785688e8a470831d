import Foundation
import Testing
@testable import ImageCodec

/// Hostile and damaged WebP files: every failure is a typed `ImageCodecError`, quickly, and
/// headers that claim huge images are refused before anything large is allocated. Also the
/// metadata a gallery shows (EXIF orientation and camera, ICC) and reduced decodes.
@Suite struct WebPRobustnessTests {
    private func decodeOrError(_ bytes: [UInt8], scale: DecodeScale = .full, limits: DecodeLimits = .default) -> ImageCodecError? {
        do {
            _ = try ImageCodec.decode(bytes, scale: scale, limits: limits)
            return nil
        } catch let error as ImageCodecError {
            return error
        } catch {
            Issue.record("untyped error \(error)")
            return nil
        }
    }

    @Test func truncatedFilesFailWithTypedErrors() throws {
        let clock = ContinuousClock()
        var refused = 0, total = 0
        let elapsed = try clock.measure {
            for entry in WebPFixtures.entries {
                let bytes = try WebPFixtures.bytes(entry.file)
                for length in Set([0, 4, 11, 12, 16, 20, 29, 30, 40, bytes.count / 2, bytes.count - 7, bytes.count - 1]) where length < bytes.count && length >= 0 {
                    total += 1
                    if decodeOrError(Array(bytes[..<length])) != nil { refused += 1 }
                }
            }
        }
        print("WebP truncation: \(refused)/\(total) cut files refused with typed errors in \(elapsed)")
        #expect(elapsed < .seconds(10))
    }

    @Test func bitFlipsNeverCrash() throws {
        var rng = SplitMix64(seed: 0x5EB9)
        var inputs = 0, decoded = 0
        for entry in WebPFixtures.entries {
            let original = try WebPFixtures.bytes(entry.file)
            for _ in 0..<40 {
                var bytes = original
                for _ in 0..<Int(rng.next() % 4 + 1) {
                    let i = Int(rng.next() % UInt64(bytes.count))
                    bytes[i] ^= UInt8(1 << (rng.next() % 8))
                }
                inputs += 1
                if decodeOrError(bytes, scale: [DecodeScale.full, .half, .eighth][inputs % 3]) == nil { decoded += 1 }
            }
        }
        print("WebP bit flips: \(inputs) inputs, \(decoded) still decoded, none crashed")
    }

    /// A VP8X file claiming a `width` × `height` canvas with a 1×1 lossless image.
    private func extendedClaim(width: Int, height: Int) throws -> [UInt8] {
        let small = try WebPFixtures.bytes("lossless_1x1.webp")
        let image = Array(small[12...])
        var vp8x: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0, 0x10, 0, 0, 0]
        for v in [width - 1, height - 1] { vp8x += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v >> 16)] }
        let body = Array("WEBP".utf8) + vp8x + image
        let size = body.count
        return Array("RIFF".utf8) + [UInt8(size & 0xFF), UInt8((size >> 8) & 0xFF), 0, 0] + body
    }

    @Test func hugeClaimsAreRefusedBeforeAllocating() throws {
        // 16,000,000² canvas around a 1×1 image: refused (the canvas the image does not fill, or the limits).
        let huge = try extendedClaim(width: 16_000_000, height: 16_000_000)
        #expect(decodeOrError(huge) != nil)
        #expect(throws: ImageCodecError.self) { try ImageCodec.memoryEstimate(huge) }
        #expect(throws: ImageCodecError.self) { try ImageCodec.probe(huge) }
        // A lossless header claiming 16384 × 16384 (1 GiB of ARGB) over a few bytes.
        var lossless = try WebPFixtures.bytes("lossless_1x1.webp")
        let w = 16383, h = 16383
        let bits = UInt32(w) | UInt32(h) << 14
        for i in 0..<4 { lossless[21 + i] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(i))) }
        lossless[24] &= 0x0F  // keep version 0
        let small = DecodeLimits(maxPixels: 300_000_000, maxDimension: 20_000, maxMemoryBytes: 256 << 20)
        #expect(decodeOrError(lossless, limits: small)?.kind == .limitExceeded)
        #expect(throws: ImageCodecError.self) { try ImageCodec.memoryEstimate(lossless, limits: small) }
        // (Within the limits such a file is valid: its one-symbol prefix codes spend no bits per
        // pixel, so it decodes to a flat image like libwebp does.)
        let clock = ContinuousClock()
        // A lossy frame claiming 16383 × 16383: its missing token data is found at once.
        var lossy = try WebPFixtures.bytes("lossy_1x1.webp")
        lossy[26] = 0xFF; lossy[27] = 0x3F; lossy[28] = 0xFF; lossy[29] = 0x3F
        #expect(decodeOrError(lossy)?.kind == .limitExceeded)
        let elapsedLossy = clock.measure {
            #expect(decodeOrError(lossy, limits: DecodeLimits(maxPixels: 300_000_000, maxDimension: 20_000, maxMemoryBytes: 2 << 30)) != nil)
        }
        print("WebP 16383x16383 lossy claim refused in \(elapsedLossy)")
    }

    @Test func memoryEstimateCoversTheDecode() throws {
        for entry in WebPFixtures.entries {
            let bytes = try WebPFixtures.bytes(entry.file)
            for scale in [DecodeScale.full, .eighth] {
                let estimate = try ImageCodec.memoryEstimate(bytes, scale: scale)
                #expect(estimate > 0)
                let limits = DecodeLimits(maxMemoryBytes: estimate - 1)
                #expect(decodeOrError(bytes, scale: scale, limits: limits)?.kind == .limitExceeded, "\(entry.file)")
            }
        }
    }

    @Test func metadataIsReported() throws {
        let exif = try ImageCodec.probe(WebPFixtures.bytes("exif_orientation6.webp"))
        #expect(exif.orientation == .rotatedClockwise)
        #expect(exif.exif.make == "TestMake" && exif.exif.model == "TestModel")
        #expect(exif.format == .webp && exif.colorSpace == "YCbCr" && !exif.hasAlpha)
        let icc = try ImageCodec.probe(WebPFixtures.bytes("icc_a98.webp"))
        let profile = try #require(icc.iccProfile)
        #expect(profile.count > 128 && Array(profile[36..<40]) == Array("acsp".utf8))
        #expect(icc.colorSpace == "RGB")
        let animated = try ImageCodec.probe(WebPFixtures.bytes("animated_40x30.webp"))
        #expect(animated.width == 40 && animated.height == 30 && animated.hasAlpha)
    }

    @Test func reducedDecodesAreTheBoxAverageOfTheFullDecode() throws {
        var compared = 0
        for entry in WebPFixtures.entries {
            let bytes = try WebPFixtures.bytes(entry.file)
            let full = try ImageCodec.decode(bytes).bitmap
            for (scale, factor) in [(DecodeScale.half, 2), (.quarter, 4), (.eighth, 8)] {
                let reduced = try ImageCodec.decode(bytes, scale: scale).bitmap
                #expect(reduced == (try PNGFixtures.boxAverage(full, factor: factor)), "\(entry.file) at 1/\(factor)")
                compared += 1
            }
        }
        print("WebP reduced decodes: \(compared) equal to the box average of the full decode")
    }
}
