import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// The safety-net walk checks the snapshot folder by folder: an unchanged library is listed
/// and nothing is built or read; a folder that differs is applied as a change; an emptied
/// mount is held back; a tree it cannot judge folder by folder is scanned whole.
@Suite struct WalkCheckTests {
    typealias Start = StartWalkTests

    @Test func anUnchangedLibraryIsListedNotBuilt() throws {
        let (root, store, counter) = try Start.restarted(albums: 5)
        defer { IncrementalChangeTests.remove(root) }
        let before = store.versioned.fingerprint, pages = Start.pages(store.catalog)
        let readBefore = counter.reads.load(ordering: .relaxed)
        #expect(store.safetyWalk(giveWay: nil))
        #expect(Start.listed(store) == 6, "the root and five albums, once each")
        #expect(store.versioned.fingerprint == before, "the snapshot was not replaced")
        #expect(Start.marksWhole(store) && counter.reads.load(ordering: .relaxed) == readBefore)
        // The next walk compares the marks' fingerprints.
        #expect(store.safetyWalk(giveWay: nil))
        #expect(Start.listed(store) == 12 && store.versioned.fingerprint == before)
        #expect(Start.pages(store.catalog) == pages)
    }

    @Test func photosAddedAndRewrittenWhileStoppedArePatchedIn() throws {
        let (root, store, counter) = try Start.restarted(albums: 5)
        defer { IncrementalChangeTests.remove(root) }
        try IncrementalChangeTests.copyPhoto(to: root + "/A02/new.jpg")
        try FileManager.default.removeItem(atPath: root + "/A04/p1.jpg")
        try IncrementalChangeTests.copyPhoto(to: root + "/A04/p1.jpg")
        let readBefore = counter.reads.load(ordering: .relaxed)
        #expect(store.safetyWalk(giveWay: nil))
        #expect(Start.listed(store) == 6 + 2, "the walk, then the two folders that differ")
        #expect(counter.reads.load(ordering: .relaxed) - readBefore == 2, "the new photo and the rewritten one")
        #expect(store.catalog.items.values.contains { $0.relativePath == "A02/new.jpg" })
        // What a whole scan makes of the folder is what the walk left.
        let checked = Start.pages(store.catalog)
        store.refresh(force: true)
        #expect(Start.pages(store.catalog) == checked)
    }

