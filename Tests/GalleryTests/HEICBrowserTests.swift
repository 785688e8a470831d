import Foundation
import Gallery
import ImageCodec
import Testing

/// HEIC photos dropped into a gallery folder show upright in headless Chromium, on the album
/// page (square cover thumbnails) and on each photo's page (the whole picture): three files
/// stored turned or mirrored so that only their `irot`/`imir` properties make them upright
/// (four flat quadrants, red top left, green top right, blue bottom left, white bottom right),
/// and the iPhone 8 Plus grid photo (48 tiles, `irot`, an arrow pointing up).
///
/// Chromium's own pixels are read back: each shown image's URL is loaded again into a canvas
/// at its real size and averaged into 16×16 blocks. Those must match libheif's picture of the
/// file (the committed reference, centre-cropped to a square for thumbnails) better than any
/// turned or mirrored version of it that looks different, and have its aspect ratio.
@Suite(.serialized) struct HEICBrowserTests {
    /// File in Tests/Fixtures/heic, name in the album, libheif's picture of it.
    static let photos: [(fixture: String, name: String, reference: String)] = [
        ("generated/orient_irot1.heic", "Turned.heic", "reference/gen_orient_irot1.png"),
        ("generated/orient_imir1.heic", "Mirrored.heic", "reference/gen_orient_imir1.png"),
        ("generated/orient_irot3_imir0.heic", "Turned_and_flipped.heic", "reference/gen_orient_irot3_imir0.png"),
        ("heif_other_arrow.heic", "iPhone_grid.heic", "reference/heif_other_arrow.r8.png"),
    ]
    static let blocks = 16

    /// For every image matching `selector`: its title (alt), real size and 16×16 block means
    /// (RGB), from the URL Chromium chose, as JSON.
    static func readBack(_ selector: String) -> String {
        """
        Promise.all(Array.prototype.map.call(document.querySelectorAll(\(CDPBrowser.quoted(selector))), function (img) {
          return new Promise(function (done) {
            var copy = new Image();
            copy.onload = function () {
              var w = copy.naturalWidth, h = copy.naturalHeight, n = \(blocks);
              var c = document.createElement('canvas'); c.width = w; c.height = h;
              var g = c.getContext('2d'); g.drawImage(copy, 0, 0);
              var p = g.getImageData(0, 0, w, h).data, sums = new Array(n * n * 3).fill(0), counts = new Array(n * n).fill(0);
              for (var y = 0; y < h; y++) for (var x = 0; x < w; x++) {
                var b = Math.floor(y * n / h) * n + Math.floor(x * n / w), i = (y * w + x) * 4;
                sums[b * 3] += p[i]; sums[b * 3 + 1] += p[i + 1]; sums[b * 3 + 2] += p[i + 2]; counts[b]++;
              }
              done({ title: img.alt, src: img.currentSrc, w: w, h: h,
                     means: sums.map(function (s, k) { return s / counts[Math.floor(k / 3)]; }) });
            };
            copy.onerror = function () { done({ title: img.alt, src: img.currentSrc, w: 0, h: 0, means: [] }); };
            copy.src = img.currentSrc;
          });
        })).then(function (all) { return JSON.stringify(all); })
        """
    }

    struct Shown {
        var title: String
        var src: String
        var width: Int
        var height: Int
        var means: [Double]
    }

    static func parse(_ json: String) throws -> [Shown] {
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return list.map {
            Shown(title: $0["title"] as? String ?? "", src: $0["src"] as? String ?? "", width: $0["w"] as? Int ?? 0,
                  height: $0["h"] as? Int ?? 0, means: ($0["means"] as? [NSNumber] ?? []).map(\.doubleValue))
        }
    }

    /// Block means of `bitmap` (RGB or gray), the way the page computes them.
    static func means(_ bitmap: Bitmap) -> [Double] {
        let rgb = bitmap.layout == .rgb ? bitmap : bitmap.converted(to: .rgb)
        let n = blocks, w = rgb.width, h = rgb.height
        var sums = [Double](repeating: 0, count: n * n * 3), counts = [Double](repeating: 0, count: n * n)
        for y in 0..<h {
            for x in 0..<w {
                let b = (y * n / h) * n + x * n / w, i = (y * w + x) * 3
                for k in 0..<3 { sums[b * 3 + k] += Double(rgb.pixels[i + k]) }
                counts[b] += 1
            }
        }
        return sums.indices.map { sums[$0] / counts[$0 / 3] }
    }

