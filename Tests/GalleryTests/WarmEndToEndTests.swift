import Foundation
import Gallery
import ImageCodec
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `gallery warm --url` against the real stack (nginx + spawn-fcgi + the app).
@Suite(.serialized) struct WarmEndToEndTests {
    /// Every `/img/` URL in `html`, found without the warmer's parser (a plain scan up to the
    /// next quote, space or comma), so the check does not share the code it checks.
    static func imageURLs(in html: String) -> Set<String> {
        var out = Set<String>()
        var rest = Substring(html)
        while let r = rest.range(of: "/img/") {
            let end = rest[r.lowerBound...].firstIndex { $0 == "\"" || $0 == " " || $0 == "," || $0 == "'" } ?? rest.endIndex
            out.insert(String(rest[r.lowerBound..<end]))
            rest = rest[end...]
        }
        return out
    }

    /// Page links (`href="/album/…"`, `/photo/…`, `?page=`) by the same plain scan.
    static func pageURLs(in html: String, page: String) -> Set<String> {
        var out = Set<String>()
        var rest = Substring(html)
        while let r = rest.range(of: "href=\"") {
            let start = r.upperBound
            let end = rest[start...].firstIndex(of: "\"") ?? rest.endIndex
            var link = String(rest[start..<end]).replacingOccurrences(of: "&amp;", with: "&")
            if link.hasPrefix("?") { link = String(page.split(separator: "?", maxSplits: 1)[0]) + link }
            if link.hasPrefix("/album/") || link.hasPrefix("/photo/") || link == "/" || link.hasPrefix("/?") { out.insert(link) }
            rest = rest[end...]
        }
        return out
    }

    @Test(.enabled(if: FaultPaths.stackAvailable)) func warmLeavesEveryLinkedImageAnNginxHit() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let binary = try FaultPaths.gallery.orThrow("no gallery binary")

        let output = try Subprocess.run(binary, ["warm", "--url", "http://127.0.0.1:\(stack.port)/", "--verify", "--concurrency", "3"])
        print(output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(output.contains("failed: 0 pages, 0 images"), "\(output)")
        #expect(output.contains("MISS"), "\(output)")

        // Walk the site again independently: every image any page links must now be a HIT.
        var pages = ["/"], seen: Set<String> = ["/"], images = Set<String>()
        while let page = pages.popLast() {
            let reply = try stack.get(page)
            #expect(reply.status == 200, "\(page)")
            images.formUnion(Self.imageURLs(in: reply.text))
            for next in Self.pageURLs(in: reply.text, page: page) where seen.insert(next).inserted { pages.append(next) }
        }
        // 7 photos (covers at up to 3 sizes, details at up to 3) and the album covers.
        #expect(seen.count >= 10 && images.count >= 20, "pages \(seen.count), images \(images.count)")
        var notHit: [String] = []
        for image in images.sorted() {
            let reply = try stack.get(image)
            #expect(reply.status == 200, "\(image)")
            if reply.header("X-Cache-Status") != "HIT" { notHit.append("\(image): \(reply.header("X-Cache-Status") ?? "none")") }
        }
        print("warm --url: \(seen.count) pages, \(images.count) image URLs checked, \(notHit.count) not a HIT")
        #expect(notHit.isEmpty, "\(notHit)")
        #expect(output.contains("verify: \(images.count) of \(images.count) images"), "\(output)")

        // A second warm finds everything cached.
        let again = try Subprocess.run(binary, ["warm", "--url", "http://127.0.0.1:\(stack.port)/"])
        #expect(again.contains("MISS 0,"), "\(again)")
    }

    @Test(.enabled(if: FaultPaths.stackAvailable)) func warmFailsWhenNothingAnswers() throws {
        let binary = try FaultPaths.gallery.orThrow("no gallery binary")
        let port = try FaultNet.freePort()
        let pid = try Subprocess.spawn(binary, ["warm", "--url", "http://127.0.0.1:\(port)/", "--timeout", "2"])
        #expect(Subprocess.wait(pid) == 1)
        let usage = try Subprocess.spawn(binary, ["warm", "--url", "https://example.org/"])
        #expect(Subprocess.wait(usage) == 2)
    }

    /// `gallery warm --root --out` writes every photo at every size, and a second run skips them.
    @Test(.enabled(if: FaultPaths.gallery != nil)) func rootExportWritesFilesOnce() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let binary = try FaultPaths.gallery.orThrow("no gallery binary")
        let out = (library.root as NSString).deletingLastPathComponent + "/export"
        let first = try Subprocess.run(binary, ["warm", "--root", library.root, "--sizes", "80x60,200", "--out", out])
        #expect(first.contains("14 files written, 0 photos up to date, 0 failed"), "\(first)")
        let flower = try ImageCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: out + "/200/Trips/Flower.jpg")))).bitmap
        #expect(flower.width == 200 && flower.height == 125)
        let cover = try ImageCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: out + "/80x60/Big_Photo.jpg")))).bitmap
        #expect(cover.width == 80 && cover.height == 60)
        #expect(FileManager.default.fileExists(atPath: out + "/200/Trips/Square.png") || FileManager.default.fileExists(atPath: out + "/200/Trips/Square.jpg"))
        let second = try Subprocess.run(binary, ["warm", "--root", library.root, "--sizes", "80x60,200", "--out", out])
        #expect(second.contains("0 files written, 7 photos up to date"), "\(second)")
    }
}
