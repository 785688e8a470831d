import Foundation
@testable import Gallery
import Testing

/// Videos in the gallery through the real stack and headless Chromium: listed with a play
/// badge and a poster from our own decoders, played from the original that nginx streams
/// (Range), and where the browser cannot decode the codec (HEVC in Chromium on Linux) the page
/// keeps the poster and offers the download instead of a black player.
@Suite(.serialized) struct VideoBrowserTests {
    static func library() throws -> TestLibrary {
        let base = NSTemporaryDirectory() + "gallery-video-\(UUID().uuidString.prefix(8))"
        let video = Fixtures.testsDirectory.appendingPathComponent("Fixtures/video")
        try FileManager.default.createDirectory(atPath: base + "/photos/Clips", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: video.appendingPathComponent("h264.mp4").path, toPath: base + "/photos/Clips/Beach.mp4")
        try FileManager.default.copyItem(atPath: video.appendingPathComponent("hevc-rot90.mp4").path, toPath: base + "/photos/Clips/Phone.mov")
        return TestLibrary(root: base + "/photos")
    }

    @Test func videosAreItemsWithPostersAndStreamedOriginals() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let album = try #require(catalog.albums.values.first { $0.title == "Clips" })
        try #require(album.itemIDs.count == 2)
        let page = try stack.get("/album/\(album.id)")
        #expect(page.status == 200 && page.text.components(separatedBy: "class=\"badge play\"").count == 3)
        for id in album.itemIDs {
            let item = try #require(catalog.items[id])
            let detail = try stack.get("/photo/\(id)")
            #expect(detail.status == 200 && detail.text.contains("<video"), "\(item.fileName)")
            #expect(detail.text.contains("Duration") && detail.text.contains("Video"), "\(item.fileName)")
            // The poster comes from our decoders, upright (the HEVC clip turns 90°: 96x128).
            let poster = try #require(detail.text.components(separatedBy: "poster=\"").dropFirst().first?.split(separator: "\"").first)
            let image = try stack.get(String(poster).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(image.status == 200 && image.header("Content-Type") == "image/jpeg", "\(item.fileName) poster")
            let bytes = try #require(FileManager.default.contents(atPath: library.root + "/Clips/" + item.fileName))
            let range = try stack.get("/original/\(id)", headers: ["Range": "bytes=0-99"])
            let type = item.fileName.hasSuffix(".mov") ? "video/quicktime" : "video/mp4"
            #expect(range.status == 206 && range.body == Array(bytes.prefix(100)) && range.header("Content-Type") == type)
            // The page's <source> names video/mp4 whatever the container: what canPlayType answers for.
            #expect(detail.text.contains("type=\"video/mp4\""))
        }
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }

    @Test func countsNamePhotosAndVideosApart() {
        #expect(GalleryApp.countText(items: 15, videos: 3) == "12 photos, 3 videos")
        #expect(GalleryApp.countText(items: 2, videos: 1) == "1 photo, 1 video")
        #expect(GalleryApp.countText(items: 2, videos: 2) == "2 videos")
        #expect(GalleryApp.countText(items: 1, videos: 0) == "1 photo")
        #expect(GalleryApp.countText(items: 0, videos: 0) == "0 photos")
    }

