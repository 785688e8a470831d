import FastCGI
import Foundation
import ImageCodec
import ImagePipeline
import Testing
@testable import Gallery

/// The gallery handler called directly (no sockets): routing, pages, errors and image headers.
@Suite struct AppTests {
    final class Harness {
        let library: TestLibrary
        let app: GalleryApp

        init(library: TestLibrary? = nil, pageSize: Int = 60, decodeLimits: DecodeLimits = .default) throws {
            let library = try library ?? TestLibrary.make()
            self.library = library
            let base = (library.root as NSString).deletingLastPathComponent
            var pc = PipelineConfiguration(cacheDirectory: base + "/cache", libraryRoot: library.root)
            pc.log = { _ in }
            pc.decodeLimits = decodeLimits
            let repo = Fixtures.repoRoot.path
            app = try GalleryApp(configuration: GalleryConfiguration(
                libraryRoot: library.root, templatesDirectory: repo + "/templates", publicDirectory: repo + "/public",
                pageSize: pageSize, pageLookupBudget: 60), pipeline: ImagePipeline(configuration: pc), watchLibrary: false, log: { _ in })
        }

        deinit { library.remove() }

        func send(_ uri: String, method: String = "GET", headers: [String: String] = [:]) -> FastCGIResponse {
            var params = ["REQUEST_METHOD": method, "REQUEST_URI": uri]
            for (k, v) in headers { params["HTTP_" + k.uppercased().replacingOccurrences(of: "-", with: "_")] = v }
            return app.handle(FastCGIRequest(params: params))
        }

        func item(named name: String) -> CatalogItem { app.catalog.items.values.first { $0.fileName == name }! }
        func album(titled title: String) -> CatalogAlbum { app.catalog.albums.values.first { $0.title == title }! }
    }

    static func text(_ r: FastCGIResponse) -> String { String(decoding: r.body, as: UTF8.self) }

    @Test func listPages() throws {
        let h = try Harness()
        let index = h.send("/")
        #expect(index.status == 200)
        #expect(index.header("Content-Type") == "text/html; charset=utf-8")
        let html = Self.text(index)
        #expect(html.contains("Trips") && html.contains("Empty") && html.contains("Big Photo"))
        #expect(html.contains("href=\"/album/\(h.album(titled: "Trips").id)\""))
        #expect(html.contains("srcset=\"/img/"))
        #expect(html.contains("width=\"240\" height=\"240\""))
        let trips = Self.text(h.send("/album/\(h.album(titled: "Trips").id)"))
        #expect(trips.contains("href=\"/photo/\(h.item(named: "Flower.jpg").id)\""))
        #expect(trips.contains("aria-current=\"page\">Trips<"))
        let empty = Self.text(h.send("/album/\(h.album(titled: "Empty").id)"))
        #expect(empty.contains("no photos yet"))
    }

    @Test func scriptInFileNameIsEscaped() throws {
        let h = try Harness()
        let page = Self.text(h.send("/album/\(h.album(titled: "2024 Summer").id)"))
        #expect(page.contains("&lt;script&gt;alert(1)"))
        #expect(!page.contains("<script>alert"))
        let detail = Self.text(h.send("/photo/\(h.item(named: "<script>alert(1).jpg").id)"))
        #expect(detail.contains("&lt;script&gt;alert(1)"))
        #expect(!detail.contains("<script>alert"))
    }

    @Test func detailPage() throws {
        let h = try Harness()
        let item = h.item(named: "Odd_Size_Progressive.jpg")
        let r = h.send("/photo/\(item.id)")
        #expect(r.status == 200)
        let html = Self.text(r)
        #expect(html.contains("1001 × 667 px"))
        #expect(html.contains("JPEG, progressive"))
        #expect(html.contains("href=\"/original/\(item.id)\""))
        // Breadcrumbs: album (linked) › this photo (current); the site title beside them is the root.
        #expect(html.contains("<ol><li><a href=\"/album/\(h.album(titled: "Trips").id)\">Trips</a></li>"))
        #expect(html.contains("aria-current=\"page\">\(item.title)<"))
        #expect(html.contains("data-nav=\"prev\" href=\"/photo/\(h.item(named: "Flower.jpg").id)\""))
        #expect(html.contains("data-nav=\"next\" href=\"/photo/\(h.item(named: "Square.png").id)\""))
        #expect(html.contains("/img/\(item.id)/960?v="))
        #expect(html.contains("width=\"960\" height=\"640\""))
        // 1001 px wide: 1920 and 2560 both give the full 1001, so srcset offers two sizes only.
        #expect(html.contains(" 1001w") && !html.contains("/2560?v="))
        let turned = Self.text(h.send("/photo/\(h.item(named: "Turned.jpg").id)"))
        let info = try ImageCodec.probe(Array(FileManager.default.contents(atPath: Fixtures.jpeg("orient_6.jpg"))!))
        #expect(turned.contains("\(info.height) × \(info.width) px"))
    }

