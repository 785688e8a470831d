import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// The packed item table (`PackedItemTable`) gives back every item as the catalog had it,
/// views of it stay exact, a patch replaces one album's rows only, and a library over the old
/// 200,000-photo cap is served whole.
@Suite struct PackedItemTableTests {
    static let root = LibraryRoot("/library")

    /// Items of every shape the table stores apart: a plain photo, one with manifest text, a
    /// companion and a sidecar, a remote item, an id not of the `StableID` shape, a file under
    /// another root, stamps whose nanoseconds overflow 32 or 30 bits, whose size is 0 or past
    /// 40 bits, whose time is before 1970, a photo outside its album's folder.
    static func items() -> [String: CatalogItem] {
        let stamp = FileStamp(size: 1234, mtimeSeconds: 1_700_000_000, mtimeNanoseconds: 999_999_999, inode: 42)
        var list: [CatalogItem] = [
            CatalogItem(id: StableID.make("item:A/IMG_1.jpg"), albumID: "albumA", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "A/IMG_1.jpg", root: root), stamp: stamp),
            CatalogItem(id: StableID.make("item:A/IMG_20240101_123456_long_name.jpg"), albumID: "albumA", givenTitle: "Given",
                        caption: "Caption", source: .file(relativePath: "A/IMG_20240101_123456_long_name.jpg", root: root), stamp: stamp),
            CatalogItem(id: StableID.make("url:https://example.com/x.jpg"), albumID: "remote", givenTitle: nil, caption: nil,
                        source: .remote(url: "https://example.com/x.jpg"), stamp: nil),
            CatalogItem(id: "p1", albumID: "root", givenTitle: nil, caption: nil, source: .file(relativePath: "top.jpg", root: root),
                        stamp: stamp),
            CatalogItem(id: StableID.make("item:other"), albumID: "albumA", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "A/other.jpg", root: LibraryRoot("/elsewhere")), stamp: stamp),
            CatalogItem(id: StableID.make("item:A/odd.jpg"), albumID: "albumA", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "A/odd.jpg", root: root),
                        stamp: FileStamp(size: 1, mtimeSeconds: -5, mtimeNanoseconds: Int(Int32.max) + 7, inode: UInt64.max)),
            CatalogItem(id: StableID.make("item:B/moved.jpg"), albumID: "albumA", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "B/moved.jpg", root: root), stamp: stamp),
            // Stamps a row cannot hold: nanoseconds past its 30 bits, a size of 0.
            CatalogItem(id: StableID.make("item:C/nanos.jpg"), albumID: "albumC", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "C/nanos.jpg", root: root),
                        stamp: FileStamp(size: 9, mtimeSeconds: 3, mtimeNanoseconds: 1 << 30, inode: 7)),
            CatalogItem(id: StableID.make("item:C/empty.jpg"), albumID: "albumC", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "C/empty.jpg", root: root),
                        stamp: FileStamp(size: 0, mtimeSeconds: 3, mtimeNanoseconds: 5, inode: 8)),
            // A size past the row's 40 bits; a time before 1970 that the row holds.
            CatalogItem(id: StableID.make("item:C/huge.mov"), albumID: "albumC", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "C/huge.mov", root: root),
                        stamp: FileStamp(size: 1 << 41, mtimeSeconds: 1 << 34, mtimeNanoseconds: 5, inode: 9)),
            CatalogItem(id: StableID.make("item:C/old.jpg"), albumID: "albumC", givenTitle: nil, caption: nil,
                        source: .file(relativePath: "C/old.jpg", root: root),
                        stamp: FileStamp(size: 77, mtimeSeconds: -86_400 * 365 * 40, mtimeNanoseconds: 999_999_999, inode: UInt64.max)),
        ]
        list[0].companions = [Companion(role: .live, name: "IMG_1.mov", stamp: stamp)]
        list[0].sidecar = SidecarFile(name: "IMG_1.jpg.xmp", stamp: stamp)
        return Dictionary(uniqueKeysWithValues: list.map { ($0.id, $0) })
    }

    @Test func everyItemComesBackAsItWasGiven() {
        let items = Self.items()
        let table = CatalogItems(items)
        #expect(table.count == items.count)
        for (id, item) in items { #expect(table[id] == item) }
        #expect(table["p2"] == nil && table["000000000000"] == nil && table[""] == nil)
        #expect(Set(table.keys) == Set(items.keys))
        #expect(table.fileCount == items.count - 1)
    }

    /// A view sees the items of its albums only, through the same rows.
    @Test func aViewHoldsOnlyItsAlbumsItems() {
        let items = Self.items()
        let view = CatalogItems(items).restricted(to: ["albumA"], count: 5)
        for (id, item) in items { #expect((view[id] != nil) == (item.albumID == "albumA")) }
        #expect(view.values.allSatisfy { $0.albumID == "albumA" } && view.values.count == 5)
        #expect(view.fileCount == 5)
    }

    /// A scan's album lists read their ids from the rows; a patch that appends keeps them so,
    /// one that copies the rows (an older catalog patched again) gives them numbers of their
    /// own, equal, so that the old rows are not kept alive by a list.
    @Test func albumListsReadTheRowsUntilARowCopy() throws {
        // Twenty albums of two: a patch of one drops an eighth of the rows at most.
        let root = try IncrementalChangeTests.library(albums: 20, photos: 2)
        defer { IncrementalChangeTests.remove(root) }
        let scanner = CatalogScanner(root: root, siteTitle: "T")
        let catalog = scanner.scan().catalog
        let rows = catalog.items.table.sharedRows
        let filled = catalog.albums.values.filter { !$0.itemIDs.isEmpty }
        #expect(!filled.isEmpty && filled.allSatisfy { $0.itemIDs.reads(rows) })
        for album in filled {
            #expect(album.itemIDs == album.itemIDs.detached() && Array(album.itemIDs) == Array(album.itemIDs.detached()))
            for (n, id) in album.itemIDs.enumerated() { #expect(album.itemIDs.firstIndex(of: id) == n && catalog.items[id] != nil) }
        }
        var entries = scanner.listFolder(relativePath: "A03", absolute: root + "/A03", realRoot: ImageFiles.realPath(root)!)
        entries.images.removeFirst()
        let appended = try #require(scanner.patch(catalog, folders: [("A03", entries)], manifest: nil))
        #expect(appended.items.table.sharesRows(with: catalog.items.table))
        // The same base patched again: its rows moved on, so this patch copies them.
        let copied = try #require(scanner.patch(catalog, folders: [("A03", entries)], manifest: nil))
        #expect(!copied.items.table.sharesRows(with: catalog.items.table))
        #expect(!copied.albums.values.contains { $0.itemIDs.reads(rows) })
        #expect(copied.albums == appended.albums)
        for album in copied.albums.values { for id in album.itemIDs { #expect(copied.items[id] == appended.items[id]) } }
    }

    /// A patch replaces the rows of the changed album and keeps every other item.
    @Test func aPatchReplacesOneAlbumAndKeepsTheRest() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let scanner = CatalogScanner(root: library.root, siteTitle: "T")
        let catalog = scanner.scan().catalog
        let trips = try #require(catalog.albums.values.first { $0.relativePath == "Trips" })
        var entries = scanner.listFolder(relativePath: "Trips", absolute: library.root + "/Trips",
                                         realRoot: ImageFiles.realPath(library.root)!)
        let dropped = entries.images.removeFirst()
        let patched = try #require(scanner.patch(catalog, folders: [("Trips", entries)], manifest: nil))
        #expect(patched.items.count == catalog.items.count - 1)
        #expect(!patched.items.values.contains { $0.fileName == dropped.name })
        for item in catalog.items.values where item.albumID != trips.id { #expect(patched.items[item.id] == item) }
        for id in patched.albums[trips.id]!.itemIDs { #expect(patched.items[id] == catalog.items[id]) }
    }

    /// 250,000 photos from an index listing (over the 200,000 the catalog used to hold): all
    /// served, no warning, and looked up by id.
    @Test func aLibraryOverTheOldCapIsServedWhole() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        var listing = LibraryListing()
        listing.folders[""] = LibraryListing.Folder()
        for a in 0..<250 {
            let album = String(format: "Album %03d", a)
            listing.folders[""]!.subfolders.append(album)
            var folder = LibraryListing.Folder()
            for p in 0..<1000 {
                folder.images.append((String(format: "IMG_%04d.jpg", p), FileStamp(size: 1 + p, mtimeSeconds: 1_700_000_000,
                                                                                  mtimeNanoseconds: p, inode: UInt64(a * 1000 + p))))
            }
            listing.folders[album] = folder
            listing.photoCount += 1000
        }
        let result = CatalogScanner(root: library.root, siteTitle: "T").build(from: listing)
        #expect(result.catalog.items.count == 250_000)
        #expect(!result.warnings.contains { $0.contains("not shown") })
        let last = try #require(result.catalog.items[StableID.make("item:Album 249/IMG_0999.jpg")])
        #expect(last.relativePath == "Album 249/IMG_0999.jpg" && last.fileSize == 1000)
        // A small cap still says what it left out.
        var capped = CatalogScanner(root: library.root, siteTitle: "T")
        capped.maxItems = 1000
        #expect(capped.build(from: listing).warnings.contains { $0.hasPrefix("249000 photos not shown") })
    }

    /// An album's item ids are kept as numbers (`ItemIDList`, 8 bytes a photo) and read back
    /// as the same texts, ids of another shape included, in order.
    @Test func albumItemIDsKeptAsNumbersReadBackTheSame() {
        let ids = [StableID.make("item:A/1.jpg"), "not-an-id", StableID.make("item:A/2.jpg"), "000000000000", "ABCDEF012345"]
        var list = ItemIDList(ids)
        #expect(Array(list) == ids && list.count == 5)
        #expect(list.firstIndex(of: ids[2]) == 2 && list.firstIndex(of: "not-an-id") == 1 && list.firstIndex(of: "ABCDEF012345") == 4)
        #expect(list.firstIndex(of: StableID.make("item:A/3.jpg")) == nil && !list.contains("other"))
        list.append("x")
        #expect(list.last == "x" && list[1..<3].map { $0 } == [ids[1], ids[2]])
        #expect(ItemIDList(ids) == ItemIDList(ids) && ItemIDList(ids) != list && ([] as ItemIDList).isEmpty)
        // A folder without movies or raws skips pairing; their endings in any case do not.
        #expect(!CompanionPairing.mayBeCompanion("IMG_1.JPG") && !CompanionPairing.mayBeCompanion("movie"))
        #expect(CompanionPairing.mayBeCompanion("IMG_1.MOV") && CompanionPairing.mayBeCompanion("a.dng") && CompanionPairing.mayBeCompanion("b.3FR"))
    }
}
