import Foundation
import Gallery
import ImageCodec
import ImagePipeline
import Testing

/// Variants of a render that enter its URL, through nginx as deployed: WebP beside JPEG
/// (`/img/<id>/<size>.webp?v=…`), `--formats jpeg`, and `--colour wide` (a "-p3" version).
@Suite(.serialized) struct FormatServingTests {
    static let webpFixture = Fixtures.testsDirectory.appendingPathComponent("Fixtures/webp/exif_orientation6.webp").path
    static let adobeFixture = Fixtures.testsDirectory.appendingPathComponent("Fixtures/colour/adobe_rgb.png").path

    /// The test library plus a WebP stored turned (EXIF orientation 6) and an Adobe RGB PNG.
    static func library() throws -> TestLibrary {
        let library = try TestLibrary.make()
        try FileManager.default.copyItem(atPath: webpFixture, toPath: library.root + "/Trips/Turned_WebP.webp")
        try FileManager.default.copyItem(atPath: adobeFixture, toPath: library.root + "/Trips/Adobe.png")
        return library
    }

    /// The first `/img/` URL on `html` whose path ends with `suffix` (before the query).
    static func imageURL(_ html: String, id: String, endingWith suffix: String) -> String? {
        ImageURLs.extract(from: html).filter { $0.hasPrefix("/img/\(id)/") && $0.split(separator: "?")[0].hasSuffix(suffix) }.sorted().first
    }

    @Test func webpIsOfferedBesideJPEGAndCachedByURL() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        let catalog = EndToEndTests.catalog(library)
        let trips = catalog.albums.values.first { $0.title == "Trips" }!
        let flower = catalog.items.values.first { $0.fileName == "Flower.jpg" }!

        let album = try stack.get("/album/\(trips.id)")
        #expect(album.status == 200)
        #expect(album.text.contains("<picture><source type=\"image/webp\" srcset=\"/img/\(flower.id)/240x240.webp?v="))
        let detail = try stack.get("/photo/\(flower.id)")
        #expect(detail.text.contains("<source type=\"image/webp\" srcset=\"/img/\(flower.id)/960.webp?v="))