    @Test func errors() throws {
        let h = try Harness()
        for uri in ["/album/000000000000", "/photo/ffffffffffff", "/original/ffffffffffff", "/img/ffffffffffff/480?v=ab", "/nope", "/?page=2"] {
            let r = h.send(uri)
            #expect(r.status == 404, "\(uri)")
            #expect(r.header("Content-Type") == "text/html; charset=utf-8")
            #expect(Self.text(r).contains("Back to the gallery"))
        }
        let post = h.send("/", method: "POST")
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        #expect(h.send("/", method: "DELETE").status == 405)
        #expect(h.send("/?q=" + String(repeating: "a", count: 2100)).status == 414)
        #expect(h.send("/?q=" + String(repeating: "a", count: 1900)).status == 200)
    }

    @Test func traversalAttemptsAre404AndNeverTouchFiles() throws {
        let h = try Harness()
        for uri in ["/album/../../etc/passwd", "/album/%2e%2e/%2e%2e/etc/passwd", "/album/..%2f..%2fetc%2fpasswd",
                    "/album/%252e%252e%252fetc%252fpasswd", "/album/..\\..\\etc\\passwd", "/album/%00", "/photo/..%00",
                    "/original/../../etc/passwd", "/original/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/img/../../etc/passwd/480",
                    "/static/../../../etc/passwd"] {
            let r = h.send(uri)
            #expect(r.status == 404, "\(uri)")
            #expect(!Self.text(r).contains("root:"))
        }
    }

    @Test func headSendsHeadersOnly() throws {
        let h = try Harness()
        let r = h.send("/", method: "HEAD")
        #expect(r.status == 200)
        #expect(r.omitBody)
        #expect(r.body.count == h.send("/").body.count)
        #expect(String(decoding: r.encodedHead(), as: UTF8.self).contains("Content-Length: \(r.body.count)\r\n"))
    }

    @Test func imageResponses() throws {
        let h = try Harness()
        let item = h.item(named: "Big_Photo.jpg")
        let bare = h.send("/img/\(item.id)/240x240")
        #expect(bare.status == 302)
        let location = try #require(bare.header("Location"))
        #expect(location.hasPrefix("/img/\(item.id)/240x240?v="))
        #expect(h.send("/img/\(item.id)/240x240?v=0000").header("Location") == location)
        let ok = h.send(location)
        #expect(ok.status == 200)
        #expect(ok.header("Content-Type") == "image/jpeg")
        #expect(ok.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(ok.header("Last-Modified") != nil)
        let etag = try #require(ok.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let decoded = try ImageCodec.decode(ok.body)
        #expect(decoded.bitmap.width == 240 && decoded.bitmap.height == 240)
        let notModified = h.send(location, headers: ["If-None-Match": etag])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(h.send(location, headers: ["If-None-Match": "\"other\", W/\(etag)"]).status == 304)
        #expect(h.send(location, headers: ["If-None-Match": "\"other\""]).status == 200)
        let head = h.send(location, method: "HEAD")
        #expect(head.status == 200 && head.omitBody && head.body.count == ok.body.count)
        let version = String(location.split(separator: "=").last!)
        #expect(h.send("/img/\(item.id)/241x241?v=\(version)").status == 400)
        #expect(h.send("/img/\(item.id)/99999?v=\(version)").status == 400)
        #expect(h.send("/img/\(item.id)/0240x240?v=\(version)").status == 400)
    }

