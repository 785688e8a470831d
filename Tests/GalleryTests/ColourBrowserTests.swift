import Foundation
import Gallery
import ImageCodec
import Testing

/// Wide-gamut photos look like their sRGB source in headless Chromium, in both colour modes:
/// the same 64×64 picture as sRGB, Adobe RGB, Display P3 and ProPhoto (the colour fixtures,
/// converted by lcms2 with the profile embedded) in one album. Chromium colour-manages images
/// it draws into a 2D canvas, so the canvas pixels are what a viewer sees on an sRGB screen. A
/// control, the Adobe RGB numbers without their profile, must look wrong, or the check proves
/// nothing.
@Suite(.serialized) struct ColourBrowserTests {
    static let sources = ["source_srgb.png", "adobe_rgb.png", "display_p3.png", "prophoto.png"]

    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"),
          arguments: ["srgb", "wide"])
    func wideGamutThumbnailsLookLikeTheirSource(mode: String) throws {
        let base = NSTemporaryDirectory() + "gallery-colour-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: base + "/photos/Colour", withIntermediateDirectories: true)
        for name in Self.sources {
            try FileManager.default.copyItem(atPath: Fixtures.testsDirectory.appendingPathComponent("Fixtures/colour/" + name).path,
                                             toPath: base + "/photos/Colour/" + name)
        }
        let adobe = try ImageCodec.decode(Array(FileManager.default.contents(atPath: base + "/photos/Colour/adobe_rgb.png")!))
        try Data(try PNGEncoder.encode(adobe.bitmap)).write(to: URL(fileURLWithPath: base + "/photos/Colour/untagged_adobe_numbers.png"))
        let library = TestLibrary(root: base + "/photos")
        defer { library.remove() }
        let stack = try GalleryStack(library: library, arguments: ["--colour", mode])
        defer { stack.stop() }
        let album = try #require(EndToEndTests.catalog(library).albums.values.first { $0.title == "Colour" })

        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1200, height: 800, scale: 1, touch: false)
        try browser.navigate("http://127.0.0.1:\(stack.port)/album/\(album.id)")
        try browser.wait("Array.prototype.every.call(document.querySelectorAll('.grid.items img'), function (i) { return i.complete && i.naturalWidth > 0; })",
                         "thumbnails to load")
        // Each thumbnail's pixels as Chromium shows them, by title; then PSNR and mean colour
        // difference against the sRGB source's thumbnail.
        let json = try browser.evalString("""
        (function () {
          function pixels(img) {
            var c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
            var g = c.getContext('2d'); g.drawImage(img, 0, 0); return g.getImageData(0, 0, c.width, c.height).data;
          }
          var shown = {};
          document.querySelectorAll('.grid.items img').forEach(function (img) { shown[img.alt] = { px: pixels(img), src: img.currentSrc }; });
          var ref = shown['source srgb'].px, out = {};
          Object.keys(shown).forEach(function (k) {
            var p = shown[k].px, sum = 0, n = 0, mean = [0, 0, 0];
            for (var i = 0; i < p.length; i += 4) for (var c = 0; c < 3; c++) { var d = p[i + c] - ref[i + c]; sum += d * d; mean[c] += d; n++; }
            out[k] = { psnr: sum ? 10 * Math.log10(255 * 255 * n / sum) : 99, drift: Math.max.apply(null, mean.map(function (m) { return Math.abs(m / (n / 3)); })),
                       src: shown[k].src, same: p.length === ref.length };
          });
          return JSON.stringify(out);
        })()
        """)
        let results = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String: Any]])
        for (title, r) in results.sorted(by: { $0.key < $1.key }) where title != "source srgb" {
            let psnr = r["psnr"] as? Double ?? 0, drift = r["drift"] as? Double ?? 99
            print(String(format: "colour in Chromium (%@): %-10@ PSNR %.1f dB against the sRGB source's thumbnail, mean drift %.2f levels (%@)",
                         mode, title as NSString, psnr, drift, (r["src"] as? String ?? "") as NSString))
            #expect(r["same"] as? Bool == true, "\(title): not the source's size")
            if title == "untagged adobe numbers" {
                #expect(psnr < 30, "the control looks right: the check cannot tell managed from unmanaged colour")
                continue
            }
            #expect((r["src"] as? String)?.contains(".webp?v=") == true, "\(title): Chromium did not take the WebP")
            #expect(psnr >= 30, "\(title) in \(mode) mode looks different from its source (\(psnr) dB)")
            // In wide mode the P3 render is rounded twice (ours into P3, Chromium's back to sRGB).
            #expect(drift <= 3, "\(title) in \(mode) mode drifts \(drift) levels from its source")
        }
    }
}