    static func distance(_ a: [Double], _ b: [Double]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } / Double(a.count)
    }

    /// The centre square of `bitmap`, as a cover thumbnail shows it.
    static func centreSquare(_ bitmap: Bitmap) throws -> Bitmap {
        let side = min(bitmap.width, bitmap.height)
        return try bitmap.cropped(x: (bitmap.width - side) / 2, y: (bitmap.height - side) / 2, width: side, height: side)
    }

    /// Checks one shown image against `reference`: aspect ratio within 2 %, and its blocks
    /// nearer the upright reference than to every orientation of it that differs visibly.
    static func expectUpright(_ shown: Shown, _ reference: Bitmap, page: String) {
        let what = "\(page): \(shown.title) (\(shown.src))"
        let want = Double(reference.width) / Double(reference.height)
        let got = shown.height > 0 ? Double(shown.width) / Double(shown.height) : 0
        #expect(abs(got / want - 1) < 0.02, "\(what): shown \(shown.width)x\(shown.height), want aspect \(want)")
        let upright = means(reference)
        let dUp = distance(shown.means, upright)
        var nearestOther = Double.infinity
        for o in Orientation.allCases where o != .up {
            let other = means(o.apply(to: reference))
            guard distance(other, upright) >= 2 else { continue }   // looks the same turned this way
            let d = distance(shown.means, other)
            nearestOther = min(nearestOther, d)
            #expect(dUp < d, "\(what): looks more like the picture \(o) (\(d)) than upright (\(dUp))")
        }
        print(String(format: "HEIC in Chromium, %@: %@ %dx%d, block distance %.2f upright, %.2f nearest turned or mirrored",
                     page, shown.title, shown.width, shown.height, dUp, nearestOther))
        #expect(dUp < 8, "\(what): block distance \(dUp) from libheif's picture")
    }

    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"))
    func heicPhotosShowUprightInListAndDetail() throws {
        let started = Date()
        let base = NSTemporaryDirectory() + "gallery-heic-\(UUID().uuidString.prefix(8))"
        let heic = Fixtures.testsDirectory.appendingPathComponent("Fixtures/heic")
        try FileManager.default.createDirectory(atPath: base + "/photos/Phone", withIntermediateDirectories: true)
        var references: [String: Bitmap] = [:]
        for p in Self.photos {
            try FileManager.default.copyItem(atPath: heic.appendingPathComponent(p.fixture).path, toPath: base + "/photos/Phone/" + p.name)
            let title = (p.name as NSString).deletingPathExtension.replacingOccurrences(of: "_", with: " ")
            references[title] = try ImageCodec.decode(Array(try Data(contentsOf: heic.appendingPathComponent(p.reference)))).bitmap
        }
        let library = TestLibrary(root: base + "/photos")
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let album = try #require(catalog.albums.values.first { $0.title == "Phone" })
        try #require(album.itemIDs.count == Self.photos.count)

        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1200, height: 800, scale: 1, touch: false)
        let origin = "http://127.0.0.1:\(stack.port)"
        try browser.navigate(origin + "/album/\(album.id)")
        try browser.wait("Array.prototype.every.call(document.querySelectorAll('.grid.items img'), function (i) { return i.complete && i.naturalWidth > 0; })",
                         "HEIC thumbnails to load")
        let thumbnails = try Self.parse(try browser.evalString(Self.readBack(".grid.items img")))
        #expect(thumbnails.count == Self.photos.count)
        for shown in thumbnails {
            let reference = try #require(references[shown.title], "no reference for \(shown.title)")
            Self.expectUpright(shown, try Self.centreSquare(reference), page: "album")
        }
        for id in album.itemIDs {
            try browser.navigate(origin + "/photo/\(id)")
            try browser.wait("(function () { var i = document.querySelector('img.main'); return i && i.complete && i.naturalWidth > 0; })()",
                             "detail image of \(catalog.items[id]?.fileName ?? id)")
            let shown = try #require(try Self.parse(try browser.evalString(Self.readBack("img.main"))).first)
            let reference = try #require(references[shown.title], "no reference for \(shown.title)")
            Self.expectUpright(shown, reference, page: "detail")
        }
        let seconds = Date().timeIntervalSince(started)
        print(String(format: "HEIC browser test: %.1f s", seconds))
        #expect(seconds < 20)
    }
}