    /// A render whose decode would pass the pipeline's memory budget is an error page (422),
    /// and the budget is weighed at the scale the size needs: 960 px of the 1001×667
    /// progressive photo decodes at full size (about 2.2 MB: the 2 MB output bitmap, row
    /// buffers and one band of coefficients), 240×240 at 1/2 (about 0.6 MB).
    @Test func decodeOverTheMemoryBudgetIs422() throws {
        let h = try Harness(decodeLimits: DecodeLimits(maxMemoryBytes: 3 << 19))
        let item = h.item(named: "Odd_Size_Progressive.jpg")
        let location = try #require(h.send("/img/\(item.id)/960").header("Location"))
        let refused = h.send(location)
        #expect(refused.status == 422)
        #expect(Self.text(refused).contains("422"))
        let small = h.send(location.replacingOccurrences(of: "/960?", with: "/240x240?"))
        #expect(small.status == 200)
        #expect(try ImageCodec.decode(small.body).bitmap.width == 240)
    }

    @Test func originalBytes() throws {
        let h = try Harness()
        let item = h.item(named: "Square.png")
        let r = h.send("/original/\(item.id)")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "image/png")
        #expect(r.header("Content-Disposition")?.contains("filename=\"Square.png\"") == true)
        #expect(r.body == Array(FileManager.default.contents(atPath: h.library.root + "/Trips/Square.png")!))
    }

    @Test func healthAndMetrics() throws {
        let h = try Harness()
        _ = h.send("/")
        _ = h.send("/nope")
        let health = h.send("/healthz")
        #expect(health.status == 200 && Self.text(health).hasPrefix("ok"))
        let metrics = Self.text(h.send("/metrics"))
        #expect(metrics.contains("gallery_http_requests_total{route=\"index\",status=\"200\"} 1"))
        #expect(metrics.contains("gallery_http_requests_total{route=\"unknown\",status=\"404\"} 1"))
        #expect(metrics.contains("gallery_catalog_items 7"))
    }

    @Test func pagination() throws {
        let library = try TestLibrary.make()
        for i in 1...65 {
            try FileManager.default.copyItem(atPath: Fixtures.jpeg("odd_2x2_420.jpg"), toPath: library.root + "/Empty/p\(i).jpg")
        }
        let h = try Harness(library: library)
        let id = h.album(titled: "Empty").id
        let first = Self.text(h.send("/album/\(id)"))
        #expect(first.components(separatedBy: "class=\"card\"").count - 1 == 60)
        #expect(first.contains("href=\"/album/\(id)?page=2\""))
        #expect(first.components(separatedBy: "loading=\"lazy\"").count - 1 == 60 - GalleryApp.eagerThumbnails)
        let second = Self.text(h.send("/album/\(id)?page=2"))
        #expect(second.components(separatedBy: "class=\"card\"").count - 1 == 5)
        #expect(second.contains("p65"))
        #expect(h.send("/album/\(id)?page=3").status == 404)
    }

    /// A folder of many albums shows `albumsPerPage` of them per page, whatever its photos do.
    @Test func albumTilesArePaged() throws {
        let library = try TestLibrary.make()
        for i in 1...9 {
            let folder = library.root + "/Empty/Sub \(i)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.jpeg("odd_2x2_420.jpg"), toPath: folder + "/p.jpg")
        }
        let h = try Harness(library: library, pageSize: 1)
        let perPage = GalleryApp.albumsPerPage(1)
        #expect(perPage == 4)
        let id = h.album(titled: "Empty").id
        func subalbums(_ html: String) -> [Int] {
            (1...9).filter { html.contains(">Sub \($0)<") }
        }
        let pages = (1...3).map { Self.text(h.send("/album/\(id)\($0 == 1 ? "" : "?page=\($0)")")) }
        #expect(subalbums(pages[0]) == [1, 2, 3, 4])
        #expect(subalbums(pages[1]) == [5, 6, 7, 8])
        #expect(subalbums(pages[2]) == [9])
        #expect(pages[0].contains("href=\"/album/\(id)?page=3\""))
        #expect(pages[0].contains("9 albums"))
        #expect(h.send("/album/\(id)?page=4").status == 404)
    }
}
