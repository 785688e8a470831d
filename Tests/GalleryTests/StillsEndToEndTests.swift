import Foundation
import Gallery
import Testing

/// A folder holding each new kind of still (an animated GIF, TIFFs, camera raws) shows every
/// file as an item through the real stack: thumbnails render, the animated GIF is badged and
/// plays on its page as the original GIF, raws render upright from their embedded previews.
@Suite struct StillsEndToEndTests {
    static let kinds = ["gif_animated.gif", "gif_basic.gif", "tiff_rgb_lzw_pred.tif", "tiff_orient6.tif", "tiff_bigtiff_zip.tif",
                        "raw_cr3.cr3", "raw_nef.nef", "raw_raf.raf", "raw_dng.dng"]

    @Test func everyKindOfStillIsAnItem() throws {
        let base = NSTemporaryDirectory() + "gallery-stills-\(UUID().uuidString.prefix(8))"
        let stills = Fixtures.testsDirectory.appendingPathComponent("Fixtures/stills")
        try FileManager.default.createDirectory(atPath: base + "/photos/Mixed", withIntermediateDirectories: true)
        for name in Self.kinds {
            try FileManager.default.copyItem(atPath: stills.appendingPathComponent(name).path, toPath: base + "/photos/Mixed/" + name)
        }
        let library = TestLibrary(root: base + "/photos")
        defer { library.remove() }
        let stack = try GalleryStack(library: library)
        defer { stack.stop() }
        let catalog = EndToEndTests.catalog(library)
        let album = try #require(catalog.albums.values.first { $0.title == "Mixed" })
        #expect(album.itemIDs.count == Self.kinds.count)
        for id in album.itemIDs {
            let item = try #require(catalog.items[id])
            let detail = try stack.get("/photo/\(id)")
            #expect(detail.status == 200, "\(item.fileName)")
            let src = try #require(detail.text.components(separatedBy: "class=\"main\" src=\"").dropFirst().first?.split(separator: "\"").first,
                                   "\(item.fileName)")
            let image = try stack.get(String(src).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(image.status == 200, "\(item.fileName): \(src)")
            if item.fileName == "gif_animated.gif" {
                // The page shows the original, which animates; its tile says so.
                #expect(src == "/original/\(id)" && image.header("Content-Type") == "image/gif")
            } else {
                #expect(image.header("Content-Type") == "image/jpeg", "\(item.fileName)")
            }
        }
        // The badge comes from the library index's facts: the indexer's first pass may still run.
        var badges = 0
        for _ in 0..<100 where badges == 0 {
            badges = try stack.get("/album/\(album.id)").text.components(separatedBy: "aria-label=\"Animated\"").count - 1
            if badges == 0 { usleep(100_000) }
        }
        #expect(badges == 1)
        #expect(stack.stop(), "gallery log: \(stack.galleryLog)")
    }
}
