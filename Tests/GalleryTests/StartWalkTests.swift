import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// After a start from the index, the safety-net walk is a check, not a prerequisite: it gives
/// way to changes, and a change before it finished is patched in from the snapshot (its
/// folder's mark told from the album tree) instead of listing the whole library.
@Suite struct StartWalkTests {
    /// What pages show of a catalog: every album's photos in order, by relative path and id.
    static func pages(_ catalog: Catalog) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for album in catalog.albums.values {
            out[album.relativePath] = album.itemIDs.map { id in (catalog.items[id]?.relativePath ?? "?") + " " + id }
        }
        return out
    }

    static func marksWhole(_ store: CatalogStore) -> Bool { store.marksWhole.load(ordering: .relaxed) }

    static func listed(_ store: CatalogStore) -> Int { store.foldersListed.load(ordering: .relaxed) }

    /// A library indexed by a first store, and a second store started from that index (as a
    /// restarted server is), with the index's writer.
    static func restarted(albums: Int, manifest: String? = nil) throws -> (root: String, store: CatalogStore, counter: LibraryIndexTests.CountingReader) {
        let root = try IncrementalChangeTests.library(albums: albums, photos: 2)
        if let manifest { try Data(manifest.utf8).write(to: URL(fileURLWithPath: root + "/gallery.json")) }
        let counter = LibraryIndexTests.CountingReader()
        let index = try LibraryIndexTests.openIndex(IncrementalChangeTests.indexPath(root))
        let first = CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index,
                                 indexer: LibraryIndexer(index: index, readers: 1, background: false, readFile: counter.reader), log: { _ in })
        first.refreshAndIndex(force: true)
        let store = CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index,
                                 indexer: LibraryIndexer(index: index, readers: 1, background: false, readFile: counter.reader), log: { _ in })
        return (root, store, counter)
    }

    @Test func aChangeBeforeTheFirstWalkListsOnlyItsFolder() throws {
        let (root, store, counter) = try Self.restarted(albums: 6)
        defer { IncrementalChangeTests.remove(root) }
        #expect(Self.listed(store) == 0 && !Self.marksWhole(store))

        let readBefore = counter.reads.load(ordering: .relaxed)
        try IncrementalChangeTests.copyPhoto(to: root + "/A03/new.jpg")
        let added = try #require(store.applyFolderChanges(["A03"]))
        #expect(added.read == 1 && added.albums == ["A03"])
        #expect(Self.listed(store) == 1, "patched: only A03 listed")
        #expect(counter.reads.load(ordering: .relaxed) - readBefore == 1)
        try FileManager.default.removeItem(atPath: root + "/A01/p0.jpg")
        let removed = try #require(store.applyFolderChanges(["A01"]))
        #expect(removed.removed == 1 && Self.listed(store) == 2)

        // The walk, when it comes, finds the same pages (same photos, same ids, same order).
        let patched = Self.pages(store.catalog)
        #expect(patched["A03"]?.contains { $0.hasPrefix("A03/new.jpg ") } == true)
        #expect(patched["A01"]?.count == 1)
        store.refresh(force: true)
        #expect(Self.pages(store.catalog) == patched)
        #expect(Self.marksWhole(store))
    }

    @Test func aNewFolderBeforeTheFirstWalkBuildsTheCatalogWhole() throws {
        let (root, store, _) = try Self.restarted(albums: 3)
        defer { IncrementalChangeTests.remove(root) }
        try FileManager.default.createDirectory(atPath: root + "/New", withIntermediateDirectories: false)
        try IncrementalChangeTests.copyPhoto(to: root + "/New/n.jpg")
        let added = try #require(store.applyFolderChanges([""]))
        #expect(added.read == 1 && added.albums == ["New"])
        #expect(store.catalog.albums.values.contains { $0.relativePath == "New" })
        let rebuilt = Self.pages(store.catalog)
        store.refresh(force: true)
        #expect(Self.pages(store.catalog) == rebuilt)
    }

    @Test func aPrivateAlbumPatchedBeforeTheFirstWalkStaysPrivate() throws {
        let (root, store, _) = try Self.restarted(albums: 3, manifest: #"{"albums": {"A01": {"private": true}}}"#)
        defer { IncrementalChangeTests.remove(root) }
        try IncrementalChangeTests.copyPhoto(to: root + "/A01/secret.jpg")
        _ = try #require(store.applyFolderChanges(["A01"]))
        #expect(Self.listed(store) == 1)
        #expect(store.catalog.items.values.contains { $0.relativePath == "A01/secret.jpg" })
        let publicView = store.publicCatalog
        #expect(!publicView.albums.values.contains { $0.relativePath == "A01" })
        #expect(!publicView.items.values.contains { $0.relativePath?.hasPrefix("A01/") == true })
    }

    @Test func aWalkThatGivesWayChangesNothing() throws {
        let (root, store, _) = try Self.restarted(albums: 3)
        defer { IncrementalChangeTests.remove(root) }
        try IncrementalChangeTests.copyPhoto(to: root + "/A02/new.jpg")
        let before = store.versioned.fingerprint
        #expect(store.scan(force: true, giveWay: { true }) == nil)
        #expect(store.versioned.fingerprint == before && !Self.marksWhole(store))
        #expect(Self.listed(store) == 0)
        #expect(!store.catalog.items.values.contains { $0.relativePath == "A02/new.jpg" })
        #expect(store.scan(force: true, giveWay: { false }) == true)
        #expect(store.catalog.items.values.contains { $0.relativePath == "A02/new.jpg" })
        #expect(Self.marksWhole(store))
    }

    /// The start reads each folder's rows from an index that holds them (no lookup in the
    /// table per photo); a file made before it gets it from the writer, once.
    @Test func folderListingsAreReadFromTheirOwnIndex() throws {
        let root = try IncrementalChangeTests.library(albums: 2, photos: 2)
        defer { IncrementalChangeTests.remove(root) }
        let index = try LibraryIndexTests.openIndex(IncrementalChangeTests.indexPath(root))
        // An EXPLAIN is not prepared again when the schema changes: each asks with new text.
        var asked = 0
        func plan() -> String {
            asked += 1
            return index.read { [asked] db throws(SQLiteError) -> String in
                var details: [String] = []
                try db.run("EXPLAIN QUERY PLAN SELECT name, size, mtime_s, mtime_ns, inode, sidecar FROM photos WHERE album = ? "
                           + "AND failure IS NULL -- \(asked)", [.text("A00")]) { details.append($0.text(3) ?? "") }
                return details.joined(separator: "; ")
            } ?? ""
        }
        #expect(index.coversFolderListings)
        #expect(plan().contains("COVERING INDEX photos_by_folder"))
        // As a file made before it.
        index.withWriter { db throws(SQLiteError) in
            try db.execute("DROP INDEX photos_by_folder; CREATE INDEX photos_by_album ON photos(album, name)")
        }
        #expect(!index.coversFolderListings)
        #expect(!plan().contains("COVERING"))
        #expect(index.coverFolderListings())
        #expect(index.coversFolderListings && !index.coverFolderListings())
        #expect(plan().contains("COVERING INDEX photos_by_folder"))
        let store = CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index,
                                 indexer: LibraryIndexer(index: index, readers: 1, background: false, readFile: LibraryIndexTests.CountingReader().reader), log: { _ in })
        store.refreshAndIndex(force: true)
        let restarted = CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index, log: { _ in })
        #expect(Self.pages(restarted.catalog) == Self.pages(store.catalog))
    }
}