    @Test func aFolderWithAnUnreadPhotoIsFoundByTheWalk() throws {
        let (root, store, _) = try Start.restarted(albums: 3)
        defer { IncrementalChangeTests.remove(root) }
        // A sidecar written beside a photo while the server was stopped.
        try Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8).write(to: URL(fileURLWithPath: root + "/A01/p0.xmp"))
        #expect(store.safetyWalk(giveWay: nil))
        #expect(Start.listed(store) == 4 + 1)
        let item = try #require(store.catalog.items.values.first { $0.relativePath == "A01/p0.jpg" })
        #expect(item.sidecar?.name == "p0.xmp")
    }

    @Test func anEmptiedMountIsHeldBackAndComesBack() throws {
        let (root, store, _) = try Start.restarted(albums: 4)
        defer { IncrementalChangeTests.remove(root) }
        let pages = Start.pages(store.catalog)
        let aside = (root as NSString).deletingLastPathComponent + "/aside"
        try FileManager.default.moveItem(atPath: root, toPath: aside)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        #expect(store.safetyWalk(giveWay: nil))
        #expect(store.heldBack != nil && Start.pages(store.catalog) == pages)
        try FileManager.default.removeItem(atPath: root)
        try FileManager.default.moveItem(atPath: aside, toPath: root)
        #expect(store.safetyWalk(giveWay: nil))
        #expect(store.heldBack == nil && Start.pages(store.catalog) == pages)
    }

    @Test func aSymlinkedFolderOrANewManifestGetsTheWholeScan() throws {
        let (root, store, _) = try Start.restarted(albums: 3)
        defer { IncrementalChangeTests.remove(root) }
        try Data(#"{"title": "Renamed"}"#.utf8).write(to: URL(fileURLWithPath: root + "/gallery.json"))
        #expect(store.checkFolders(giveWay: nil) == .needsScan)
        #expect(store.safetyWalk(giveWay: nil) && store.catalog.siteTitle == "Renamed")
        #expect(store.checkFolders(giveWay: nil) == .listed(changed: []), "the scan took the manifest's stamp")

        try FileManager.default.createSymbolicLink(atPath: root + "/Alias", withDestinationPath: root + "/A01")
        #expect(store.checkFolders(giveWay: nil) == .needsScan)
        #expect(store.safetyWalk(giveWay: nil))
        #expect(!store.catalog.albums.values.contains { $0.relativePath == "Alias" })
    }

    @Test func aWalkThatGivesWayListsNothing() throws {
        let (root, store, _) = try Start.restarted(albums: 3)
        defer { IncrementalChangeTests.remove(root) }
        let checked = store.checkFolders(giveWay: { true }), walked = store.safetyWalk(giveWay: { true })
        #expect(checked == .gaveWay && !walked)
        #expect(Start.listed(store) == 0 && !Start.marksWhole(store))
    }

    /// After a start from the index, the rows an older build read are read again, and no others.
    @Test func rowsOfAnOlderBuildAreReadAgainOnce() throws {
        let (root, store, counter) = try Start.restarted(albums: 4)
        defer { IncrementalChangeTests.remove(root) }
        try #require(store.index).withWriter { db throws(SQLiteError) in
            try db.execute("UPDATE photos SET facts_level = 2 WHERE album = 'A02'")
        }
        let readBefore = counter.reads.load(ordering: .relaxed)
        #expect(store.safetyWalk(giveWay: nil))
        #expect(counter.reads.load(ordering: .relaxed) - readBefore == 2, "the two photos of A02")
        #expect(store.index?.foldersWithOlderFacts() == [])
        #expect(store.safetyWalk(giveWay: nil))
        #expect(counter.reads.load(ordering: .relaxed) - readBefore == 2)
        // The index now says every row is current: the next start skips the pass over the table.
        #expect(store.index?.markFactsCurrent() == true)
        let marked = try #require(store.index).read { db throws(SQLiteError) in
            try db.scalar("SELECT value FROM meta WHERE key = 'facts_level'")
        }
        #expect(marked == LibraryIndex.factsLevel)
    }
}

/// An index of another folder's library is not served nor guarded: the start scans, and the
/// writer's first pass replaces the rows and marks the index as this folder's.
@Suite struct LibraryRootMarkTests {
    @Test func anIndexOfAnotherFolderIsReplacedNotHeldBack() throws {
        let rootA = try IncrementalChangeTests.library(albums: 2, photos: 30)
        let rootB = try IncrementalChangeTests.library(albums: 3, photos: 2)
        defer {
            IncrementalChangeTests.remove(rootA)
            IncrementalChangeTests.remove(rootB)
        }
        let index = try LibraryIndexTests.openIndex(IncrementalChangeTests.indexPath(rootA))
        let counter = LibraryIndexTests.CountingReader()
        func store(_ root: String) -> CatalogStore {
            CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index,
                         indexer: LibraryIndexer(index: index, readers: 1, background: false, readFile: counter.reader), log: { _ in })
        }
        let first = store(rootA)
        #expect(first.safetyWalk(giveWay: nil))
        let realA = try #require(ImageFiles.realPath(rootA)), realB = try #require(ImageFiles.realPath(rootB))
        #expect(index.holdsLibrary(at: realA) && !index.holdsLibrary(at: realB))
        #expect(first.catalog.items.count == 60)

        // The same cache directory, another folder: its six photos, not the sixty of the other.
        let second = store(rootB)
        #expect(second.catalog.items.count == 6)
        #expect(second.safetyWalk(giveWay: nil))
        #expect(second.heldBack == nil && second.catalog.items.count == 6)
        #expect(index.holdsLibrary(at: realB) && !index.holdsLibrary(at: realA))
        let restarted = CatalogStore(scanner: CatalogScanner(root: rootB, siteTitle: "T"), index: index, log: { _ in })
        #expect(StartWalkTests.pages(restarted.catalog) == StartWalkTests.pages(second.catalog))

        // An emptied folder at the same path is still the same library: held back.
        let aside = (rootB as NSString).deletingLastPathComponent + "/aside"
        try FileManager.default.moveItem(atPath: rootB, toPath: aside)
        try FileManager.default.createDirectory(atPath: rootB, withIntermediateDirectories: false)
        let emptied = store(rootB)
        #expect(emptied.catalog.items.count == 6, "built from the index: same path, same library")
    }
}
