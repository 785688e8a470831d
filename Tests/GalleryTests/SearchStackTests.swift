import Foundation
import Testing
@testable import Gallery

/// Search through the real stack (nginx, spawn-fcgi, the gallery binary): the grid and the
/// viewer's feed, a private keyword that the public search never finds and its share link
/// does, hostile queries answered with a page, and the map in Chromium with stub tiles.
@Suite struct SearchStackTests {
    /// Waits until the server's index has every photo, then writes keywords into rows (the
    /// `meta` reader fills them from files; their stamps are unchanged, so the indexer keeps them).
    static func writeKeywords(_ stack: GalleryStack, _ keywords: [String: String]) throws {
        let path = stack.base + "/cache/library-index.sqlite"
        for _ in 0..<200 {
            if let db = try? SQLiteConnection(path: path, readOnly: false, create: false),
               let n = try? db.scalar("SELECT count(*) FROM photos WHERE name IN ('Garden.jpg', 'Flower.jpg', 'River.jpg')"), n == 3 {
                for (name, words) in keywords {
                    try db.run("UPDATE photos SET keywords = ? WHERE name = ?", [.text(words), .text(name)])
                }
                return
            }
            usleep(100_000)
        }
        throw GalleryStack.Failure(description: "the index never held the photos; log: \(stack.galleryLog)")
    }

    @Test func searchIsPrivateAndSharedLinksSearchTheirAlbum() throws {
        let library = try DownloadShareEndToEndTests.familyLibrary()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        try Self.writeKeywords(stack, ["Garden.jpg": "secretword\nroses", "Flower.jpg": "sunny day\nroses"])
        let catalog = EndToEndTests.catalog(library)
        let garden = try #require(catalog.item(relativePath: "Family/Garden.jpg"))
        let flower = try #require(catalog.item(relativePath: "Trips/Flower.jpg"))
        let river = try #require(catalog.item(relativePath: "Family/Kids/River.jpg"))

        // Public: the private photo is not found, counted or linked by any field.
        for q in ["secretword", "keyword%3Asecretword", "garden", "file%3AGarden", "album%3AFamily", "river", "roses"] {
            let page = try stack.get("/search?q=\(q)")
            #expect(page.status == 200 && !page.text.contains(garden.id) && !page.text.contains(river.id), "\(q)")
        }
        #expect(try stack.get("/search?q=secretword").text.contains("No photos match"))
        let roses = try stack.get("/search?q=roses").text
        #expect(roses.contains(">1 photo<") && roses.contains("/photo/\(flower.id)"), "one public photo, counted alone")
        #expect(try stack.get("/search/photos?q=secretword").text.contains("\"total\":0"))

        // The grid is the album grid: WebP <picture>, placeholders, the viewer's feed.
        let found = try stack.get("/search?q=keyword%3A%22sunny+day%22")
        #expect(found.status == 200 && found.text.contains("<picture><source type=\"image/webp\""))
        #expect(found.text.contains("data-viewer-feed=\"/search/photos?q=keyword%3A%22sunny+day%22\""))
        #expect(found.text.contains("value=\"keyword:&quot;sunny day&quot;\""), "the box keeps the query")
        let feed = try stack.get("/search/photos?q=keyword%3A%22sunny+day%22&page=1")
        #expect(feed.status == 200 && feed.text.contains("\"id\":\"\(flower.id)\"") && feed.text.contains("\"total\":1"))

        // The share link of Family searches Family (and Kids) only, with its own links and headers.
        let binary = try #require(FaultPaths.gallery)
        let link = try Subprocess.run(binary, ["share", "Family", "--root", library.root, "--cache-dir", stack.base + "/cache"])
            .split(separator: "\n").first.map(String.init) ?? ""
        let shared = try stack.get(link + "search?q=secretword")
        #expect(shared.status == 200 && shared.text.contains(link + "photo/\(garden.id)"))
        #expect(shared.header("Cache-Control") == "private, no-store" && shared.header("Referrer-Policy") == "no-referrer")
        #expect(try !stack.get(link + "search?q=sunny").text.contains(flower.id))
        #expect(try stack.get(link + "search?q=river").text.contains(river.id))
        #expect(try stack.get(link).text.contains("action=\"\(link)search\""))
        #expect(try stack.get("/").text.contains("<form class=\"search-box\" method=\"get\" action=\"/search\""))

        // Hostile and empty queries: a page, never a 500.
        let hostile = ["%22NEAR(%2A", "%2A", "%5E", "%3A", "-", "%22", "date%3A2019..2021", "rating%3E%3D9", "type%3Ax",
                       String(repeating: "a+", count: 400), "%ZZ", "", "%00"]
        for q in hostile {
            let page = try stack.get("/search?q=\(q)")
            #expect(page.status == 200, "\(q): \(page.status)")
        }
        #expect(try stack.get("/search?q=" + String(repeating: "a", count: 600)).text.contains("too long"))
        #expect(try stack.get("/search?q=" + String(repeating: "a", count: 10_000)).status == 414)
        #expect(try stack.get("/search?q=roses&page=2").status == 404)
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }

