import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// An empty mount never loses the library: scans that would drop much of it at once are held
/// back until the folder is back or the operator accepts the removals.
@Suite struct RemovalGuardTests {
    /// The test library (7 photos) plus `count` photos in "Mount" (hard links of one small JPEG) and 5 in "Other".
    static func library(count: Int) throws -> TestLibrary {
        let library = try TestLibrary.make()
        let fm = FileManager.default
        for dir in ["Mount", "Other"] { try fm.createDirectory(atPath: library.root + "/" + dir, withIntermediateDirectories: true) }
        let source = Fixtures.jpeg("flower_420_q75.jpg")
        for i in 0..<count { try fm.linkItem(atPath: source, toPath: library.root + "/Mount/IMG_\(i).jpg") }
        for i in 0..<5 { try fm.linkItem(atPath: source, toPath: library.root + "/Other/o\(i).jpg") }
        return library
    }

    static func store(_ library: TestLibrary) throws -> (CatalogStore, LibraryIndex) {
        let path = (library.root as NSString).deletingLastPathComponent + "/index/library.sqlite"
        let opened = LibraryIndex.open(path: path, log: { _ in })
        let index = try #require(opened)
        let store = CatalogStore(scanner: CatalogScanner(root: library.root, siteTitle: "T"), index: index, log: { _ in })
        return (store, index)
    }

    static func photos(_ store: CatalogStore) -> Int { store.catalog.fileItemCount }

    @Test func anEmptiedMountIsHeldBackUntilItIsBack() throws {
        let library = try Self.library(count: 60)
        defer { library.remove() }
        let (store, _) = try Self.store(library)
        let before = Self.photos(store)
        #expect(before == 72)
        // The mount point stays, empty: as an unmounted NAS folder looks.
        let aside = (library.root as NSString).deletingLastPathComponent + "/aside"
        try FileManager.default.moveItem(atPath: library.root + "/Mount", toPath: aside)
        try FileManager.default.createDirectory(atPath: library.root + "/Mount", withIntermediateDirectories: false)
        #expect(!store.refresh())
        #expect(Self.photos(store) == before)
        #expect(store.heldBack?.contains("Mount holds no photos now") == true)
        // A change elsewhere is held back too while the mount is missing (one snapshot).
        try FileManager.default.linkItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: library.root + "/Other/new.jpg")
        #expect(!store.refresh())
        // The mount comes back: everything applies, nothing was lost.
        try FileManager.default.removeItem(atPath: library.root + "/Mount")
        try FileManager.default.moveItem(atPath: aside, toPath: library.root + "/Mount")
        #expect(store.refresh())
        #expect(store.heldBack == nil)
        #expect(Self.photos(store) == before + 1)
    }

    @Test func anUnreadableOrEmptyRootIsHeldBack() throws {
        let library = try Self.library(count: 3)
        defer { library.remove() }
        let (store, _) = try Self.store(library)
        let before = Self.photos(store)
        let aside = (library.root as NSString).deletingLastPathComponent + "/aside"
        try FileManager.default.moveItem(atPath: library.root, toPath: aside)
        #expect(!store.refresh())
        #expect(store.heldBack == "the library folder cannot be read")
        try FileManager.default.createDirectory(atPath: library.root, withIntermediateDirectories: false)
        #expect(!store.refresh())
        #expect(store.heldBack?.contains("holds no photos now") == true)
        #expect(Self.photos(store) == before)
        try FileManager.default.removeItem(atPath: library.root)
        try FileManager.default.moveItem(atPath: aside, toPath: library.root)
        #expect(!store.refresh(), "the same files as before: nothing changed")
        #expect(store.heldBack == nil)
    }

    @Test func largeRealRemovalsWaitForTheOperator() throws {
        let library = try Self.library(count: 60)
        defer { library.remove() }
        let (store, index) = try Self.store(library)
        // 55 of 72 photos deleted on purpose: more than 10 % and at least 50.
        for i in 0..<55 { try FileManager.default.removeItem(atPath: library.root + "/Mount/IMG_\(i).jpg") }
        #expect(!store.refresh())
        #expect(store.heldBack?.contains("55 of 72 photos would go at once") == true)
        _ = FileManager.default.createFile(atPath: RemovalGuard.acceptFile(indexPath: index.path), contents: nil)
        #expect(store.refresh())
        #expect(Self.photos(store) == 17 && store.heldBack == nil)
        #expect(!FileManager.default.fileExists(atPath: RemovalGuard.acceptFile(indexPath: index.path)), "accepted once")
        // Small removals apply as before.
        for i in 55..<60 { try FileManager.default.removeItem(atPath: library.root + "/Mount/IMG_\(i).jpg") }
        #expect(store.refresh())
        #expect(Self.photos(store) == 12)
    }

    @Test func theRuleOnCatalogs() throws {
        let library = try Self.library(count: 60)
        defer { library.remove() }
        let scanner = CatalogScanner(root: library.root, siteTitle: "T")
        let full = scanner.scan().catalog
        let guardrail = RemovalGuard()
        #expect(guardrail.problem(current: full, next: full, unreadable: []) == nil)
        #expect(guardrail.problem(current: full, next: full, unreadable: ["Mount"]) != nil)
        #expect(guardrail.problem(current: full, next: full, unreadable: ["Other"]) == nil, "Other has too few photos to judge")
        #expect(guardrail.problem(current: Catalog.empty(siteTitle: "T"), next: full, unreadable: [""]) == nil, "nothing to lose")
    }
}
