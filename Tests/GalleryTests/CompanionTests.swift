import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Live Photos and raw + JPEG pairs are one item each: the still shows, its movie and raw are
/// served beside it and go into the ZIP with it, and are never listed on their own.
@Suite struct CompanionTests {
    static func stamp(_ size: Int) -> FileStamp { FileStamp(size: size, mtimeSeconds: 0, mtimeNanoseconds: 0, inode: 0) }

    @Test func pairingByBaseName() {
        let names = ["IMG_1.HEIC", "IMG_1.MOV", "img_2.jpg", "IMG_2.CR3", "IMG_2.mov", "Lone.MOV", "Lone2.NEF", "IMG_3.jpg", "IMG_3.jpeg",
                     "IMG_3.MOV", "IMG_3.mov", "clip.mp4", "clip.jpg"]
        let paired = CompanionPairing.pair(names.enumerated().map { ($0.element, Self.stamp($0.offset)) })
        #expect(paired.items.map(\.name) == ["IMG_1.HEIC", "img_2.jpg", "Lone.MOV", "Lone2.NEF", "IMG_3.jpg", "IMG_3.jpeg", "IMG_3.mov",
                                             "clip.mp4", "clip.jpg"])
        #expect(paired.companions["IMG_1.HEIC"] == [Companion(role: .live, name: "IMG_1.MOV", stamp: Self.stamp(1))])
        #expect(paired.companions["img_2.jpg"]?.map(\.role) == [.raw, .live])
        // One movie per still: the second of the same name stays an item.
        #expect(paired.companions["IMG_3.jpg"]?.map(\.name) == ["IMG_3.MOV"])
        #expect(paired.companions["clip.jpg"] == nil, "only .mov files are Live Photo movies")
    }

    @Test func pairingByContentIdentifier() {
        let a = "FFCBAC24-E547-4BBC-AF47-38B1A3D845E3", b = "0A1B2C3D-0000-4000-8000-00000000000B", c = "1A1B2C3D-0000-4000-8000-00000000000C"
        let names = ["IMG_10.HEIC", "IMG_10 (1).MOV", "Holiday.jpg", "export-77.mov", "IMG_4.JPG", "IMG_4.MOV", "Other.mov",
                     "Twin1.jpg", "Twin2.jpg", "Twin.mov", "Plain.jpg"]
        var asked = 0
        let ids = ["IMG_10.HEIC": a, "IMG_10 (1).MOV": a.lowercased(), "Holiday.jpg": b, "export-77.mov": b,
                   "IMG_4.JPG": c, "Other.mov": c, "Twin1.jpg": "T", "Twin2.jpg": "T", "Twin.mov": "T"]
        let paired = CompanionPairing.pair(names.enumerated().map { ($0.element, Self.stamp($0.offset)) }, contentIdentifiers: {
            asked += 1
            return ids
        })
        #expect(asked == 1)
        #expect(paired.companions["IMG_10.HEIC"]?.map(\.name) == ["IMG_10 (1).MOV"], "identifiers compare without case")
        #expect(paired.companions["Holiday.jpg"]?.map(\.name) == ["export-77.mov"])
        // Paired by name first: the name wins, and the other movie with its identifier stays an item.
        #expect(paired.companions["IMG_4.JPG"]?.map(\.name) == ["IMG_4.MOV"])
        // Two stills with one identifier: the movie cannot be placed, and stays an item.
        #expect(paired.companions["Twin1.jpg"] == nil && paired.companions["Twin2.jpg"] == nil)
        #expect(paired.items.map(\.name) == ["IMG_10.HEIC", "Holiday.jpg", "IMG_4.JPG", "Other.mov", "Twin1.jpg", "Twin2.jpg", "Twin.mov",
                                             "Plain.jpg"])
        // Nothing left to pair: the index is not asked.
        _ = CompanionPairing.pair([("A.jpg", Self.stamp(0)), ("A.mov", Self.stamp(1))], contentIdentifiers: {
            asked += 1
            return [:]
        })
        #expect(asked == 1)
    }

    /// A Live Photo whose files were renamed apart: the still's maker note and the movie's
    /// QuickTime metadata carry one content identifier, which the index learns and the next
    /// scan pairs by. Without the index (nothing read yet) they are two items.
    @Test func aRenamedLivePhotoPairsByContentIdentifier() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let fm = FileManager.default
        let fixtures = Fixtures.testsDirectory.appendingPathComponent("Fixtures")
        try fm.createDirectory(atPath: library.root + "/Phone", withIntermediateDirectories: true)
        try fm.copyItem(atPath: fixtures.appendingPathComponent("metadata/apple-live.jpg").path, toPath: library.root + "/Phone/Holiday.jpg")
        try fm.copyItem(atPath: fixtures.appendingPathComponent("video/live-uuid.mov").path, toPath: library.root + "/Phone/export-77.mov")
        #expect(EndToEndTests.catalog(library).item(relativePath: "Phone/export-77.mov") != nil)

        let app = try SearchPagesTests.makeApp(library, today: CalendarDay(year: 2025, month: 1, day: 1))
        let still = try #require(app.catalog.item(relativePath: "Phone/Holiday.jpg"))
        #expect(still.companion(.live)?.name == "export-77.mov")
        #expect(app.catalog.item(relativePath: "Phone/export-77.mov") == nil)
        let page = SearchPagesTests.get(app, "/photo/\(still.id)")
        #expect(page.text.contains("class=\"live-motion\" src=\"/original/\(still.id)/live\""))
    }

    static func library() throws -> TestLibrary {
        let library = try TestLibrary.make()
        let fm = FileManager.default
        let fixtures = Fixtures.testsDirectory.appendingPathComponent("Fixtures")
        try fm.createDirectory(atPath: library.root + "/Phone", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: library.root + "/Phone/IMG_0001.JPG")
        try fm.copyItem(atPath: fixtures.appendingPathComponent("video/h264.mp4").path, toPath: library.root + "/Phone/IMG_0001.MOV")
        try fm.copyItem(atPath: fixtures.appendingPathComponent("stills/raw_cr3.cr3").path, toPath: library.root + "/Phone/IMG_0002.CR3")
        try fm.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: library.root + "/Phone/IMG_0002.JPG")
        return library
    }

    @Test func livePhotosAndRawPairsThroughNginx() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let phone = try #require(catalog.albums.values.first { $0.title == "Phone" })
        #expect(phone.itemIDs.compactMap { catalog.items[$0]?.fileName } == ["IMG_0001.JPG", "IMG_0002.JPG"])
        let live = try #require(catalog.items.values.first { $0.fileName == "IMG_0001.JPG" })
        let pair = try #require(catalog.items.values.first { $0.fileName == "IMG_0002.JPG" })

        let album = try stack.get("/album/\(phone.id)")
        #expect(album.text.components(separatedBy: "aria-label=\"Live Photo\"").count == 2)
        let livePage = try stack.get("/photo/\(live.id)")
        #expect(livePage.text.contains("class=\"live-motion\" src=\"/original/\(live.id)/live\""))
        let movie = try stack.get("/original/\(live.id)/live", headers: ["Range": "bytes=4-11"])
        let movieBytes = try #require(FileManager.default.contents(atPath: library.root + "/Phone/IMG_0001.MOV"))
        #expect(movie.status == 206 && movie.body == Array(movieBytes[4..<12]) && movie.header("Content-Type") == "video/quicktime")
        let pairPage = try stack.get("/photo/\(pair.id)")
        #expect(pairPage.text.contains("/original/\(pair.id)/raw") && pairPage.text.contains("IMG_0002.CR3"))
        let raw = try stack.get("/original/\(pair.id)/raw")
        let rawBytes = try #require(FileManager.default.contents(atPath: library.root + "/Phone/IMG_0002.CR3"))
        #expect(raw.status == 200 && raw.body == Array(rawBytes))
        #expect(try stack.get("/original/\(live.id)/raw").status == 404)
        #expect(try stack.get("/original/\(live.id)/other").status == 404)

        // The ZIP holds the stills and their companions.
        let zip = try stack.get("/album/\(phone.id)/download")
        let zipPath = stack.base + "/phone.zip"
        try Data(zip.body).write(to: URL(fileURLWithPath: zipPath))
        let listing = try ZipDownloadTests.pythonListing(zipPath).map { $0.split(separator: "\t").first.map(String.init) ?? "" }
        #expect(listing == ["Phone/IMG_0001.JPG", "Phone/IMG_0001.MOV", "Phone/IMG_0002.JPG", "Phone/IMG_0002.CR3"])
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }

    @Test(.enabled(if: BrowserTests.chromium() != nil, "chromium is not installed (deploy/test installs it)"))
    func aLivePhotoPlaysItsMovieWhenPressed() throws {
        let library = try Self.library()
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let live = try #require(EndToEndTests.catalog(library).items.values.first { $0.fileName == "IMG_0001.JPG" })
        let browser = try CDPBrowser()
        defer { browser.quit() }
        try browser.viewport(width: 1000, height: 700, scale: 1, touch: false)
        try browser.navigate("http://127.0.0.1:\(stack.port)/photo/\(live.id)")
        try browser.wait("document.querySelector('.live-toggle') !== null", "the LIVE button")
        #expect(try browser.evalString("document.querySelector('.live-motion').hidden ? 'hidden' : 'shown'") == "hidden")
        _ = try browser.eval("document.querySelector('.live-toggle').dispatchEvent(new PointerEvent('pointerdown')); 1")
        try browser.wait("(function (v) { return v.currentTime > 0 || v.ended; })(document.querySelector('.live-motion'))", timeout: 20,
                         "the Live Photo's movie to play")
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
