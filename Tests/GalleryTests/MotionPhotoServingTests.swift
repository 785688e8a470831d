import Foundation
import Testing
@testable import Gallery

/// Motion photos through the real stack (spawn-fcgi, the gallery binary, the shipped nginx):
/// a Google and a Samsung motion photo (Tests/Fixtures/motion, made by make-motion.py) are
/// photos with a MOTION badge found by the library index; `/original/<id>/motion` answers
/// exactly the embedded MP4's bytes with single ranges, 206 and 416, and only where the still
/// itself may be seen (a private album's clip answers through its share link alone). Videos'
/// tiles carry their duration and album counts name photos and videos apart.
@Suite(.serialized, .enabled(if: FaultPaths.stackAvailable)) struct MotionPhotoServingTests {
    /// The fixture's movie: (start, length) from MANIFEST.
    static func movieRange(_ name: String) throws -> Range<Int> {
        let manifest = try String(contentsOfFile: Self.fixture("MANIFEST"), encoding: .utf8)
        let line = try #require(manifest.split(separator: "\n").first { $0.hasPrefix(name + " ") })
        func value(_ key: String) -> Int? {
            line.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) }
        }
        let start = try #require(value("start")), length = try #require(value("length"))
        return start..<(start + length)
    }

    static func fixture(_ name: String) -> String {
        Fixtures.testsDirectory.appendingPathComponent("Fixtures/motion/" + name).path
    }

    /// Phone: two motion photos, a plain still and a clip; Family (private): a motion photo.
    static func library() throws -> TestLibrary {
        let library = try TestLibrary.make()
        let fm = FileManager.default
        try fm.createDirectory(atPath: library.root + "/Phone", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: library.root + "/Family", withIntermediateDirectories: true)
        try fm.copyItem(atPath: fixture("motion-google.jpg"), toPath: library.root + "/Phone/PXL_0001.MP.jpg")
        try fm.copyItem(atPath: fixture("motion-samsung.jpg"), toPath: library.root + "/Phone/SM_0002.jpg")
        try fm.copyItem(atPath: fixture("still.jpg"), toPath: library.root + "/Phone/Still.jpg")
        try fm.copyItem(atPath: Fixtures.testsDirectory.appendingPathComponent("Fixtures/video/h264.mp4").path,
                        toPath: library.root + "/Phone/Clip.mp4")
        try fm.copyItem(atPath: fixture("motion-google.jpg"), toPath: library.root + "/Family/Kids.jpg")
        try JSONSerialization.data(withJSONObject: ["albums": ["Family": ["private": true]]])
            .write(to: URL(fileURLWithPath: library.root + "/gallery.json"))
        return library
    }

    /// The album page once the library index has read every file (the badges come from it).
    static func indexedPage(_ stack: GalleryStack, _ path: String, badges: Int) throws -> String {
        for _ in 0..<200 {
            let text = try stack.get(path).text
            if text.components(separatedBy: "aria-label=\"Motion photo\"").count - 1 == badges { return text }
            usleep(100_000)
        }
        return try stack.get(path).text
    }

    @Test func motionPhotosServeTheirMovieWithRanges() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let phone = try #require(catalog.albums.values.first { $0.title == "Phone" })
        func item(_ name: String) throws -> CatalogItem { try #require(catalog.items.values.first { $0.fileName == name }) }
        let google = try item("PXL_0001.MP.jpg"), samsung = try item("SM_0002.jpg"), still = try item("Still.jpg")
        let clip = try item("Clip.mp4"), kids = try item("Kids.jpg")

        // Tiles: MOTION on the two motion photos, the clip's duration, counts by kind.
        let album = try Self.indexedPage(stack, "/album/\(phone.id)", badges: 2)
        #expect(album.components(separatedBy: "aria-label=\"Motion photo\"").count == 3, "\(album)")
        #expect(album.contains("<span class=\"badge duration\" aria-label=\"Duration\">0:01</span>"))
        #expect(album.contains("3 photos, 1 video"))
        #expect(try stack.get("/").text.contains("3 photos, 1 video"), "the root's album card counts kinds too")

        let page = try stack.get("/photo/\(google.id)")
        #expect(page.text.contains("class=\"live-motion\" src=\"/original/\(google.id)/motion\"") && page.text.contains(">MOTION</button>"))
        #expect(page.text.contains("Motion clip"))
        #expect(try !stack.get("/photo/\(still.id)").text.contains("live-motion"))

        for (entry, name) in [(google, "motion-google.jpg"), (samsung, "motion-samsung.jpg")] {
            let file = try #require(FileManager.default.contents(atPath: Self.fixture(name)))
            let movie = Array(file)[try Self.movieRange(name)]
            let total = movie.count
            let url = "/original/\(entry.id)/motion"
            let whole = try stack.get(url)
            #expect(whole.status == 200 && whole.body == Array(movie), "\(name)")
            #expect(whole.header("Content-Type") == "video/mp4" && whole.header("Accept-Ranges") == "bytes")
            let first = try stack.get(url, headers: ["Range": "bytes=0-99"])
            #expect(first.status == 206 && first.body == Array(movie.prefix(100)) && first.header("Content-Range") == "bytes 0-99/\(total)")
            let rest = try stack.get(url, headers: ["Range": "bytes=1000-"])
            #expect(rest.status == 206 && rest.body == Array(movie.dropFirst(1000)))
            let last = try stack.get(url, headers: ["Range": "bytes=-64"])
            #expect(last.status == 206 && last.body == Array(movie.suffix(64)))
            let beyond = try stack.get(url, headers: ["Range": "bytes=\(total)-"])
            #expect(beyond.status == 416 && beyond.header("Content-Range") == "bytes */\(total)")
            // A stale If-Range gets the whole movie; the current ETag gets the range.
            let etag = try #require(whole.header("ETag"))
            #expect(try stack.get(url, headers: ["Range": "bytes=0-9", "If-Range": "\"other\""]).status == 200)
            #expect(try stack.get(url, headers: ["Range": "bytes=0-9", "If-Range": etag]).status == 206)
            let head = try stack.get(url, method: "HEAD")
            #expect(head.status == 200 && head.header("Content-Length") == String(total) && head.body.isEmpty)
        }
        #expect(try stack.get("/original/\(still.id)/motion").status == 404, "a still without a movie")
        #expect(try stack.get("/original/\(clip.id)/motion").status == 404, "a movie is no motion photo")

        // A private album's clip: not public, through the share link only.
        #expect(try stack.get("/original/\(kids.id)/motion").status == 404)
        let binary = try #require(FaultPaths.gallery)
        let printed = try Subprocess.run(binary, ["share", "Family", "--root", library.root, "--cache-dir", stack.base + "/cache"])
        let link = try #require(printed.split(separator: "\n").first.map(String.init))
        let shared = try stack.get(link + "original/\(kids.id)/motion", headers: ["Range": "bytes=4-11"])
        #expect(shared.status == 206 && String(decoding: shared.body, as: UTF8.self) == "ftypisom")
        #expect(shared.header("Cache-Control")?.hasPrefix("private") == true)
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }

    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"))
    func aMotionPhotoPlaysItsMovieWhenPressed() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let phone = try #require(catalog.albums.values.first { $0.title == "Phone" })
        let google = try #require(catalog.items.values.first { $0.fileName == "PXL_0001.MP.jpg" })
        _ = try Self.indexedPage(stack, "/album/\(phone.id)", badges: 2)
        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1000, height: 700, scale: 1, touch: false)
        try browser.navigate("http://127.0.0.1:\(stack.port)/photo/\(google.id)")
        try browser.wait("document.querySelector('.live-toggle') !== null", "the MOTION button")
        _ = try browser.eval("document.querySelector('.live-toggle').dispatchEvent(new PointerEvent('pointerdown')); 1")
        try browser.wait("(function (v) { return v.currentTime > 0 || v.ended; })(document.querySelector('.live-motion'))", timeout: 20,
                         "the motion photo's movie to play")
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
