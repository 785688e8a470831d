import Foundation
import Gallery
import ImageCodec
import ImagePipeline
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// nginx + spawn-fcgi + the gallery binary on loopback, as deployed.
@Suite(.serialized) struct EndToEndTests {
    /// Ids the running app uses: the scanner is deterministic, so a scan here names the same ones.
    static func catalog(_ library: TestLibrary) -> Catalog { CatalogScanner(root: library.root, siteTitle: "Gallery").scan().catalog }

    @Test func pagesErrorsAndCleanStop() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        let catalog = Self.catalog(library)
        let trips = catalog.albums.values.first { $0.title == "Trips" }!
        let flower = catalog.items.values.first { $0.fileName == "Flower.jpg" }!

        let index = try stack.get("/")
        #expect(index.status == 200)
        #expect(index.header("Content-Type") == "text/html; charset=utf-8")
        #expect(index.text.contains("href=\"/album/\(trips.id)\""))
        let album = try stack.get("/album/\(trips.id)")
        #expect(album.status == 200 && album.text.contains("href=\"/photo/\(flower.id)\""))
        let detail = try stack.get("/photo/\(flower.id)")
        #expect(detail.status == 200)
        #expect(detail.text.contains("250 × 156 px"))
        #expect(detail.text.contains("href=\"/original/\(flower.id)\""))
        let original = try stack.get("/original/\(flower.id)")
        #expect(original.status == 200 && original.header("Content-Type") == "image/jpeg")
        #expect(original.body == Array(FileManager.default.contents(atPath: library.root + "/Trips/Flower.jpg")!))

        let css = try stack.get("/static/gallery.css")
        #expect(css.status == 200 && css.header("Content-Type") == "text/css")
        #expect(css.header("Cache-Control")?.contains("immutable") == true)

