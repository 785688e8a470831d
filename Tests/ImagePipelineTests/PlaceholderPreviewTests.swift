import Foundation
import ImageCodec
import Testing
@testable import ImagePipeline

/// The blurred placeholder: its size, that it reads back from its bytes, that it looks like
/// the picture (mean colour exact to quantisation, low-frequency shape close), and that it
/// comes with cover renders only.
@Suite struct PlaceholderPreviewTests {
    /// A picture with a shape: a warm left half fading into a blue right half, a bright band.
    static func picture(width: Int, height: Int) throws -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                let t = Double(x) / Double(max(1, width - 1))
                let band = abs(Double(y) / Double(height) - 0.3) < 0.1 ? 60.0 : 0
                pixels[i] = UInt8(min(255, 220 * (1 - t) + 20 + band))
                pixels[i + 1] = UInt8(min(255, 120 + band))
                pixels[i + 2] = UInt8(min(255, 40 + 200 * t + band))
            }
        }
        return try Bitmap(width: width, height: height, layout: .rgb, pixels: pixels)
    }

    @Test func squarePreviewIsNineteenBytesAndReadsBack() throws {
        let preview = try #require(PlaceholderPreview(of: try Self.picture(width: 480, height: 480)))
        #expect(preview.bytes.count == 19)
        #expect(PlaceholderPreview(bytes: preview.bytes) == preview)
        #expect(PlaceholderPreview(bytes: Array(preview.bytes.dropLast())) == nil)
        #expect(PlaceholderPreview(bytes: [0x00] + preview.bytes.dropFirst()) == nil)
        #expect(PlaceholderPreview(bytes: []) == nil)
        let wide = try #require(PlaceholderPreview(of: try Self.picture(width: 960, height: 400)))
        #expect(PlaceholderPreview(bytes: wide.bytes) == wide)
        print("preview bytes: square \(preview.bytes.count), 960x400 \(wide.bytes.count)")
    }

    /// The drawn preview against the picture averaged over the same 8×8 cells: the mean colour
    /// within 2 levels per channel, every cell within 40 levels (a few cosines cannot draw a
    /// hard-edged band), and the left-right fade kept in the right direction.
    @Test func previewLooksLikeThePicture() throws {
        let bitmap = try Self.picture(width: 480, height: 480)
        let preview = try #require(PlaceholderPreview(of: bitmap))
        let drawn = preview.pixels(width: 8, height: 8)
        var worst = 0
        var sums = [0, 0, 0], drawnSums = [0, 0, 0]
        for cy in 0..<8 {
            for cx in 0..<8 {
                var cell = [0, 0, 0]
                for y in (cy * 60)..<(cy * 60 + 60) {
                    for x in (cx * 60)..<(cx * 60 + 60) {
                        for c in 0..<3 { cell[c] += Int(bitmap.pixels[(y * 480 + x) * 3 + c]) }
                    }
                }
                for c in 0..<3 {
                    let mean = cell[c] / 3600
                    sums[c] += mean
                    drawnSums[c] += Int(drawn[(cy * 8 + cx) * 3 + c])
                    worst = max(worst, abs(mean - Int(drawn[(cy * 8 + cx) * 3 + c])))
                }
            }
        }
        let meanError = (0..<3).map { abs(sums[$0] - drawnSums[$0]) / 64 }.max()!
        print("preview vs 8x8 cell means: worst cell \(worst) levels, mean colour off by \(meanError)")
        #expect(meanError <= 2)
        #expect(worst <= 40)
        #expect(drawn[0] > drawn[7 * 3] && drawn[2] < drawn[7 * 3 + 2], "red left, blue right")
        let mean = try #require(AverageColour.hex(of: bitmap))
        let hex = preview.averageColour
        let channels = { (s: String) in stride(from: 1, to: 7, by: 2).map { Int(s.dropFirst($0).prefix(2), radix: 16)! } }
        #expect(zip(channels(mean), channels(hex)).allSatisfy { abs($0 - $1) <= 2 }, "\(mean) vs \(hex)")
    }

    @Test func dataURLIsASmallPNG() throws {
        let preview = try #require(PlaceholderPreview(of: try Self.picture(width: 240, height: 240)))
        let url = try #require(preview.dataURL())
        #expect(url.hasPrefix("data:image/png;base64,"))
        let png = try #require(Data(base64Encoded: String(url.dropFirst("data:image/png;base64,".count))))
        let decoded = try ImageCodec.decode([UInt8](png)).bitmap
        #expect(decoded.width == 8 && decoded.height == 8)
        #expect(decoded.pixels == preview.pixels(width: 8, height: 8))
        print("placeholder data URL: \(url.utf8.count) characters (PNG \(png.count) bytes)")
        for edge in [4, 5, 6, 8] { print("  drawn at \(edge)x\(edge): \(preview.dataURL(width: edge, height: edge)?.utf8.count ?? 0) characters") }
        #expect(url.utf8.count < 400)
        #expect(preview.dataURL(width: 0, height: 8) == nil && preview.dataURL(width: 65, height: 8) == nil)
    }

    @Test func gray1x1AndTinyBitmaps() throws {
        let gray = try Bitmap(width: 1, height: 1, layout: .gray, pixels: [200])
        let preview = try #require(PlaceholderPreview(of: gray))
        #expect(preview.averageColour == "#c8c8c8")
        #expect(preview.pixels(width: 2, height: 2) == [UInt8](repeating: 200, count: 12))
    }

    @Test func coverRendersCarryAPreviewFitRendersDoNot() throws {
        let jpeg = try JPEGEncoder.encode(try Self.picture(width: 900, height: 600), quality: 90)
        let cover = try Renderer.render(jpeg, mode: .cover(width: 240, height: 240)).image
        #expect(cover.preview != nil && cover.averageColour != nil)
        let fit = try Renderer.render(jpeg, mode: .fit(maxEdge: 480)).image
        #expect(fit.preview == nil)
    }
}