    @Test(.enabled(if: BrowserTests.chromium() != nil && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js"),
                   "chromium or libjs-leaflet is not installed (deploy/test installs them)"))
    func searchBoxViewerAndMapInChromium() throws {
        let library = try DownloadShareEndToEndTests.familyLibrary()
        defer { library.remove() }
        try JSONSerialization.data(withJSONObject: ["albums": ["Family": ["private": true]], "show_location": true])
            .write(to: URL(fileURLWithPath: library.root + "/gallery.json"))
        // Stub tiles: a static file of our own for every tile (no network).
        let stack = try GalleryStack(library: library, arguments: ["--map-tiles", "/static/favicon.svg?z={z}&x={x}&y={y}"])
        defer { stack.stop() }
        let path = stack.base + "/cache/library-index.sqlite"
        for _ in 0..<200 {
            if let db = try? SQLiteConnection(path: path, readOnly: false, create: false),
               let n = try? db.scalar("SELECT count(*) FROM photos"), n >= 9 {
                try db.execute("UPDATE photos SET latitude = 48.85 + length(name) * 0.01, longitude = 2.35")
                break
            }
            usleep(100_000)
        }
        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1000, height: 700, scale: 1, touch: false)

        // Type in the header's box and press Enter: the results page, then the viewer over them.
        try browser.navigate("http://127.0.0.1:\(stack.port)/")
        _ = try browser.eval("document.querySelector('.search-box input').focus(); 1")
        for ch in "trips" { try browser.key(String(ch), code: "Key" + ch.uppercased(), keyCode: Int(ch.uppercased().unicodeScalars.first!.value), text: String(ch)) }
        try browser.key("Enter", code: "Enter", keyCode: 13, text: "\r")
        try browser.wait("location.pathname === '/search' && location.search === '?q=trips'", "the results page")
        try browser.wait("document.querySelectorAll('.grid.items .card').length === 6", "the Trips photos")
        #expect(try browser.evalString("document.body.innerHTML").contains("Garden") == false)
        _ = try browser.eval("document.querySelector('.grid.items .card a').click(); 1")
        try browser.wait("document.querySelector('.viewer-position') && /^1 of \\d+$/.test(document.querySelector('.viewer-position').textContent)",
                         "the viewer over the results")
        try browser.key("ArrowRight", code: "ArrowRight", keyCode: 39)
        try browser.wait("/^2 of /.test(document.querySelector('.viewer-position').textContent)", "the viewer steps to the second result")

        try browser.navigate("http://127.0.0.1:\(stack.port)/map")
        try browser.wait("Number(document.getElementById('map').dataset.markers || 0) > 0", "markers from /map/points")
        try browser.wait("document.querySelectorAll('.leaflet-tile-loaded').length > 0", "stub tiles")
        #expect(try browser.evalString("document.querySelector('.leaflet-control-attribution') ? 'yes' : 'no'") == "yes")
        let outside = try browser.evalString("""
            performance.getEntriesByType('resource').map(e => e.name)
              .filter(n => !n.startsWith('http://127.0.0.1:\(stack.port)/')).join(' ')
            """)
        #expect(outside.isEmpty, "requests that left the stack: \(outside)")
        #expect(try browser.evalString("String(location.href)").hasSuffix("/map"))
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
