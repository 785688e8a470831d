import Foundation
import Gallery
import ImageCodec
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The full-screen viewer (public/viewer.js) in headless Chromium over the DevTools protocol,
/// against the real app behind nginx: desktop 1280×800 at device scale 1, 2 and 3 and a
/// 390×844 touch phone at 3. In each: the viewer opens from a thumbnail at the srcset size for
/// the screen's pixels, keys or swipes step through the album and preload the neighbours at
/// their sizes, zoom (+ key, wheel, double click, pinch) loads the largest size, Back closes it
/// and focus returns to the grid; at 1x and on the phone the slideshow advances; on the detail
/// page the image opens it, Esc closes it, and the arrow keys still page through photos.
/// Screenshots of each state go to `$TMPDIR/gallery-viewer-screenshots/`.
@Suite(.serialized) struct ViewerBrowserTests {
    struct Screen {
        var name: String
        var width: Int
        var height: Int
        var scale: Int
        var touch: Bool
        var zoom: String
    }

    static let screens = [
        Screen(name: "desktop@1x", width: 1280, height: 800, scale: 1, touch: false, zoom: "key"),
        Screen(name: "desktop@2x", width: 1280, height: 800, scale: 2, touch: false, zoom: "wheel"),
        Screen(name: "desktop@3x", width: 1280, height: 800, scale: 3, touch: false, zoom: "double-click"),
        Screen(name: "phone@3x", width: 390, height: 844, scale: 3, touch: true, zoom: "pinch"),
    ]

    /// Walk/: five photos in name order, one large enough that zoom has a bigger size to load.
    static let photos: [(name: String, width: Int, height: Int)] = [
        ("1 Harbour.jpg", 3000, 2000), ("2 Small.jpg", 600, 400), ("3 Tower.jpg", 1000, 1500),
        ("4 Field.jpg", 1600, 1200), ("5 Dunes.jpg", 1800, 1200),
    ]

    static func makeLibrary() throws -> TestLibrary {
        let base = NSTemporaryDirectory() + "gallery-viewer-\(UUID().uuidString.prefix(8))"
        let root = base + "/photos"
        try FileManager.default.createDirectory(atPath: root + "/Walk", withIntermediateDirectories: true)
        for p in photos {
            try Data(TestLibrary.synthetic(width: p.width, height: p.height, png: false))
                .write(to: URL(fileURLWithPath: root + "/Walk/" + p.name))
        }
        return TestLibrary(root: root)
    }

    /// The detail edges the viewer chooses from, as true widths (a fit never enlarges).
    static func candidates(_ w: Int, _ h: Int) -> [(edge: Int, width: Int)] {
        var seen = Set<Int>()
        return [960, 1920, 2560].compactMap { edge in
            let width = ResizeMode.fit(maxEdge: edge).plan(width: w, height: h).outputWidth
            return seen.insert(width).inserted ? (edge, width) : nil
        }
    }

