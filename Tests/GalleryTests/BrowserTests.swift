import Foundation
import Gallery
import ImageCodec
import ImagePipeline
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium loads list and detail pages at device scale 1 and 2; every visible image
/// must have loaded at exactly its 1x or 2x size. Screenshots go to a temp folder printed in the log.
@Suite(.serialized) struct BrowserTests {
    /// Added to each HTML page by the test nginx (sub_filter): after load, writes what every
    /// <img> shows into the DOM, which --dump-dom prints.
    static let probe = """
    window.addEventListener("load", function () {
      // naturalWidth of an <img> with a w-descriptor srcset is in CSS pixels (divided by the
      // chosen density), so each chosen URL is loaded again on its own to read its real pixels.
      var imgs = Array.prototype.slice.call(document.querySelectorAll("img"));
      var out = [];
      var pending = imgs.length;
      function done() {
        var pre = document.createElement("pre");
        pre.id = "probe-result";
        pre.textContent = JSON.stringify(out);
        document.body.appendChild(pre);
        // Every image the page fetched (the probe's own reloads hit the cache: same URLs).
        var fetched = document.createElement("pre");
        fetched.id = "probe-fetched";
        fetched.textContent = JSON.stringify(performance.getEntriesByType("resource")
          .map(function (e) { return e.name; }).filter(function (n) { return n.indexOf("/img/") >= 0; }));
        document.body.appendChild(fetched);
      }
      if (pending === 0) { done(); return; }
      imgs.forEach(function (img) {
        var r = img.getBoundingClientRect();
        var entry = { src: img.currentSrc, complete: img.complete && img.naturalWidth > 0, w: 0, h: 0,
                      visible: r.bottom > 0 && r.top < window.innerHeight && r.width > 0, dpr: window.devicePixelRatio };
        out.push(entry);
        var copy = new Image();
        copy.onload = function () { entry.w = copy.naturalWidth; entry.h = copy.naturalHeight; if (--pending === 0) done(); };
        copy.onerror = function () { if (--pending === 0) done(); };
        copy.src = img.currentSrc || img.src;
      });
    });
    """

    struct Shown: Decodable {
        var src: String
        var complete: Bool
        var w: Int
        var h: Int
        var visible: Bool
        var dpr: Double
    }

    static func chromium() -> String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func runChromium(_ args: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "chromium-\(UUID().uuidString).out"
        defer { unlink(output) }
        // stdout and stderr share the file; --dump-dom output is found by its probe marker.
        let pid = try Subprocess.spawn(chromium()!, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--mute-audio", "--window-size=1200,800", "--virtual-time-budget=20000"] + args, outputFile: output)
        _ = Subprocess.wait(pid)
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    @Test func visibleImagesLoadAtTheirDeviceSize() throws {
        try #require(Self.chromium() != nil, "chromium is not installed (deploy/test installs it)")
        let library = try TestLibrary.make()
        defer { library.remove() }
        let stack = try GalleryStack(library: library, probeScript: Self.probe)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let trips = catalog.albums.values.first { $0.title == "Trips" }!
        let big = catalog.items.values.first { $0.fileName == "Big_Photo.jpg" }!
        let shots = NSTemporaryDirectory() + "gallery-screenshots-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        print("browser screenshots: \(shots)")

        let pages = [("index", "/"), ("album", "/album/\(trips.id)"), ("photo", "/photo/\(big.id)")]
        for scale in [1, 2] {
            for (name, path) in pages {
                let url = "http://127.0.0.1:\(stack.port)\(path)"
                let profile = shots + "/profile-\(name)-\(scale)"
                let dom = try Self.runChromium(["--user-data-dir=" + profile, "--force-device-scale-factor=\(scale)", "--dump-dom", url])
                _ = try Self.runChromium(["--user-data-dir=" + profile + "-shot", "--force-device-scale-factor=\(scale)",
                                          "--screenshot=\(shots)/\(name)@\(scale)x.png", url])
                let shown = try Self.probeResult(dom)
                let visible = shown.filter(\.visible)
                #expect(!visible.isEmpty, "\(name)@\(scale)x: no visible image")
                for img in visible {
                    #expect(img.complete, "\(name)@\(scale)x: \(img.src) did not load")
                    #expect(Int(img.dpr) == scale)
                    let path = String(img.src.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
                    let want = Self.wantedSpec(for: path, page: name, scale: scale, catalog: catalog)
                    // The WebP source of the <picture>: Chromium shows WebP, so it must never fetch the JPEG.
                    #expect(path.contains("/\(want).webp?v="), "\(name)@\(scale)x: browser chose \(path), want spec \(want) as WebP")
                    let size = try #require(ImageURLs.expectedSize(path, catalog: catalog))
                    #expect(img.w == size.width && img.h == size.height,
                            "\(name)@\(scale)x: \(path) is \(img.w)x\(img.h), want \(size.width)x\(size.height)")
                }
                let fetched = try Self.probeFetched(dom)
                #expect(!fetched.isEmpty, "\(name)@\(scale)x: no image fetched")
                for url in fetched {
                    #expect(url.contains(".webp?v="), "\(name)@\(scale)x: fetched \(url), which is not a WebP URL")
                }
                #expect(FileManager.default.fileExists(atPath: "\(shots)/\(name)@\(scale)x.png"))
            }
        }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: shots)) ?? [] where entry.hasPrefix("profile-") {
            try? FileManager.default.removeItem(atPath: shots + "/" + entry)
        }
    }

