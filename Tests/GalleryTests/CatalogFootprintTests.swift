import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// What a large catalog costs at a restart: built from an index listing of 100,000 photos in
/// 1,000 albums (no file is touched), it prints the build time and each item's inline size.
@Suite struct CatalogFootprintTests {
    @Test func catalogOfAHundredThousandPhotosFromAListing() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        var listing = LibraryListing()
        listing.folders[""] = LibraryListing.Folder()
        for a in 0..<1000 {
            let album = String(format: "Album %04d", a)
            listing.folders[""]!.subfolders.append(album)
            var folder = LibraryListing.Folder()
            for p in 0..<100 {
                folder.images.append((String(format: "IMG_%05d.jpg", p), FileStamp(size: 4_000_000 + p, mtimeSeconds: 1_700_000_000,
                                                                                  mtimeNanoseconds: p, inode: UInt64(a * 100 + p))))
            }
            listing.folders[album] = folder
            listing.photoCount += 100
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let catalog = CatalogScanner(root: library.root, siteTitle: "T").build(from: listing).catalog
        let built = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        // The public view shares the item table: it costs the album list, not a copy of the items.
        let view = catalog.publicView()
        let viewed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 - built
        #expect(catalog.items.count == 100_000 && view.items.count == 100_000)
        print("catalog of 100,000 photos from a listing: built in \(Int(built)) ms, public view \(String(format: "%.2f", viewed)) ms; "
              + "CatalogItem \(MemoryLayout<CatalogItem>.stride) bytes inline")
        let item = try #require(view.items.values.first { $0.fileName == "IMG_00042.jpg" })
        #expect(item.title == "IMG 00042" && item.absolutePath?.hasSuffix("/IMG_00042.jpg") == true && item.fileSize == 4_000_042)
    }
}