    @Test func moviesAreSentWithTheirContainersType() {
        #expect(GalleryApp.servedType(fileName: "IMG_1.MOV", sniffed: "video/mp4") == "video/quicktime")
        #expect(GalleryApp.servedType(fileName: "a.m4v", sniffed: "video/mp4") == "video/x-m4v")
        #expect(GalleryApp.servedType(fileName: "a.3GP", sniffed: "video/mp4") == "video/3gpp")
        #expect(GalleryApp.servedType(fileName: "a.mp4", sniffed: "video/mp4") == "video/mp4")
        #expect(GalleryApp.servedType(fileName: "odd.mov", sniffed: "image/jpeg") == "image/jpeg", "the bytes decide for stills")
    }

    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"))
    func h264PlaysAndHEVCSaysWhyNot() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let h264 = try #require(catalog.items.values.first { $0.fileName == "Beach.mp4" })
        let hevc = try #require(catalog.items.values.first { $0.fileName == "Phone.mov" })
        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1200, height: 800, scale: 1, touch: false)
        let origin = "http://127.0.0.1:\(stack.port)"

        try browser.navigate(origin + "/photo/\(h264.id)")
        try browser.wait("document.querySelector('video') !== null", "the video element")
        #expect(try browser.evalString("document.querySelector('.video-unsupported').hidden ? 'hidden' : 'shown'") == "hidden")
        _ = try browser.eval("var v = document.querySelector('video'); v.muted = true; v.play().catch(function () {}); 1")
        try browser.wait("document.querySelector('video').currentTime > 0 || document.querySelector('video').ended", timeout: 20,
                         "the H.264 video to play")

        try browser.navigate(origin + "/photo/\(hevc.id)")
        try browser.wait("document.querySelector('video') !== null", "the video element")
        let playable = try browser.evalString("document.querySelector('video').canPlayType('video/mp4; codecs=\"hvc1.1.6.L93.B0\"')")
        let note = try browser.evalString("document.querySelector('.video-unsupported').hidden ? 'hidden' : 'shown'")
        // Where this Chromium has no HEVC decoder the note shows; where it has one it plays.
        #expect(note == (playable.isEmpty ? "shown" : "hidden"), "canPlayType said '\(playable)'")
        if playable.isEmpty {
            #expect(try browser.evalString("document.querySelector('.video-unsupported a').getAttribute('href')") == "/original/\(hevc.id)")
        }
        try browser.screenshot(to: stack.base + "/hevc-page.png")
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }

    /// The demo gallery's "Videos" album, exactly the files make-demo copies there from
    /// deploy/demo/clips: the H.264 clip plays, the HEVC clip's page shows its poster (and the
    /// note with the download link where Chromium cannot decode HEVC), the Live Photo plays.
    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"))
    func theDemoClipsPlay() throws {
        let base = NSTemporaryDirectory() + "gallery-demo-clips-\(UUID().uuidString.prefix(8))"
        let clips = Fixtures.repoRoot.appendingPathComponent("deploy/demo/clips").path
        try FileManager.default.createDirectory(atPath: base + "/photos/Videos", withIntermediateDirectories: true)
        for name in ["Sunset_pan_H264.mp4", "Sunset_pan_HEVC.mov", "IMG_0001.JPG", "IMG_0001.MOV"] {
            try FileManager.default.copyItem(atPath: clips + "/" + name, toPath: base + "/photos/Videos/" + name)
        }
        let library = TestLibrary(root: base + "/photos")
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        func item(_ name: String) throws -> CatalogItem { try #require(catalog.items.values.first { $0.fileName == name }) }
        let h264 = try item("Sunset_pan_H264.mp4"), hevc = try item("Sunset_pan_HEVC.mov"), live = try item("IMG_0001.JPG")
        #expect(catalog.items.count == 3, "the Live Photo's movie is no item of its own")
        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1200, height: 800, scale: 1, touch: false)
        let origin = "http://127.0.0.1:\(stack.port)"

        try browser.navigate(origin + "/photo/\(h264.id)")
        try browser.wait("document.querySelector('video') !== null", "the video element")
        _ = try browser.eval("var v = document.querySelector('video'); v.muted = true; v.play().catch(function () {}); 1")
        try browser.wait("document.querySelector('video').currentTime > 0", timeout: 20, "the demo's H.264 clip to play")

        try browser.navigate(origin + "/photo/\(hevc.id)")
        try browser.wait("document.querySelector('video') !== null", "the video element")
        let poster = try browser.evalString("document.querySelector('video').getAttribute('poster')")
        #expect(poster.contains("/img/\(hevc.id)/"))
        let image = try stack.get(poster.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(image.status == 200 && image.header("Content-Type") == "image/jpeg", "the HEVC poster from our decoder")
        let playable = try browser.evalString("document.querySelector('video').canPlayType('video/mp4; codecs=\"hvc1.1.6.L93.B0\"')")
        let note = try browser.evalString("document.querySelector('.video-unsupported').hidden ? 'hidden' : 'shown'")
        #expect(note == (playable.isEmpty ? "shown" : "hidden"), "canPlayType said '\(playable)'")

        try browser.navigate(origin + "/photo/\(live.id)")
        try browser.wait("document.querySelector('.live-toggle') !== null", "the LIVE button")
        _ = try browser.eval("document.querySelector('.live-toggle').dispatchEvent(new PointerEvent('pointerdown')); 1")
        try browser.wait("(function (v) { return v.currentTime > 0 || v.ended; })(document.querySelector('.live-motion'))", timeout: 20,
                         "the demo Live Photo's movie to play")
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