    /// What the viewer should load for a photo on `screen`: the smallest candidate at least as
    /// wide as the shown width (contain in the viewport, at most one image pixel per CSS pixel)
    /// in device pixels, else the largest.
    static func expectedEdge(_ p: (name: String, width: Int, height: Int), _ screen: Screen) -> (edge: Int, width: Int) {
        let fit = min(Double(screen.width) / Double(p.width), Double(screen.height) / Double(p.height))
        let need = fit * Double(p.width) * Double(screen.scale)
        let list = candidates(p.width, p.height)
        return list.first { Double($0.width) >= need - 0.5 } ?? list.last!
    }

    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"))
    func viewerOnEveryScreen() throws {
        let library = try Self.makeLibrary()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let walk = try #require(catalog.albums.values.first { $0.title == "Walk" })
        let ids = Array(walk.itemIDs)
        try #require(ids.count == Self.photos.count)
        for (id, p) in zip(ids, Self.photos) { try #require(catalog.items[id]?.fileName == p.name) }

        let shots = NSTemporaryDirectory() + "gallery-viewer-screenshots"
        try? FileManager.default.removeItem(atPath: shots)
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        print("viewer screenshots: \(shots)")

        let browser = try CDPBrowser()
        defer { browser.quit() }
        let origin = "http://127.0.0.1:\(stack.port)"
        for screen in Self.screens {
            let started = Date()
            try Self.run(screen, browser: browser, origin: origin, albumPath: "/album/\(walk.id)", ids: ids, shots: shots)
            print("viewer \(screen.name): \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        }
    }

    static func run(_ screen: Screen, browser b: CDPBrowser, origin: String, albumPath: String, ids: [String], shots: String) throws {
        let tag = screen.name
        func shot(_ state: String) throws { try b.screenshot(to: "\(shots)/\(tag)-\(state).png") }
        func viewerState() throws -> [String: Any] {
            try b.eval("JSON.stringify(window.galleryViewer.state())").flatMap { $0 as? String }
                .flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
        }
        /// The URL of slide `slot` (0 previous, 1 current, 2 next) once it has loaded: the WebP
        /// size, which Chromium shows (the feed lists each size in both formats).
        func slideLoaded(_ slot: Int, photo index: Int, edge: Int) -> String {
            "(function(){var s=galleryViewer.state().slides[\(slot)];return s&&s.index===\(index)&&s.natural>0&&s.url.indexOf('/img/\(ids[index])/\(edge).webp?v=')===0;})()"
        }
        func expectShown(_ index: Int, _ what: String) throws {
            let want = expectedEdge(photos[index], screen)
            try b.wait("galleryViewer.state().open && galleryViewer.state().index === \(index)", "\(tag): \(what): photo \(index + 1)")
            try b.wait(slideLoaded(1, photo: index, edge: want.edge), "\(tag): \(what): photo \(index + 1) at \(want.edge)")
            // Its real pixels: a plain src (no srcset) reports them as naturalWidth.
            let natural = try b.eval("galleryViewer.state().slides[1].natural") as? Int
            #expect(natural == want.width, "\(tag): \(what): photo \(index + 1) loaded \(natural ?? -1) px wide, want \(want.width)")
            // The neighbours, preloaded at their own sizes.
            if index > 0 {
                let prev = expectedEdge(photos[index - 1], screen)
                try b.wait(slideLoaded(0, photo: index - 1, edge: prev.edge), "\(tag): \(what): previous photo preloaded at \(prev.edge)")
            }
            if index + 1 < ids.count {
                let next = expectedEdge(photos[index + 1], screen)
                try b.wait(slideLoaded(2, photo: index + 1, edge: next.edge), "\(tag): \(what): next photo preloaded at \(next.edge)")
            }
            try b.wait("location.pathname === '/photo/\(ids[index])'", "\(tag): \(what): address bar at photo \(index + 1)")
            #expect(try b.evalString("document.querySelector('.viewer-position').textContent") == "\(index + 1) of \(ids.count)")
        }
        func center(_ selector: String) throws -> (Double, Double) {
            let r = try b.eval("(function(){var r=document.querySelector('\(selector)').getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2];})()") as? [Double]
            guard let r, r.count == 2 else { throw CDPBrowser.Failure(description: "\(tag): no \(selector)") }
            return (r[0], r[1])
        }
        func activate(_ selector: String) throws {
            let (x, y) = try center(selector)
            if screen.touch { try b.tap(x: x, y: y) } else { try b.click(x: x, y: y) }
        }
        func stepKey(_ forward: Bool) throws {
            if screen.touch {
                let y = Double(screen.height) / 2, w = Double(screen.width)
                let (from, to) = forward ? (w * 0.8, w * 0.15) : (w * 0.15, w * 0.8)
                try b.touch((0...6).map { i in [(from + (to - from) * Double(i) / 6, y + Double(i))] })
            } else if forward {
                try b.key("ArrowRight", code: "ArrowRight", keyCode: 39)
            } else {
                try b.key("ArrowLeft", code: "ArrowLeft", keyCode: 37)
            }
        }

        try b.viewport(width: screen.width, height: screen.height, scale: Double(screen.scale), touch: screen.touch)
        try b.navigate(origin + albumPath)
        try b.wait("Array.prototype.every.call(document.images, function(i){return i.complete && i.naturalWidth > 0;})", "\(tag): thumbnails")
        #expect(try b.eval("window.devicePixelRatio") as? Double == Double(screen.scale))
        try shot("closed")

        // Open from the first thumbnail, then step forward and back.
        try activate(".grid.items a[data-index=\"0\"] img")
        try expectShown(0, "open")
        #expect(try b.evalString("document.activeElement && document.activeElement.className") == "viewer")
        try shot("open")
        if screen.scale == 1 {
            // Labels for screen readers, and Tab never leaves the dialog.
            let labels = try b.evalString("""
                (function(){var v=document.querySelector('.viewer');return [v.getAttribute('role'),v.getAttribute('aria-modal'),
                document.querySelector('.viewer-position').getAttribute('aria-live')].concat(
                Array.prototype.map.call(v.querySelectorAll('button,select'),function(b){return b.getAttribute('aria-label')})).join('|');})()
                """)
            #expect(labels == "dialog|true|polite|Start slideshow|Slideshow interval|Zoom out|Zoom in|Close viewer|Previous photo|Next photo")
            for _ in 0..<8 {
                try b.key("Tab", code: "Tab", keyCode: 9)
                #expect(try b.eval("document.querySelector('.viewer').contains(document.activeElement)") as? Bool == true)
            }
            _ = try b.eval("document.querySelector('.viewer').focus(), 1")
        }
        if screen.scale == 2 {
            // prefers-reduced-motion: no slide or zoom animation.
            try b.call("Emulation.setEmulatedMedia", ["features": [["name": "prefers-reduced-motion", "value": "reduce"]]])
            #expect(try b.evalString("getComputedStyle(document.querySelector('.viewer-strip')).transitionDuration + ' ' + getComputedStyle(document.querySelector('.viewer-img')).transitionDuration") == "0s 0s")
            try b.call("Emulation.setEmulatedMedia", ["features": [["name": "prefers-reduced-motion", "value": ""]]])
        }
        try stepKey(true)
        try expectShown(1, screen.touch ? "swipe left" : "ArrowRight")
        try stepKey(true)
        try expectShown(2, screen.touch ? "swipe left" : "ArrowRight")
        try stepKey(false)
        try expectShown(1, screen.touch ? "swipe right" : "ArrowLeft")
        try stepKey(false)
        try expectShown(0, screen.touch ? "swipe right" : "ArrowLeft")

        // Zoom: the largest size of photo 1 (3000 px: 2560 is a bigger render than any screen's choice).
        let (cx, cy) = (Double(screen.width) / 2, Double(screen.height) / 2)
        switch screen.zoom {
        case "key": try b.key("+", code: "Equal", keyCode: 187, text: "+")
        case "wheel": try b.wheel(x: cx, y: cy, deltaY: -300)
        case "double-click": try b.click(x: cx, y: cy); try b.click(x: cx, y: cy)
        default:
            try b.touch((0...6).map { i in
                let d = 40 + Double(i) * 25
                return [(cx - d, cy), (cx + d, cy)]
            })
        }
        try b.wait("galleryViewer.state().zoom > 1.2", "\(tag): zoom by \(screen.zoom)")
        try b.wait(slideLoaded(1, photo: 0, edge: 2560), "\(tag): the 2560 size once zoomed")
        let large = try b.eval("galleryViewer.state().slides[1].natural") as? Int
        #expect(large == 2560, "\(tag): zoomed image is \(large ?? -1) px wide")
        try shot("zoomed")
        for _ in 0..<6 where (try viewerState()["zoom"] as? Double ?? 1) > 1 {
            try b.key("-", code: "Minus", keyCode: 189, text: "-")
        }
        try b.wait("galleryViewer.state().zoom === 1", "\(tag): zoom back to 1")
        try b.wait("Array.prototype.every.call(document.querySelectorAll('.viewer-img'), function(i){return getComputedStyle(i).transform === 'none';})",
                   "\(tag): the zoom-out animation to end")

        // Slideshow (space), at its shortest interval.
        if screen.scale == 1 || screen.touch {
            _ = try b.eval("(function(){var s=document.querySelector('.viewer-interval');s.value='2';s.dispatchEvent(new Event('change'));return 1;})()")
            try b.key(" ", code: "Space", keyCode: 32, text: " ")
            try b.wait("galleryViewer.state().slideshow", "\(tag): slideshow started")
            try shot("slideshow")
            try b.wait("galleryViewer.state().index === 1", timeout: 15, "\(tag): slideshow advanced")
            try b.key(" ", code: "Space", keyCode: 32, text: " ")
            try b.wait("!galleryViewer.state().slideshow", "\(tag): slideshow stopped")
        }

        if screen.touch {
            // Swipe down closes, and the address bar returns to the album; then open again.
            try b.touch((0...6).map { i in [(cx, cy - 100 + Double(i) * 40)] })
            try b.wait("!galleryViewer.state().open && location.pathname === '\(albumPath)'", "\(tag): swipe down closes the viewer")
            // Chromium drops the click of a synthetic tap that follows a touch gesture within its
            // double-tap window (a person cannot tap that fast): tap until it opens, at most 4 times.
            for _ in 0..<4 {
                try activate(".grid.items a[data-index=\"1\"] img")
                if (try? b.wait("galleryViewer.state().open", timeout: 1, "open")) != nil { break }
            }
            try expectShown(1, "open again")
        }

        // Back closes the viewer, the address bar returns to the album, focus to the grid.
        let index = try viewerState()["index"] as? Int ?? 0
        try b.goBack()
        try b.wait("!galleryViewer.state().open && location.pathname === '\(albumPath)'", "\(tag): Back closes the viewer")
        try b.wait("document.activeElement && document.activeElement.getAttribute('data-index') === '\(index)'", "\(tag): focus back on the grid")
        #expect(try b.eval("document.querySelector('.viewer').hidden") as? Bool == true)

        // The detail page: its image opens the viewer on that photo; Esc closes it again.
        try b.navigate(origin + "/photo/\(ids[2])")
        try b.wait("document.querySelector('img.main').complete", "\(tag): detail image")
        try activate("img.main")
        try expectShown(2, "open from the detail page")
        try b.key("Escape", code: "Escape", keyCode: 27)
        try b.wait("!galleryViewer.state().open && location.pathname === '/photo/\(ids[2])'", "\(tag): Esc closes")
        try b.wait("document.activeElement && document.activeElement.classList.contains('viewer-open-button')", "\(tag): focus on the opener")
        if screen.scale == 1 {
            // Stepping in the viewer then closing lands on the photo shown; the page's own arrow
            // keys work again once the viewer is closed.
            try activate("img.main")
            try expectShown(2, "reopen")
            try b.key("ArrowRight", code: "ArrowRight", keyCode: 39)
            try expectShown(3, "ArrowRight on the detail page")
            try b.key("Escape", code: "Escape", keyCode: 27)
            try b.wait("location.pathname === '/photo/\(ids[3])' && document.readyState === 'complete' && window.galleryViewer && !galleryViewer.state().open",
                       "\(tag): closing on another photo opens its page")
            try b.key("ArrowRight", code: "ArrowRight", keyCode: 39)
            try b.wait("location.pathname === '/photo/\(ids[4])' && document.readyState === 'complete'", "\(tag): page arrow keys after close")
        }
    }
}
