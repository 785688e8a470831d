import Foundation
import Testing
@testable import Gallery

/// Hostile files through the whole web stack (nginx, spawn-fcgi, the gallery binary): movies
/// with a truncated `moov`, sample offsets past the end, huge tables, size loops; GIFs with LZW
/// floods and huge canvases; TIFFs with IFD loops, offsets past the end and 2^32-pixel claims; a
/// raw whose preview lies past the end. Each one the codec refuses (the fixtures' manifests)
/// answers 4xx for its thumbnail (422: undecodable or too large; 415: no format we read) within
/// two seconds, one it reads despite the damage (an LZW flood's first rows, an IFD loop cut)
/// answers 200 as fast; every page still answers, and the server neither crashes nor stalls
/// (it stops cleanly at the end).
@Suite(.serialized, .enabled(if: FaultPaths.stackAvailable)) struct HostileFileStackTests {
    static let videoFiles = ["hostile-child-overruns.mp4", "hostile-huge-sample.mp4", "hostile-huge-stsc.mp4", "hostile-huge-stsz.mp4",
                             "hostile-largesize.mp4", "hostile-offset-past-end.mp4", "hostile-size-loop.mp4",
                             "hostile-sync-past-end.mp4", "hostile-truncated-moov.mp4", "hostile-zero-size.mp4"]

    /// Still fixtures the codec decodes despite the damage (stills/manifest.txt: "ok" or "warn").
    static func decodable() throws -> Set<String> {
        let manifest = try String(contentsOfFile: Fixtures.testsDirectory.appendingPathComponent("Fixtures/stills/manifest.txt").path,
                                  encoding: .utf8)
        return Set(manifest.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count > 1 && fields[0].hasPrefix("bad_") && fields[1] != "error" ? String(fields[0]) : nil
        })
    }

    static func library() throws -> (TestLibrary, [String]) {
        let library = try TestLibrary.make()
        let fm = FileManager.default
        let fixtures = Fixtures.testsDirectory.appendingPathComponent("Fixtures")
        let dir = library.root + "/Hostile"
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var names: [String] = []
        for name in videoFiles {
            try fm.copyItem(atPath: fixtures.appendingPathComponent("video/" + name).path, toPath: dir + "/" + name)
            names.append(name)
        }
        let stills = try fm.contentsOfDirectory(atPath: fixtures.appendingPathComponent("stills").path).filter { $0.hasPrefix("bad_") }
        for name in stills.sorted() {
            try fm.copyItem(atPath: fixtures.appendingPathComponent("stills/" + name).path, toPath: dir + "/" + name)
            names.append(name)
        }
        return (library, names)
    }

    @Test func hostileFilesAnswer4xxQuickly() throws {
        let (library, names) = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        #expect(names.count >= 20)
        let decodable = try Self.decodable()
        var slowest = 0.0
        for name in names {
            guard let item = catalog.items.values.first(where: { $0.fileName == name }) else {
                Issue.record("\(name) is not listed")
                continue
            }
            let start = Date()
            var reply = try stack.get("/img/\(item.id)/240x240")
            if reply.status == 302, let location = reply.header("Location") {
                let path = location.hasPrefix("http") ? String(location.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" }) : location
                reply = try stack.get(path)
            }
            let seconds = Date().timeIntervalSince(start)
            slowest = max(slowest, seconds)
            if decodable.contains(name) {
                #expect(reply.status == 200, "\(name): \(reply.status)")
            } else {
                #expect([415, 422].contains(reply.status), "\(name): \(reply.status)")
            }
            #expect(seconds < 2, "\(name) took \(seconds) s")
            #expect(try stack.get("/photo/\(item.id)").status == 200, "\(name)'s page")
        }
        #expect(try stack.get("/healthz").status == 200)
        print("hostile files: \(names.count) through nginx, slowest answer \(Int(slowest * 1000)) ms")
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
