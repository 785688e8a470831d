import Foundation
import Testing
@testable import Gallery

/// The full-screen viewer with movies, Live Photos and motion photos, in headless Chromium
/// through the real stack: a movie's slide shows its poster with a play button and plays the
/// original inline (its `currentTime` advances), does not zoom, and stepping away pauses it;
/// a Live Photo's and a motion photo's clip plays while its button is pressed.
@Suite(.serialized, .enabled(if: FaultPaths.stackAvailable && BrowserTests.chromium() != nil,
                             "needs spawn-fcgi, nginx and chromium (deploy/test installs them)"))
struct ViewerVideoBrowserTests {
    static func library() throws -> TestLibrary {
        let library = try TestLibrary.make()
        let fm = FileManager.default
        let fixtures = Fixtures.testsDirectory.appendingPathComponent("Fixtures")
        let dir = library.root + "/Mixed"
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try fm.copyItem(atPath: fixtures.appendingPathComponent("video/h264.mp4").path, toPath: dir + "/A_Beach.mp4")
        try fm.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: dir + "/B_Live.JPG")
        try fm.copyItem(atPath: fixtures.appendingPathComponent("video/h264.mp4").path, toPath: dir + "/B_Live.MOV")
        try fm.copyItem(atPath: fixtures.appendingPathComponent("motion/motion-google.jpg").path, toPath: dir + "/C_Motion.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: dir + "/D_Still.jpg")
        return library
    }

    /// JavaScript: the slide in view.
    static let slide = "[].slice.call(document.querySelectorAll('.viewer-slide')).filter(function (s) { return s.style.left === '0%'; })[0]"

    @Test func viewerPlaysMoviesAndClips() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let album = try #require(EndToEndTests.catalog(library).albums.values.first { $0.title == "Mixed" })
        _ = try MotionPhotoServingTests.indexedPage(stack, "/album/\(album.id)", badges: 1)
        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1200, height: 800, scale: 1, touch: false)
        try browser.navigate("http://127.0.0.1:\(stack.port)/album/\(album.id)")
        try browser.wait("document.querySelector('.grid.items a[data-index=\"0\"]') !== null", "the grid")
        _ = try browser.eval("document.querySelector('.grid.items a[data-index=\"0\"]').click(); 1")
        let slide = Self.slide
        try browser.wait("window.galleryViewer.state().open && !!\(slide).querySelector('.viewer-video[src]')",
                         "the movie's slide")
        #expect(try browser.evalString("\(slide).querySelector('.viewer-video-play').hidden ? 'hidden' : 'shown'") == "shown")
        try browser.wait("\(slide).querySelector('.viewer-video').poster !== ''", "the poster")
        // A real click on the play button (a user gesture, so the browser lets it play with sound).
        let rect = try #require(try browser.eval("""
            (function (r) { return [r.left + r.width / 2, r.top + r.height / 2]; })(\(slide).querySelector('.viewer-video-play').getBoundingClientRect())
            """) as? [Any])
        try browser.click(x: (rect[0] as? NSNumber)?.doubleValue ?? 0, y: (rect[1] as? NSNumber)?.doubleValue ?? 0)
        try browser.wait("(function (v) { return v.currentTime > 0 || v.ended; })(\(slide).querySelector('.viewer-video'))", timeout: 20,
                         "the H.264 movie to play in the viewer")
        // No zoom on a movie.
        try browser.key("+", code: "Equal", keyCode: 187, text: "+")
        #expect(try browser.eval("window.galleryViewer.state().zoom") as? NSNumber == 1)

        // Step on: the movie pauses; the Live Photo's clip plays while LIVE is pressed.
        try browser.key("ArrowRight", code: "ArrowRight", keyCode: 39)
        try browser.wait("window.galleryViewer.state().index === 1", "the Live Photo's slide")
        #expect(try browser.evalString("""
            [].slice.call(document.querySelectorAll('.viewer-video')).every(function (v) { return v.paused; }) ? 'paused' : 'playing'
            """) == "paused")
        try browser.wait("!!\(slide).querySelector('.viewer-live:not([hidden])')", "the LIVE button")
        #expect(try browser.evalString("\(slide).querySelector('.viewer-live').textContent") == "LIVE")
        _ = try browser.eval("\(slide).querySelector('.viewer-live').dispatchEvent(new PointerEvent('pointerdown')); 1")
        try browser.wait("(function (v) { return v.currentTime > 0 || v.ended; })(\(slide).querySelector('.viewer-clip'))", timeout: 20,
                         "the Live Photo's clip to play")

        try browser.key("ArrowRight", code: "ArrowRight", keyCode: 39)
        try browser.wait("window.galleryViewer.state().index === 2 && !!\(slide).querySelector('.viewer-live:not([hidden])')", "the motion photo's slide")
        #expect(try browser.evalString("\(slide).querySelector('.viewer-live').textContent") == "MOTION")
        _ = try browser.eval("\(slide).querySelector('.viewer-live').dispatchEvent(new PointerEvent('pointerdown')); 1")
        try browser.wait("(function (v) { return v.currentTime > 0 || v.ended; })(\(slide).querySelector('.viewer-clip'))", timeout: 20,
                         "the motion photo's clip to play")

        // A plain still: no movie, no clip, and it zooms.
        try browser.key("ArrowRight", code: "ArrowRight", keyCode: 39)
        try browser.wait("window.galleryViewer.state().index === 3", "the still's slide")
        #expect(try browser.evalString("\(slide).querySelector('.viewer-live:not([hidden]), .viewer-video:not([hidden])') ? 'some' : 'none'") == "none")
        try browser.key("+", code: "Equal", keyCode: 187, text: "+")
        #expect((try browser.eval("window.galleryViewer.state().zoom") as? NSNumber)?.doubleValue ?? 1 > 1)
        try browser.screenshot(to: stack.base + "/viewer-video.png")
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
