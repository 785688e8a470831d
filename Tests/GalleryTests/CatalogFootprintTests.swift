import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// What a large catalog costs at a restart: built from an index listing of 100,000 photos in
/// 1,000 albums (no file is touched), it prints the build time, each part's resident memory
/// (the listing, the catalog, its public view; freed memory trimmed before each reading) and a
/// row's size.
@Suite(.serialized) struct CatalogFootprintTests {
    /// Resident bytes of this process after handing freed memory back (`/proc/self/statm`).
    static func residentBytes() -> Int {
        MemoryTrim.releaseFreedMemory()
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    @Test func catalogOfAHundredThousandPhotosFromAListing() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let before = Self.residentBytes()
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
        let listed = Self.residentBytes()
        let start = DispatchTime.now().uptimeNanoseconds
        let catalog = CatalogScanner(root: library.root, siteTitle: "T").build(from: listing).catalog
        let built = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let withCatalog = Self.residentBytes()
        // The public view shares the item table: it costs the album list, not a copy of the items.
        let viewStart = DispatchTime.now().uptimeNanoseconds
        let view = catalog.publicView()
        let viewed = Double(DispatchTime.now().uptimeNanoseconds - viewStart) / 1e6
        let withView = Self.residentBytes()
        #expect(catalog.items.count == 100_000 && view.items.count == 100_000)
        func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
        print("catalog of 100,000 photos from a listing: built in \(Int(built)) ms, public view \(String(format: "%.2f", viewed)) ms; "
              + "resident: listing \(mb(listed - before)), catalog \(mb(withCatalog - listed)), public view \(mb(withView - withCatalog)); "
              + "packed row \(MemoryLayout<PackedItemTable.Row>.stride) bytes, CatalogItem \(MemoryLayout<CatalogItem>.stride) bytes")
        #expect(MemoryLayout<PackedItemTable.Row>.stride == 56, "a row: 56 bytes, 56 MB at a million photos")
        // The packed table must stay far below the dictionary of items it replaced (~56 MB here).
        #expect(withCatalog - listed < 25_000_000)
        let item = try #require(view.items.values.first { $0.fileName == "IMG_00042.jpg" })
        #expect(item.title == "IMG 00042" && item.absolutePath?.hasSuffix("/IMG_00042.jpg") == true && item.fileSize == 4_000_042)
    }
}