    /// Thumbnails: 240x240 at 1x, 480x480 at 2x, unless the source cannot fill that square:
    /// srcset then lists squares by their true width (a 250×156 source offers 240x240 at 156w
    /// only), and the browser takes the smallest that is wide enough, else the widest. Detail:
    /// 960 at 1x, 1920 at 2x (the 1600 px test photo renders 1600 wide for both 1920 and 2560,
    /// so srcset offers 960 and 1920 only).
    static func wantedSpec(for path: String, page: String, scale: Int, catalog: Catalog) -> String {
        if page == "photo" { return scale == 1 ? "960" : "1920" }
        let id = String(path.split(separator: "/")[1])
        guard let item = catalog.items[id], let file = item.absolutePath,
              let data = FileManager.default.contents(atPath: file), let info = try? ImageCodec.probe(Array(data)) else {
            return scale == 1 ? "240x240" : "480x480"
        }
        var seen = Set<Int>()
        let candidates: [(spec: String, width: Int)] = [240, 480, 720].compactMap { edge in
            let width = ResizeMode.cover(width: edge, height: edge).plan(width: info.orientedWidth, height: info.orientedHeight).outputWidth
            return seen.insert(width).inserted ? ("\(edge)x\(edge)", width) : nil
        }
        return (candidates.first { $0.width >= 240 * scale } ?? candidates.last!).spec
    }

    /// The /img/ URLs the page fetched, from the probe's resource timing list.
    static func probeFetched(_ dom: String) throws -> [String] {
        guard let start = dom.range(of: "<pre id=\"probe-fetched\">"),
              let end = dom[start.upperBound...].range(of: "</pre>") else {
            throw GalleryStack.Failure(description: "no fetched list in the page")
        }
        let json = dom[start.upperBound..<end.lowerBound]
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode([String].self, from: Data(json.utf8))
    }

    static func probeResult(_ dom: String) throws -> [Shown] {
        guard let start = dom.range(of: "<pre id=\"probe-result\">"),
              let end = dom[start.upperBound...].range(of: "</pre>") else {
            throw GalleryStack.Failure(description: "no probe result in the page (\(dom.count) bytes of DOM)")
        }
        let json = dom[start.upperBound..<end.lowerBound]
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode([Shown].self, from: Data(json.utf8))
    }
}
