import FastCGI
import Foundation
import ImageCodec
import Testing
@testable import Gallery

/// The viewer's JSON pages of an album, the data attributes it reads, and square thumbnails of
/// sources smaller than their slot (srcset with true widths, renders that keep the square).
@Suite struct ViewerFeedTests {
    struct Feed: Decodable {
        struct Photo: Decodable {
            struct Candidate: Decodable { var src: String; var width: Int }
            var index: Int, id: String, url: String, title: String
            var width: Int?, height: Int?
            var srcset: [Candidate]
            var large: String?
        }
        var album: String, albumURL: String, total: Int, page: Int, pages: Int, pageSize: Int
        var photos: [Photo]
    }

    /// The shared test library plus a 600×400 photo in Trips (the small-source case).
    static func harness(pageSize: Int) throws -> AppTests.Harness {
        let library = try TestLibrary.make()
        try Data(TestLibrary.synthetic(width: 600, height: 400, png: false))
            .write(to: URL(fileURLWithPath: library.root + "/Trips/Small_600x400.jpg"))
        return try AppTests.Harness(library: library, pageSize: pageSize)
    }

    static func feed(_ h: AppTests.Harness, _ uri: String) throws -> Feed {
        let r = h.send(uri)
        #expect(r.status == 200, "\(uri)")
        #expect(r.header("Content-Type") == "application/json; charset=utf-8")
        return try JSONDecoder().decode(Feed.self, from: Data(r.body))
    }

    @Test func pagesFollowTheAlbumOrder() throws {
        let h = try Self.harness(pageSize: 2)
        let trips = h.album(titled: "Trips")
        let ids = Array(trips.itemIDs)
        #expect(ids.count == 5)
        var seen: [String] = []
        for page in 1...3 {
            let feed = try Self.feed(h, "/album/\(trips.id)/photos?page=\(page)")
            #expect(feed.total == 5 && feed.pages == 3 && feed.pageSize == 2 && feed.page == page)
            #expect(feed.albumURL == "/album/\(trips.id)")
            #expect(feed.photos.map(\.index) == Array((page - 1) * 2..<min(5, page * 2)))
            for photo in feed.photos {
                #expect(photo.url == "/photo/\(photo.id)")
                #expect(!photo.srcset.isEmpty && photo.large == photo.srcset.last?.src)
            }
            seen += feed.photos.map(\.id)
        }
        #expect(seen == ids)
        #expect(h.send("/album/\(trips.id)/photos?page=4").status == 404)
        #expect(h.send("/album/000000000000/photos").status == 404)
    }

    @Test func candidatesCarryTrueWidths() throws {
        let h = try Self.harness(pageSize: 60)
        let trips = h.album(titled: "Trips")
        let feed = try Self.feed(h, "/album/\(trips.id)/photos")
        func photo(_ name: String) -> Feed.Photo { feed.photos.first { $0.id == h.item(named: name).id }! }
        // 1001×667: 960 is 960 wide, 1920 and 2560 are both the full 1001: two candidates.
        let odd = photo("Odd_Size_Progressive.jpg")
        #expect(odd.width == 1001 && odd.height == 667)
        #expect(odd.srcset.map(\.width) == [960, 1001])
        #expect(odd.srcset[1].src.hasPrefix("/img/\(odd.id)/1920?v=") && odd.large == odd.srcset[1].src)
        // 250×156: every size is the source itself.
        let flower = photo("Flower.jpg")
        #expect(flower.srcset.map(\.width) == [250])
        // EXIF orientation 6: the displayed size is turned.
        let turned = photo("Turned.jpg")
        let info = try ImageCodec.probe(Array(FileManager.default.contents(atPath: Fixtures.jpeg("orient_6.jpg"))!))
        #expect(turned.width == info.height && turned.height == info.width)
    }

    @Test func pagesCarryTheViewerAttributes() throws {
        let h = try Self.harness(pageSize: 2)
        let trips = h.album(titled: "Trips")
        let album = AppTests.text(h.send("/album/\(trips.id)?page=2"))
        #expect(album.contains("data-viewer-feed=\"/album/\(trips.id)/photos\" data-viewer-total=\"5\" data-viewer-page-size=\"2\""))
        #expect(album.contains("href=\"/photo/\(trips.itemIDs[2])\" title=") && album.contains("data-index=\"2\""))
        #expect(album.contains("data-index=\"3\"") && !album.contains("data-index=\"1\""))
        let detail = AppTests.text(h.send("/photo/\(trips.itemIDs[3])"))
        #expect(detail.contains("data-viewer-feed=\"/album/\(trips.id)/photos\"") && detail.contains("data-viewer-index=\"3\""))
        #expect(detail.contains("/static/viewer.js?v="))
    }

    @Test func smallSourcesKeepTheSquare() throws {
        let h = try Self.harness(pageSize: 60)
        let trips = h.album(titled: "Trips")
        let page = AppTests.text(h.send("/album/\(trips.id)"))
        /// The `<img>`'s srcset (JPEG), or with `webp` the `<source>`'s before it.
        func srcset(_ name: String, webp: Bool = false) -> String {
            let id = h.item(named: name).id
            let img = page.range(of: "<img src=\"/img/\(id)/")!.lowerBound
            let start = webp ? page[..<img].range(of: "srcset=\"/img/\(id)/", options: .backwards)!.lowerBound
                             : page[img...].range(of: "srcset=\"")!.lowerBound
            let value = page[start...].dropFirst(8)
            return String(value[..<value.firstIndex(of: "\"")!])
        }
        func widths(_ set: String) -> [String] {
            set.components(separatedBy: ", ").map { c in
                let parts = c.split(separator: " ")
                return String(parts[0].split(separator: "/")[2].split(separator: "?")[0]) + " " + parts[1]
            }
        }
        // The case: 600×400 fills 240, gives 400 for 480, and 720 would be 400 again.
        #expect(widths(srcset("Small_600x400.jpg")) == ["240x240 240w", "480x480 400w"])
        #expect(widths(srcset("Flower.jpg")) == ["240x240 156w"])
        #expect(widths(srcset("Odd_Size_Progressive.jpg")) == ["240x240 240w", "480x480 480w", "720x720 667w"])
        #expect(widths(srcset("Square.png")) == ["240x240 240w", "480x480 480w", "720x720 720w"])
        // The WebP source offers the same sizes and widths.
        #expect(widths(srcset("Small_600x400.jpg", webp: true)) == ["240x240.webp 240w", "480x480.webp 400w"])
        #expect(widths(srcset("Flower.jpg", webp: true)) == ["240x240.webp 156w"])

        // The renders behind them are square, at the true width.
        for (name, spec, edge) in [("Small_600x400.jpg", "480x480", 400), ("Small_600x400.jpg", "720x720", 400),
                                   ("Small_600x400.jpg", "240x240", 240), ("Flower.jpg", "240x240", 156)] {
            let r = h.send("/img/\(h.item(named: name).id)/\(spec)")
            let location = try #require(r.header("Location"), "\(name) \(spec): \(r.status)")
            let image = h.send(location)
            #expect(image.status == 200)
            let info = try ImageCodec.probe(image.body)
            #expect(info.width == edge && info.height == edge, "\(name) \(spec): \(info.width)x\(info.height)")
        }
    }
}