        for target in ["/album/ffffffffffff", "/photo/000000000000", "/nope", "/static/missing.css"] {
            let r = try stack.get(target)
            #expect(r.status == 404, "\(target)")
            #expect(r.header("Content-Type") == "text/html; charset=utf-8", "\(target)")
            #expect(r.text.contains("Back to the gallery"), "\(target)")
        }
        for target in ["/album/../../etc/passwd", "/album/%2e%2e/%2e%2e/etc/passwd", "/album/..%2f..%2fetc%2fpasswd",
                       "/album/%252e%252e%252fetc%252fpasswd", "/album/..%5c..%5cetc%5cpasswd", "/album/%00",
                       "/original/..%2f..%2f..%2fetc%2fpasswd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/static/../../etc/passwd",
                       "/photo/\(flower.id)%2f..%2f..%2fetc%2fpasswd"] {
            let r = try stack.get(target)
            #expect(r.status == 404, "\(target)")
            #expect(!r.text.contains("root:x:0:0"), "\(target)")
        }
        let post = try stack.get("/", method: "POST")
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        #expect(try stack.get("/photo/\(flower.id)", method: "PUT").status == 405)
        let long = try stack.get("/?q=" + String(repeating: "x", count: 2100))
        #expect(long.status == 414)
        #expect(long.header("Content-Type") == "text/html; charset=utf-8")
        let head = try stack.get("/", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(Int(head.header("Content-Length") ?? "") == index.body.count)
        #expect(try stack.get("/healthz").text.hasPrefix("ok"))
        let metrics = try stack.get("/metrics")
        #expect(metrics.status == 200 && metrics.text.contains("gallery_http_requests_total"))

        // A new photo appears without a restart.
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: library.root + "/Empty/Later.jpg")
        var found = false
        for _ in 0..<40 where !found {
            usleep(250_000)
            found = try stack.get("/album/\(catalog.albums.values.first { $0.title == "Empty" }!.id)").text.contains("Later")
        }
        #expect(found)

        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
        #expect(!FaultStack.running(stack.galleryPID))
        #expect(!stack.galleryLog.contains("Fatal error"))
    }

    @Test func everyImageOnListAndDetailPagesHasItsSize() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        let catalog = Self.catalog(library)
        var pages = ["/"] + catalog.albums.keys.filter { $0 != catalog.rootID }.map { "/album/\($0)" }
        pages += catalog.items.keys.map { "/photo/\($0)" }
        var urls = Set<String>()
        for page in pages {
            let r = try stack.get(page)
            #expect(r.status == 200, "\(page)")
            urls.formUnion(ImageURLs.extract(from: r.text))
        }
        #expect(urls.count >= 20)
        for url in urls.sorted() {
            let expected = try #require(ImageURLs.expectedSize(url, catalog: catalog), "\(url)")
            let r = try stack.get(url)
            #expect(r.status == 200, "\(url)")
            #expect(r.header("Content-Type")?.hasPrefix("image/") == true, "\(url)")
            #expect(r.header("Cache-Control") == "public, max-age=31536000, immutable")
            let decoded = try ImageCodec.decode(r.body)
            #expect(decoded.bitmap.width == expected.width && decoded.bitmap.height == expected.height,
                    "\(url): got \(decoded.bitmap.width)x\(decoded.bitmap.height), want \(expected.width)x\(expected.height)")
        }

        let big = catalog.items.values.first { $0.fileName == "Big_Photo.jpg" }!
        let cover = urls.first { $0.hasPrefix("/img/\(big.id)/480x480?v=") }!
        let again = try stack.get(cover)
        #expect(again.header("X-Cache-Status") == "HIT")
        let etag = try #require(again.header("ETag"))
        let notModified = try stack.get(cover, headers: ["If-None-Match": etag])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        let head = try stack.get(cover, method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && Int(head.header("Content-Length") ?? "") == again.body.count)
        let stale = try stack.get("/img/\(big.id)/480x480?v=000000000000")
        #expect(stale.status == 302 && stale.header("Location") == cover)
        let version = String(cover.split(separator: "=").last!)
        #expect(try stack.get("/img/\(big.id)/500x500?v=\(version)").status == 400)
        #expect(try stack.get("/img/\(big.id)/123?v=\(version)").status == 400)
        #expect(try stack.get("/img/ffffffffffff/480x480?v=\(version)").status == 404)
        #expect(stack.stop())
    }

    @Test func sigtermExitsZeroWhenIdle() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let base = (library.root as NSString).deletingLastPathComponent
        let pid = try Subprocess.spawn(try FaultPaths.gallery.orThrow("gallery binary not built; run `swift build` first"), [
            "serve", "--root", library.root, "--socket", base + "/direct.sock", "--cache-dir", base + "/cache",
            "--templates", Fixtures.repoRoot.path + "/templates", "--public", Fixtures.repoRoot.path + "/public",
            "--log", base + "/direct.log", "--page-wait", "60"])
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: base + "/direct.sock") { usleep(50_000) }
        #expect(FileManager.default.fileExists(atPath: base + "/direct.sock"))
        kill(pid, SIGTERM)
        #expect(Subprocess.wait(pid) == 0)
        #expect(!FileManager.default.fileExists(atPath: base + "/direct.sock"))
    }
}

/// `<img>` URLs in a page and the pixel size each should have.
enum ImageURLs {
    static func extract(from html: String) -> Set<String> {
        var urls = Set<String>()
        for attr in ["src=\"", "srcset=\""] {
            var rest = Substring(html)
            while let r = rest.range(of: " " + attr) {
                let after = rest[r.upperBound...]
                guard let end = after.firstIndex(of: "\"") else { break }
                for candidate in after[..<end].split(separator: ",") {
                    if let url = candidate.split(separator: " ").first, url.hasPrefix("/img/") {
                        urls.insert(String(url).replacingOccurrences(of: "&amp;", with: "&"))
                    }
                }
                rest = after[end...]
            }
        }
        return urls
    }

    /// From the spec in the URL and the source's displayed size.
    static func expectedSize(_ url: String, catalog: Catalog) -> (width: Int, height: Int)? {
        let parts = url.split(separator: "?")[0].split(separator: "/")
        guard parts.count == 3, let item = catalog.items[String(parts[1])],
              let spec = RenderFormat.split(String(parts[2])).flatMap({ SizeSpec(parsing: $0.size) }),
              let path = item.absolutePath, let data = FileManager.default.contents(atPath: path),
              let info = try? ImageCodec.probe(Array(data)) else { return nil }
        let plan = spec.mode.plan(width: info.orientedWidth, height: info.orientedHeight)
        return (plan.outputWidth, plan.outputHeight)
    }
}
