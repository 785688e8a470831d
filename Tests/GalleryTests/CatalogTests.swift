import ImagePipeline
import Foundation
import Testing
@testable import Gallery

@Suite struct CatalogTests {
    @Test func scansAlbumsItemsAndSkipsWhatItShould() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let result = CatalogScanner(root: library.root, siteTitle: "T").scan()
        let catalog = result.catalog
        #expect(catalog.items.count == 7)
        let names = Set(catalog.items.values.map(\.fileName))
        #expect(!names.contains(".hidden.jpg"))
        #expect(!names.contains("link-out.jpg"))
        #expect(!names.contains("notes.txt"))
        let root = catalog.root
        #expect(root.albumIDs.map { catalog.albums[$0]!.title } == ["Empty", "Trips"])
        #expect(root.itemIDs.map { catalog.items[$0]!.title } == ["Big Photo"])
        let trips = catalog.albums[root.albumIDs[1]]!
        #expect(trips.itemIDs.map { catalog.items[$0]!.fileName } == ["Flower.jpg", "Odd_Size_Progressive.jpg", "Square.png", "Turned.jpg"])
        #expect(catalog.items[trips.itemIDs[1]]!.title == "Odd Size Progressive")
        let summer = catalog.albums[trips.albumIDs[0]]!
        #expect(summer.title == "2024 Summer")
        #expect(summer.relativePath == "Trips/2024 Summer")
        #expect(catalog.ancestry(of: summer.id).map(\.id) == [root.id, trips.id, summer.id])
        #expect(catalog.totalItemCount(of: root.id) == 7)
        #expect(catalog.coverItem(of: trips.id)?.fileName == "Flower.jpg")
        for item in catalog.items.values {
            #expect(StableID.isWellFormed(item.id))
            #expect(!item.id.contains("/"))
            if case .file(let rel, _) = item.source, let abs = item.absolutePath {
                #expect(abs.hasPrefix(ImageFiles.realPath(library.root)! + "/"))
                #expect(item.id == StableID.make("item:" + rel))
            }
        }
        let (previous, next) = catalog.neighbours(of: trips.itemIDs[0])
        #expect(previous == nil)
        #expect(next?.fileName == "Odd_Size_Progressive.jpg")
    }

    /// A library larger than the catalog's limit keeps the first photos and says how many it
    /// left out, instead of dropping them without a word.
    @Test func photosBeyondTheLimitAreCountedInAWarning() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        var scanner = CatalogScanner(root: library.root, siteTitle: "T")
        scanner.maxItems = 3
        let result = scanner.scan()
        #expect(result.catalog.items.count == 3)
        #expect(result.warnings.contains("4 photos not shown: the catalog holds at most 3 (it is kept in memory, about 100 bytes a photo)"))
        #expect(!CatalogScanner(root: library.root, siteTitle: "T").scan().warnings.contains { $0.contains("not shown") })
    }

    @Test func idsAreStableAcrossScans() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let a = CatalogScanner(root: library.root, siteTitle: "T").scan()
        let b = CatalogScanner(root: library.root, siteTitle: "T").scan()
        #expect(Set(a.catalog.items.keys) == Set(b.catalog.items.keys))
        #expect(a.fingerprint == b.fingerprint)
    }

    @Test func sniffsImagesWithoutExtensionAndIgnoresFakes() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: library.root + "/no_extension")
        try Data("JPEG? no".utf8).write(to: URL(fileURLWithPath: library.root + "/fake"))
        let names = Set(CatalogScanner(root: library.root, siteTitle: "T").scan().catalog.items.values.map(\.fileName))
        #expect(names.contains("no_extension"))
        #expect(!names.contains("fake"))
    }

    @Test func symlinkInsideRootIsFollowedOutsideIsNot() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        try FileManager.default.createSymbolicLink(atPath: library.root + "/Inside.jpg", withDestinationPath: library.root + "/Big_Photo.jpg")
        try FileManager.default.createSymbolicLink(atPath: library.root + "/Etc", withDestinationPath: "/etc")
        let catalog = CatalogScanner(root: library.root, siteTitle: "T").scan().catalog
        #expect(catalog.items.values.contains { $0.fileName == "Inside.jpg" })
        #expect(!catalog.albums.values.contains { $0.title == "Etc" })
    }

    @Test func manifestAddsTitlesCaptionsAndRemoteItems() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let manifest = """
        { "title": "My Photos",
          "albums": { "Trips": { "title": "Travels", "caption": "Far away" }, "Web": { "caption": "From elsewhere" } },
          "items": { "Trips/Flower.jpg": { "title": "A flower", "caption": "Yellow" } },
          "remote": [ { "url": "https://example.org/pics/sea.jpg", "title": "Sea" },
                      { "url": "http://example.org/b.png", "album": "Web" },
                      { "url": "file:///etc/passwd" }, { "url": "javascript:alert(1)" } ] }
        """
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: library.root + "/gallery.json"))
        let result = CatalogScanner(root: library.root, siteTitle: "T").scan()
        let catalog = result.catalog
        #expect(catalog.siteTitle == "My Photos")
        let trips = catalog.albums.values.first { $0.relativePath == "Trips" }!
        #expect(trips.title == "Travels")
        #expect(trips.caption == "Far away")
        #expect(catalog.items.values.first { $0.fileName == "Flower.jpg" }?.title == "A flower")
        let remote = catalog.albums.values.first { $0.relativePath == "Remote" }!
        #expect(remote.itemIDs.map { catalog.items[$0]!.title } == ["Sea"])
        #expect(catalog.items[remote.itemIDs[0]]!.sourceURL == "https://example.org/pics/sea.jpg")
        let web = catalog.albums.values.first { $0.relativePath == "Web" }!
        #expect(web.caption == "From elsewhere")
        #expect(catalog.items[web.itemIDs[0]]!.title == "b")
        #expect(!catalog.items.values.contains { $0.sourceURL.hasPrefix("file:///etc") || $0.sourceURL.hasPrefix("javascript") })
        #expect(result.warnings.count == 2)
    }

    @Test func brokenManifestIsIgnoredWithAWarning() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: library.root + "/gallery.json"))
        let result = CatalogScanner(root: library.root, siteTitle: "T").scan()
        #expect(result.catalog.items.count == 7)
        #expect(result.warnings.contains { $0.contains("gallery.json") })
    }

    @Test func storePicksUpChanges() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let store = CatalogStore(scanner: CatalogScanner(root: library.root, siteTitle: "T"), log: { _ in })
        #expect(store.catalog.items.count == 7)
        #expect(store.refresh() == false)
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: library.root + "/Empty/New.JPG")
        #expect(store.refresh() == true)
        #expect(store.catalog.items.values.contains { $0.fileName == "New.JPG" })
    }

    @Test func folderFingerprintMovesWhenEntriesChange() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let scanner = CatalogScanner(root: library.root, siteTitle: "T")
        let store = CatalogStore(scanner: scanner, log: { _ in })
        let before = scanner.directoryFingerprint()
        #expect(before == scanner.directoryFingerprint())
        #expect(store.refreshIfFoldersChanged() == false)
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: library.root + "/Trips/2024 Summer/Deep.jpg")
        #expect(scanner.directoryFingerprint() != before)
        #expect(store.refreshIfFoldersChanged() == true)
        #expect(store.catalog.items.values.contains { $0.fileName == "Deep.jpg" })
        try FileManager.default.removeItem(atPath: library.root + "/Trips/2024 Summer/Deep.jpg")
        #expect(store.refreshIfFoldersChanged() == true)
        #expect(!store.catalog.items.values.contains { $0.fileName == "Deep.jpg" })
    }

    @Test func naturalOrderAndTitles() {
        #expect(CatalogNaming.precedes("img2.jpg", "img10.jpg"))
        #expect(CatalogNaming.precedes("a.jpg", "B.jpg"))
        #expect(!CatalogNaming.precedes("img10.jpg", "img2.jpg"))
        #expect(CatalogNaming.title(fromFileName: "summer_beach-2024.jpg", dropExtension: true) == "summer beach 2024")
        #expect(CatalogNaming.title(fromFileName: ".jpg", dropExtension: true) == ".jpg")
        #expect(CatalogNaming.title(fromFileName: "My-Album", dropExtension: false) == "My Album")
    }

    @Test func missingRootGivesAnEmptyCatalog() {
        let result = CatalogScanner(root: "/nonexistent/photos", siteTitle: "T").scan()
        #expect(result.catalog.items.isEmpty)
        #expect(!result.warnings.isEmpty)
    }
}
