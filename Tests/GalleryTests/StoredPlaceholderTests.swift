import ImageCodec
import ImagePipeline
import Testing
@testable import Gallery

/// The index's placeholder column: colour alone (rows from before previews), colour and
/// preview, and damaged text.
@Suite struct StoredPlaceholderTests {
    static func preview() throws -> PlaceholderPreview {
        var pixels = [UInt8](repeating: 0, count: 64 * 48 * 3)
        for i in stride(from: 0, to: pixels.count, by: 3) {
            let x = (i / 3) % 64
            pixels[i] = UInt8(x * 4)
            pixels[i + 1] = 90
            pixels[i + 2] = UInt8(255 - x * 4)
        }
        return try #require(PlaceholderPreview(of: try Bitmap(width: 64, height: 48, layout: .rgb, pixels: pixels)))
    }

    @Test func colourAndPreviewRoundTrip() throws {
        let stored = StoredPlaceholder(colour: "#7f5a80", preview: try Self.preview())
        let back = try #require(StoredPlaceholder(text: stored.text))
        #expect(back == stored)
        #expect(back.preview?.dataURL() != nil)
    }

    @Test func colourAloneStillReads() throws {
        let back = try #require(StoredPlaceholder(text: "#102030"))
        #expect(back.colour == "#102030")
        #expect(back.preview == nil)
    }

    @Test func damagedTextKeepsWhatItCan() {
        #expect(StoredPlaceholder(text: "") == nil)
        #expect(StoredPlaceholder(text: "red") == nil)
        #expect(StoredPlaceholder(text: "#102030 zz")?.preview == nil)
        #expect(StoredPlaceholder(text: "#102030 0102")?.preview == nil)
        #expect(StoredPlaceholder(text: "#102030 " + String(repeating: "a", count: 4000))?.preview == nil)
    }
}
