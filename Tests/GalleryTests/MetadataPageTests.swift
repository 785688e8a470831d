import FastCGI
import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Captions, keywords and people from the file and its XMP sidecar on the detail page (through
/// the library index), a sidecar edited or removed later, and captions under album thumbnails.
@Suite struct MetadataPageTests {
    static let fixtures = Fixtures.testsDirectory.appendingPathComponent("Fixtures/metadata")

    /// The test library plus `Notes/IMG_1.jpg` (xmp-all.jpg: title, caption, keywords, people,
    /// creator) and, when asked, darktable's sidecar beside it as `IMG_1.JPG.XMP`.
    static func library(sidecar: Bool, manifest: String? = nil) throws -> TestLibrary {
        let library = try TestLibrary.make()
        try FileManager.default.createDirectory(atPath: library.root + "/Notes", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("xmp-all.jpg").path, toPath: library.root + "/Notes/IMG_1.jpg")
        if sidecar {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("darktable.xmp").path,
                                             toPath: library.root + "/Notes/IMG_1.JPG.XMP")
        }
        if let manifest { try Data(manifest.utf8).write(to: URL(fileURLWithPath: library.root + "/gallery.json")) }
        return library
    }

    static func get(_ app: GalleryApp, _ uri: String) -> String {
        let response = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": uri]))
        #expect(response.status == 200, "\(uri)")
        return String(decoding: response.body, as: UTF8.self)
    }

    static func detail(_ app: GalleryApp) throws -> String {
        let item = try #require(app.catalog.items.values.first { $0.fileName == "IMG_1.jpg" })
        return get(app, "/photo/\(item.id)")
    }

    @Test func pageShowsTheFilesTextEscapedWithLinks() throws {
        let library = try Self.library(sidecar: false)
        defer { library.remove() }
        let app = try LibraryIndexTests.makeApp(library, indexPath: LibraryIndexTests.indexPath(library))
        app.refreshLibrary()
        let page = try Self.detail(app)
        #expect(page.contains("<h1>Sunset at the pier</h1>"))
        #expect(page.contains("Waves &amp; &lt;rocks&gt;, &quot;évening&quot; light"))
        #expect(!page.contains("<rocks>"))
        #expect(page.contains(#"href="/search?q=keyword%3A%22Places%7CFrance%7CNice%22""#))
        #expect(page.contains(#"href="/search?q=keyword%3A%22Zo%C3%AB%22" rel="tag">Zoë</a>"#))
        #expect(page.contains(#"href="/search?q=person%3A%22Carl%20Example%22">Carl Example</a>"#))
        #expect(page.contains("★★★★☆") && page.contains("4 of 5 stars") && page.contains("<dd>Red</dd>"))
        #expect(page.contains("Promenade des Anglais, Nice, Provence-Alpes-Côte d&#39;Azur, France")
                || page.contains("Promenade des Anglais, Nice, Provence-Alpes-Côte d&#x27;Azur, France"))
        #expect(page.contains("Ann Example, Bo Example") && page.contains("© 2024 Ann Example"))
    }

    @Test func sidecarWinsFieldByFieldAndItsEditsReachThePage() throws {
        let library = try Self.library(sidecar: true)
        defer { library.remove() }
        let app = try LibraryIndexTests.makeApp(library, indexPath: LibraryIndexTests.indexPath(library))
        app.refreshLibrary()
        var page = try Self.detail(app)
        // The sidecar's title, keywords and rating; the file's caption and people.
        #expect(page.contains("<h1>Fireworks over the river</h1>"))
        #expect(page.contains("Waves &amp; &lt;rocks&gt;"))
        #expect(page.contains(">fireworks</a>") && !page.contains(">beach</a>"))
        #expect(page.contains("★★★★★") && page.contains(">Carl Example</a>"))
        // The sidecar never becomes a photo of its own.
        #expect(!app.catalog.items.values.contains { $0.fileName.lowercased().hasSuffix(".xmp") })

        // Edited (darktable rewrites it): the next pass re-reads this photo only.
        let sidecarPath = library.root + "/Notes/IMG_1.JPG.XMP"
        let edited = try String(contentsOfFile: sidecarPath, encoding: .utf8)
            .replacingOccurrences(of: "Fireworks over the river", with: "Fireworks, edited")
            .replacingOccurrences(of: #"xmp:Rating="5""#, with: #"xmp:Rating="1""#)
        try Data(edited.utf8).write(to: URL(fileURLWithPath: sidecarPath))
        #expect(app.refreshLibrary()?.read == 1)
        page = try Self.detail(app)
        #expect(page.contains("<h1>Fireworks, edited</h1>") && page.contains("★☆☆☆☆"))

        // Removed: the file's own text again.
        try FileManager.default.removeItem(atPath: sidecarPath)
        #expect(app.refreshLibrary()?.read == 1)
        page = try Self.detail(app)
        #expect(page.contains("<h1>Sunset at the pier</h1>") && page.contains(">beach</a>"))

        // Lightroom's name (IMG_1.xmp) added later is found as well.
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("lightroom.xmp").path,
                                         toPath: library.root + "/Notes/IMG_1.xmp")
        #expect(app.refreshLibrary()?.read == 1)
        page = try Self.detail(app)
        #expect(page.contains("<h1>Rooftops</h1>") && page.contains("Rooftops of the old town &amp; the cathedral at dusk"))
    }

    @Test func searchLinksArePercentEncodedAndKeepTheSharePrefix() {
        #expect(GalleryApp.searchURL(field: "keyword", value: "a&b \"c\"/é", prefix: "/s/tok")
                == "/s/tok/search?q=keyword%3A%22a%26b%20c%2F%C3%A9%22")
        #expect(GalleryApp.searchURL(field: "person", value: "Ann", prefix: "") == "/search?q=person%3A%22Ann%22")
    }

    @Test func hostileSidecarGivesTheFilesTextAndIsNotReadAgain() throws {
        let library = try Self.library(sidecar: false)
        defer { library.remove() }
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("hostile-billion-laughs.xmp").path,
                                         toPath: library.root + "/Notes/IMG_1.xmp")
        let app = try LibraryIndexTests.makeApp(library, indexPath: LibraryIndexTests.indexPath(library))
        app.refreshLibrary()
        #expect(try Self.detail(app).contains("<h1>Sunset at the pier</h1>"))
        #expect(app.refreshLibrary()?.read == 0)
    }

    @Test func albumCaptionsFollowGalleryJSON() throws {
        for (manifest, shown) in [(nil, false), (#"{"captions": true}"#, true),
                                  (#"{"captions": true, "albums": {"Notes": {"captions": false}}}"#, false),
                                  (#"{"albums": {"Notes": {"captions": true}}}"#, true)] as [(String?, Bool)] {
            let library = try Self.library(sidecar: false, manifest: manifest)
            defer { library.remove() }
            let app = try LibraryIndexTests.makeApp(library, indexPath: LibraryIndexTests.indexPath(library))
            app.refreshLibrary()
            let album = try #require(app.catalog.albums.values.first { $0.relativePath == "Notes" })
            let page = Self.get(app, "/album/\(album.id)")
            #expect(page.contains(#"<span class="caption-line">Waves &amp; &lt;rocks&gt;"#) == shown, "\(manifest ?? "none")")
        }
    }
}

/// The same through nginx, the real watcher and Chromium at phone and desktop sizes.
@Suite struct MetadataBrowserTests {
    /// Polls the photo page (up to 30 s) until it contains `text`.
    static func waitForPage(_ stack: GalleryStack, _ path: String, contains text: String) throws -> String {
        var body = ""
        for _ in 0..<300 {
            body = String(decoding: try stack.get(path).body, as: UTF8.self)
            if body.contains(text) { return body }
            usleep(100_000)
        }
        Issue.record("\(path) never showed \(text)")
        return body
    }

    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"))
    func sidecarTextOnThePageAtPhoneAndDesktopSizes() throws {
        let library = try MetadataPageTests.library(sidecar: true, manifest: #"{"captions": true}"#)
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let item = try #require(EndToEndTests.catalog(library).items.values.first { $0.fileName == "IMG_1.jpg" })
        let path = "/photo/\(item.id)"
        _ = try Self.waitForPage(stack, path, contains: "Fireworks over the river")

        let browser = try CDPBrowser()
        defer { browser.quit() }
        for (width, height, touch) in [(390, 844, true), (1280, 800, false)] {
            try browser.viewport(width: width, height: height, scale: 1, touch: touch)
            try browser.navigate("http://127.0.0.1:\(stack.port)\(path)")
            try browser.wait("document.querySelector('.photo-text .keywords a') !== null", "the keyword links")
            #expect(try browser.evalString("document.querySelector('h1').textContent") == "Fireworks over the river")
            #expect(try browser.evalString("document.querySelector('.caption').textContent") == #"Waves & <rocks>, "évening" light"#)
            #expect(try browser.evalString("Array.from(document.querySelectorAll('.photo-text .keywords a')).map(a => a.textContent).join(',')")
                    == "fireworks,night,darktable|format|jpg,events|national day")
            // Nothing wider than the screen, and the tags wrap inside the details column.
            #expect(try browser.evalString("String(document.documentElement.scrollWidth <= window.innerWidth)") == "true", "\(width) px")
            let tagsRight = try browser.evalString("String(Math.max(...Array.from(document.querySelectorAll('.tags a')).map(a => a.getBoundingClientRect().right)))")
            #expect((Double(tagsRight) ?? .infinity) <= Double(width), "\(width) px: tags end at \(tagsRight)")
            try browser.screenshot(to: stack.base + "/metadata-\(width).png")

            // The album page with captions: one line under the thumbnail, inside its card.
            let album = try #require(EndToEndTests.catalog(library).albums.values.first { $0.relativePath == "Notes" })
            try browser.navigate("http://127.0.0.1:\(stack.port)/album/\(album.id)")
            try browser.wait("document.querySelector('.card .caption-line') !== null", "the caption under the thumbnail")
            let inside = try browser.evalString("""
                (function () { const c = document.querySelector('.card').getBoundingClientRect(),
                  l = document.querySelector('.card .caption-line').getBoundingClientRect();
                  return String(l.left >= c.left && l.right <= c.right + 0.5 && l.top >= c.top); })()
                """)
            #expect(inside == "true", "\(width) px")
            try browser.screenshot(to: stack.base + "/album-\(width).png")
            if let keep = ProcessInfo.processInfo.environment["METADATA_SCREENSHOTS"] {
                for name in ["metadata", "album"] {
                    try? FileManager.default.removeItem(atPath: keep + "/\(name)-\(width).png")
                    try? FileManager.default.copyItem(atPath: stack.base + "/\(name)-\(width).png", toPath: keep + "/\(name)-\(width).png")
                }
            }
        }

        // The watcher sees the edit and the page follows.
        let sidecarPath = library.root + "/Notes/IMG_1.JPG.XMP"
        let edited = try String(contentsOfFile: sidecarPath, encoding: .utf8)
            .replacingOccurrences(of: "Fireworks over the river", with: "Fireworks, retitled")
        try Data(edited.utf8).write(to: URL(fileURLWithPath: sidecarPath))
        _ = try Self.waitForPage(stack, path, contains: "<h1>Fireworks, retitled</h1>")
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
