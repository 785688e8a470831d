import Foundation
import Testing
@testable import ImageCodec

/// `iovl` overlays and grid alpha decoded tile by tile: structure, limits and hostile files.
/// Pixels against libheif are checked with the other fixtures (`HEIFFixtures.decodable`).
@Suite("HEIF overlays and tiled alpha")
struct HEIFDerivedItemsTests {
    static let hostile: [(file: String, kind: ImageCodecError.Kind)] = [
        ("generated/hostile_iovl_huge_canvas.heic", .limitExceeded),
        ("generated/hostile_iovl_offset_overflow.heic", .corrupt),
        ("generated/hostile_iovl_self.heic", .corrupt),
        ("generated/hostile_iovl_missing_input.heic", .corrupt),
        ("generated/hostile_iovl_short.heic", .corrupt),
        ("generated/hostile_iovl_zero_canvas.heic", .corrupt),
        ("generated/hostile_iovl_no_inputs.heic", .corrupt),
        ("generated/hostile_iovl_200_draws.heic", .limitExceeded),
    ]

    @Test("overlay plan: canvas size, fill, offsets (negative, 32-bit), inputs with their own transforms")
    func overlayPlan() throws {
        let two = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes("generated/iovl_two_inputs.heic")), limits: .default)
        let overlay = try #require(two.primary.overlay)
        #expect(two.primary.displayWidth == 100 && two.primary.displayHeight == 70)
        #expect(overlay.fill.r == 0x20 && overlay.fill.g == 0x80 && overlay.fill.b == 0xC0)
        #expect(overlay.inputs.map { [$0.x, $0.y, $0.plan.displayWidth, $0.plan.displayHeight] } == [[10, 5, 64, 48], [70, 30, 40, 32]])
        #expect(two.alpha == nil)
        let negative = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes("generated/iovl_negative_long.heic")), limits: .default)
        #expect(negative.primary.overlay?.inputs.map { [$0.x, $0.y, $0.plan.displayWidth, $0.plan.displayHeight] } == [[-20, -10, 64, 48], [-8, 30, 32, 40]])
        let turned = try ImageCodec.probe(try HEIFFixtures.bytes("generated/iovl_grid_rot90.heic"))
        #expect(turned.width == 64 && turned.height == 90 && !turned.hasAlpha && turned.components == 3)
    }

    @Test("hostile overlays fail fast with the expected typed error", arguments: hostile.map(\.file))
    func hostileOverlays(_ file: String) throws {
        let want = try #require(Self.hostile.first { $0.file == file }?.kind)
        let start = Date()
        var kind: ImageCodecError.Kind?
        // A 100,000-pixel limit: 200 draws of the 64x48 input (614,400 pixels) exceed it.
        var limits = DecodeLimits.default
        limits.maxPixels = 100_000
        do {
            _ = try HEIFDecoder.decode(try HEIFFixtures.bytes(file), reduction: 8, limits: limits, tileDecoder: HEIFFixtures.failingTileDecoder)
        } catch let e as ImageCodecError {
            kind = e.kind
            print("HEIF \(file): \(e)")
        }
        #expect(kind == want, "\(file)")
        #expect(Date().timeIntervalSince(start) < 1)
    }

    @Test("an overlay's canvas is checked against the limits before anything is allocated")
    func overlayLimits() throws {
        let bytes = try HEIFFixtures.bytes("generated/iovl_two_inputs.heic")
        var small = DecodeLimits.default
        small.maxPixels = 100 * 70 - 1
        #expect { _ = try ImageCodec.probe(bytes, limits: small) } throws: { ($0 as? ImageCodecError)?.kind == .limitExceeded }
        let estimate = try ImageCodec.memoryEstimate(bytes, scale: .full)
        print("HEIF iovl_two_inputs (100x70 canvas, inputs 64x48 and 40x32): memory estimate \(estimate) bytes")
        #expect(estimate >= 100 * 70 * 3 * 2)
        var tight = DecodeLimits.default
        tight.maxMemoryBytes = estimate - 1
        #expect { _ = try ImageCodec.decode(bytes, limits: tight) } throws: { ($0 as? ImageCodecError)?.kind == .limitExceeded }
    }

    /// Means of f×f blocks of an RGBA picture, colour weighted by alpha, rounded half up.
    static func alphaWeighted(_ image: Bitmap, factor f: Int) -> (width: Int, height: Int, pixels: [UInt8]) {
        let w = image.width, h = image.height, ow = (w + f - 1) / f, oh = (h + f - 1) / f
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        for by in 0..<oh {
            for bx in 0..<ow {
                var sums = [Int](repeating: 0, count: 4), n = 0
                for y in (by * f)..<min(h, by * f + f) {
                    for x in (bx * f)..<min(w, bx * f + f) {
                        let i = (y * w + x) * 4, a = Int(image.pixels[i + 3])
                        for k in 0..<3 { sums[k] += Int(image.pixels[i + k]) * a }
                        sums[3] += a
                        n += 1
                    }
                }
                let o = (by * ow + bx) * 4
                for k in 0..<3 { out[o + k] = sums[3] == 0 ? 0 : UInt8((sums[k] + sums[3] / 2) / sums[3]) }
                out[o + 3] = UInt8((sums[3] + n / 2) / n)
            }
        }
        return (ow, oh, out)
    }

    @Test("a grid alpha laid out like its colour grid is decoded tile by tile: no full-size alpha plane in the estimate")
    func alphaTiles() throws {
        let bytes = try HEIFFixtures.bytes("generated/alpha_grid.heic")
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let alpha = try #require(graph.alpha)
        #expect(HEIFPictureRenderer.alphaFollowsTiles(alpha, graph.primary))
        let estimate = HEIFDecoder.estimate(graph, reduction: 8, threads: 2).description
        print("HEIF alpha_grid.heic at 1/8: \(estimate)")
        #expect(estimate.contains("alpha tile") && !estimate.contains("alpha plane"))
        // A single coded alpha under a single coded picture is a 1x1 "grid" too; the 29x100
        // fixture's alpha takes the tiled path, which must still match libheif (decodable list).
        if HEIFFixtures.dec265Available {
            // Reduced: alpha-weighted block means of libheif's full-size picture (where alpha is
            // 0 the colour is 0), which is what the tiled path must give.
            let reference = try HEIFFixtures.reference(HEIFFixtures.referencePath("generated/alpha_grid.heic"))
            var worst = 0
            for factor in [2, 4, 8] {
                let decoded = try HEIFDecoder.decode(bytes, reduction: factor, limits: .default, tileDecoder: HEIFFixtures.referenceTileDecoder)
                let expected = Self.alphaWeighted(reference, factor: factor)
                #expect(decoded.bitmap.width == expected.width && decoded.bitmap.layout == .rgba)
                let diff = SampleDiff(decoded.bitmap.pixels, expected.pixels)
                worst = max(worst, diff.maxAbs)
            }
            print("HEIF alpha_grid.heic reduced by 2, 4, 8 (alpha tile by tile): worst max diff \(worst) against libheif's picture")
            #expect(worst <= 1)
        }
        let single = try HEIFImageGraph(try HEIFContainer(try HEIFFixtures.bytes("heif_RGBA_8__29x100.heif")), limits: .default)
        #expect(single.alpha.map { HEIFPictureRenderer.alphaFollowsTiles($0, single.primary) } == true)
    }
}