        let webpURL = try #require(Self.imageURL(album.text, id: flower.id, endingWith: "240x240.webp"))
        let jpegURL = try #require(Self.imageURL(album.text, id: flower.id, endingWith: "240x240"))
        let webp = try stack.get(webpURL)
        #expect(webp.status == 200)
        #expect(webp.header("Content-Type") == "image/webp")
        #expect(webp.header("Vary") == nil)
        #expect(Array(webp.body.prefix(4)) == Array("RIFF".utf8) && Array(webp.body[8..<12]) == Array("WEBP".utf8))
        let jpeg = try stack.get(jpegURL)
        #expect(jpeg.header("Content-Type") == "image/jpeg")
        #expect(jpeg.header("ETag") != webp.header("ETag"))
        #expect(webp.header("ETag")?.contains("240x240.webp") == true)
        // nginx keys its cache on the URL: each format has its own entry.
        #expect(try stack.get(webpURL).header("X-Cache-Status") == "HIT")
        let again = try stack.get(jpegURL)
        #expect(again.header("X-Cache-Status") == "HIT" && again.body == jpeg.body)
        let decoded = try ImageCodec.decode(webp.body).bitmap
        #expect(decoded.width == 156 && decoded.height == 156)
        // Conditional requests per format.
        let etag = try #require(webp.header("ETag"))
        let revalidated = try stack.get(webpURL.replacingOccurrences(of: "?v=", with: "?x=1&v="), headers: ["If-None-Match": etag])
        #expect(revalidated.status == 304)
        // A stale version redirects to the current URL in the same format.
        let stale = try stack.get("/img/\(flower.id)/480.webp?v=000000000000")
        #expect(stale.status == 302 || stale.status == 301)
        #expect(stale.header("Location")?.contains("/img/\(flower.id)/480.webp?v=") == true)
        // Other extensions name nothing.
        #expect(try stack.get("/img/\(flower.id)/240x240.png").status == 404)
        #expect(try stack.get("/img/\(flower.id)/240x240.jpg").status == 404)
    }

    /// A WebP photo in the folder shows in list and detail pages, upright (EXIF orientation 6).
    @Test func webpPhotoShowsUpright() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        let catalog = EndToEndTests.catalog(library)
        let trips = catalog.albums.values.first { $0.title == "Trips" }!
        let turned = try #require(catalog.items.values.first { $0.fileName == "Turned_WebP.webp" })

        let album = try stack.get("/album/\(trips.id)")
        #expect(album.text.contains("href=\"/photo/\(turned.id)\""))
        let detail = try stack.get("/photo/\(turned.id)")
        #expect(detail.status == 200 && detail.text.contains("WebP"))

        let source = try ImageCodec.decode(Array(FileManager.default.contents(atPath: Self.webpFixture)!))
        let upright = source.info.orientation.apply(to: source.bitmap)
        #expect(upright.width != source.bitmap.width || upright.height != source.bitmap.height)
        for suffix in ["960", "960.webp"] {
            let url = try #require(Self.imageURL(detail.text, id: turned.id, endingWith: suffix), "no \(suffix) URL on the detail page")
            let reply = try stack.get(url)
            #expect(reply.status == 200, "\(url)")
            let shown = try ImageCodec.decode(reply.body).bitmap
            #expect(shown.width == upright.width && shown.height == upright.height, "\(url): \(shown.width)x\(shown.height)")
            let psnr = PixelCompare.psnr(shown, upright)
            print("webp photo \(suffix): \(shown.width)x\(shown.height), PSNR \(String(format: "%.1f", psnr)) dB against the upright source")
            #expect(psnr > 30, "\(url) is not the upright picture (PSNR \(psnr) dB)")
        }
        let cover = try #require(Self.imageURL(album.text, id: turned.id, endingWith: "240x240.webp"))
        #expect(try stack.get(cover).status == 200)
    }

    @Test func jpegOnlyTurnsWebPOff() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library, arguments: ["--formats", "jpeg"])
        let catalog = EndToEndTests.catalog(library)
        let trips = catalog.albums.values.first { $0.title == "Trips" }!
        let flower = catalog.items.values.first { $0.fileName == "Flower.jpg" }!
        let album = try stack.get("/album/\(trips.id)")
        #expect(album.status == 200 && !album.text.contains("<source") && !album.text.contains(".webp"))
        #expect(!(try stack.get("/photo/\(flower.id)")).text.contains(".webp"))
        let feed = try stack.get("/album/\(trips.id)/photos")
        #expect(feed.status == 200 && !feed.text.contains(".webp"))
        let jpegURL = try #require(Self.imageURL(album.text, id: flower.id, endingWith: "240x240"))
        #expect(try stack.get(jpegURL).status == 200)
        #expect(try stack.get(jpegURL.replacingOccurrences(of: "240x240?", with: "240x240.webp?")).status == 404)
    }

    /// `--colour wide`: versions carry "-p3"; a wide source keeps P3 with an embedded profile in
    /// both formats; an sRGB source renders the same bytes as in sRGB mode.
    @Test func wideColourEntersTheVersion() throws {
        let library = try Self.library()
        defer { library.remove() }
        let catalog = EndToEndTests.catalog(library)
        let trips = catalog.albums.values.first { $0.title == "Trips" }!
        let flower = catalog.items.values.first { $0.fileName == "Flower.jpg" }!
        let adobe = catalog.items.values.first { $0.fileName == "Adobe.png" }!

        var srgbBodies: [String: [UInt8]] = [:]
        var srgbURLs: Set<String> = []
        do {
            let stack = try GalleryStack(library: library)
            let album = try stack.get("/album/\(trips.id)")
            for suffix in ["240x240", "240x240.webp"] {
                let url = try #require(Self.imageURL(album.text, id: flower.id, endingWith: suffix))
                srgbURLs.insert(url)
                srgbBodies[suffix] = try stack.get(url).body
            }
            stack.stop()
        }
        let stack = try GalleryStack(library: library, arguments: ["--colour", "wide"])
        let album = try stack.get("/album/\(trips.id)")
        for suffix in ["240x240", "240x240.webp"] {
            let url = try #require(Self.imageURL(album.text, id: flower.id, endingWith: suffix))
            #expect(url.hasSuffix("-p3"), "\(url)")
            #expect(!srgbURLs.contains(url))
            #expect(try stack.get(url).body == srgbBodies[suffix], "an sRGB source renders differently in wide mode (\(suffix))")
            // The sRGB mode's URL: nginx may still hold its render (the same bytes, rightly: the
            // URL names them); the app itself redirects it to the -p3 URL.
            let old = try stack.get(url.replacingOccurrences(of: "-p3", with: ""))
            #expect(old.status == 302 || old.body == srgbBodies[suffix])
        }
        // The 64 px fixture fills the 240x240 slot only.
        for suffix in ["240x240", "240x240.webp"] {
            let url = try #require(Self.imageURL(album.text, id: adobe.id, endingWith: suffix))
            let reply = try stack.get(url)
            #expect(reply.status == 200)
            let info = try ImageCodec.probe(reply.body)
            #expect(info.iccProfile == ColourTransform.displayP3Profile, "\(url): no Display P3 profile")
        }
    }
}

/// PSNR over RGB samples.
enum PixelCompare {
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        let x = a.converted(to: .rgb), y = b.converted(to: .rgb)
        guard x.width == y.width, x.height == y.height else { return 0 }
        var sum = 0.0
        for i in 0..<x.pixels.count {
            let d = Double(x.pixels[i]) - Double(y.pixels[i])
            sum += d * d
        }
        guard sum > 0 else { return 99 }
        return 10 * log10(255 * 255 * Double(x.pixels.count) / sum)
    }
}
