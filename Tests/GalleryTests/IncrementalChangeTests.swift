import Foundation
import ImagePipeline
import Synchronization
import Testing
@testable import Gallery

/// One change costs its folder: the watching process lists only the folders inotify named
/// and reads only their changed files; other processes on the same index follow its
/// generation without scanning, and one of them takes over when the writer is gone. Each
/// step is driven by the test (no watcher thread, no sleeps).
@Suite struct IncrementalChangeTests {
    /// `albums` folders of `photos` copies (own inodes, so each is read) of one small JPEG.
    static func library(albums: Int, photos: Int) throws -> String {
        let root = NSTemporaryDirectory() + "gallery-incr-\(UUID().uuidString.prefix(8))/photos"
        let fm = FileManager.default
        for a in 0..<albums {
            let folder = root + String(format: "/A%02d", a)
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for p in 0..<photos { try fm.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: folder + "/p\(p).jpg") }
        }
        return root
    }

    static func remove(_ root: String) { try? FileManager.default.removeItem(atPath: (root as NSString).deletingLastPathComponent) }

    static func indexPath(_ root: String) -> String { (root as NSString).deletingLastPathComponent + "/index/library.sqlite" }

    /// A store that indexes (the writer) with a counting reader.
    static func writer(_ root: String, counter: LibraryIndexTests.CountingReader) throws -> (CatalogStore, LibraryIndex) {
        let index = try LibraryIndexTests.openIndex(indexPath(root))
        let indexer = LibraryIndexer(index: index, readers: 1, background: false, readFile: counter.reader)
        let store = CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index, indexer: indexer, log: { _ in })
        return (store, index)
    }

    static func copyPhoto(to path: String) throws {
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("statue_420_q75.jpg"), toPath: path)
    }

    @Test func aChangeInOneFolderListsAndReadsOnlyThatFolder() throws {
        let root = try Self.library(albums: 30, photos: 2)
        defer { Self.remove(root) }
        let counter = LibraryIndexTests.CountingReader()
        let (store, index) = try Self.writer(root, counter: counter)
        let first = try #require(store.refreshAndIndex(force: true))
        #expect(first.read == 60 && first.photos == 60)
        #expect(store.foldersListed.load(ordering: .relaxed) == 31, "the full scan lists the root and 30 albums")
        let generation = try #require(index.generation())

        // A photo copied into one album: that folder is listed, that file read, that album stamped.
        let listedBefore = store.foldersListed.load(ordering: .relaxed), readBefore = counter.reads.load(ordering: .relaxed)
        try Self.copyPhoto(to: root + "/A07/new.jpg")
        let added = try #require(store.applyFolderChanges(["A07"]))
        #expect(added.read == 1 && added.photos == 61 && added.albums == ["A07"])
        #expect(store.foldersListed.load(ordering: .relaxed) - listedBefore == 1)
        #expect(counter.reads.load(ordering: .relaxed) - readBefore == 1)
        #expect(store.catalog.items.values.contains { $0.relativePath == "A07/new.jpg" })
        #expect(index.albumsChanged(since: generation)?.map(\.path) == ["A07"])
        #expect(index.generation() == generation + 1)

        // Photos that stay keep their ids; a notice that changed nothing costs one listing.
        let ids = store.catalog.items.values.filter { $0.relativePath?.hasPrefix("A07/") == true }.map(\.id).sorted()
        #expect(store.applyFolderChanges(["A07"]) == nil)
        try FileManager.default.removeItem(atPath: root + "/A07/p0.jpg")
        let removed = try #require(store.applyFolderChanges(["A07"]))
        #expect(removed.read == 0 && removed.removed == 1 && removed.photos == 60)
        let after = store.catalog.items.values.filter { $0.relativePath?.hasPrefix("A07/") == true }.map(\.id).sorted()
        #expect(Set(after).isSubset(of: Set(ids)) && after.count == 2)

        // A new subfolder with a photo: its parent and it are listed, nothing else.
        let listedBeforeNew = store.foldersListed.load(ordering: .relaxed)
        try FileManager.default.createDirectory(atPath: root + "/A03/Sub", withIntermediateDirectories: false)
        try Self.copyPhoto(to: root + "/A03/Sub/s.jpg")
        let nested = try #require(store.applyFolderChanges(["A03"]))
        #expect(nested.read == 1 && nested.albums == ["A03/Sub"])
        #expect(store.foldersListed.load(ordering: .relaxed) - listedBeforeNew == 2)
        #expect(store.catalog.albums.values.contains { $0.relativePath == "A03/Sub" })

        // A whole album deleted: its rows go, and its tombstone row carries the generation.
        let beforeDelete = try #require(index.generation())
        try FileManager.default.removeItem(atPath: root + "/A05")
        let gone = try #require(store.applyFolderChanges([""]))
        #expect(gone.removed == 1 && gone.photos == 59)
        #expect(index.albumsChanged(since: beforeDelete)?.first { $0.path == "A05" }?.photos == 0)
        // The snapshot equals what a full scan makes.
        #expect(!store.refresh(), "a full scan finds nothing the per-folder path missed")
    }

    @Test func aSecondProcessFollowsTheGenerationAndTakesOverWhenTheWriterIsGone() throws {
        let root = try Self.library(albums: 10, photos: 2)
        defer { Self.remove(root) }
        let counter = LibraryIndexTests.CountingReader()
        let followerStore: CatalogStore
        do {
            let (writer, writerIndex) = try Self.writer(root, counter: counter)
            writer.refreshAndIndex(force: true)
            #expect(writerIndex.isWriter)
            // The second process: the same file opened again (flock conflicts between opens).
            let index = try LibraryIndexTests.openIndex(Self.indexPath(root))
            #expect(!index.isWriter && !index.claimWriter())
            let makeIndexer: @Sendable (LibraryIndex) -> LibraryIndexer = { index in
                LibraryIndexer(index: index, readers: 1, background: false, readFile: counter.reader)
            }
            followerStore = CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index, makeIndexer: makeIndexer,
                                         log: { _ in })
            #expect(followerStore.isFollower && followerStore.catalog.fileItemCount == 20)
            #expect(!followerStore.followIndex(), "nothing new")

            try Self.copyPhoto(to: root + "/A04/new.jpg")
            writer.applyFolderChanges(["A04"])
            let readsBefore = counter.reads.load(ordering: .relaxed)
            #expect(followerStore.followIndex())
            #expect(followerStore.catalog.items.values.contains { $0.relativePath == "A04/new.jpg" })
            #expect(followerStore.foldersListed.load(ordering: .relaxed) == 0, "the follower never lists a folder")
            #expect(counter.reads.load(ordering: .relaxed) == readsBefore)
            #expect(!followerStore.tryTakeOver(), "the writer is alive")
            // gallery.json is not in the index: a changed one is read (titles, order, privacy).
            try Data(#"{"title": "Renamed site"}"#.utf8).write(to: URL(fileURLWithPath: root + "/gallery.json"))
            #expect(followerStore.followIndex())
            #expect(followerStore.catalog.siteTitle == "Renamed site")
            #expect(!followerStore.followIndex())
        }
        // The writer's index is closed (its process exited): the lock is free.
        #expect(LibraryIndexTests.waitForWriterLock(Self.indexPath(root)))
        #expect(followerStore.tryTakeOver())
        #expect(!followerStore.isFollower && followerStore.indexer != nil)
        try Self.copyPhoto(to: root + "/A02/later.jpg")
        let summary = try #require(followerStore.refreshAndIndex(force: true))
        #expect(summary.read == 1 && summary.photos == 22)
    }

    @Test func anAlbumEmptiedAtOnceIsHeldBackOnThePerFolderPath() throws {
        let root = try Self.library(albums: 3, photos: 1)
        defer { Self.remove(root) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/A01/Big", withIntermediateDirectories: false)
        for i in 0..<60 { try fm.linkItem(atPath: root + "/A01/p0.jpg", toPath: root + "/A01/Big/b\(i).jpg") }
        let index = try LibraryIndexTests.openIndex(Self.indexPath(root))
        let store = CatalogStore(scanner: CatalogScanner(root: root, siteTitle: "T"), index: index, log: { _ in })
        store.refresh(force: true)
        let before = store.catalog.fileItemCount
        #expect(before == 63)
        let aside = (root as NSString).deletingLastPathComponent + "/aside"
        try fm.moveItem(atPath: root + "/A01/Big", toPath: aside)
        try fm.createDirectory(atPath: root + "/A01/Big", withIntermediateDirectories: false)
        #expect(store.applyFolderChanges(["A01/Big"]) == nil)
        #expect(store.catalog.fileItemCount == before)
        #expect(store.heldBack?.contains("album A01/Big holds no photos now") == true)
        // A full scan judges it the same way; a change elsewhere waits with it (one snapshot).
        #expect(!store.refresh())
        try Self.copyPhoto(to: root + "/A02/new.jpg")
        #expect(store.applyFolderChanges(["A02"]) == nil)
        #expect(store.catalog.fileItemCount == before)
        // Back: applied, nothing lost, and the change elsewhere with it.
        try fm.removeItem(atPath: root + "/A01/Big")
        try fm.moveItem(atPath: aside, toPath: root + "/A01/Big")
        store.applyFolderChanges(["A01/Big"])
        #expect(store.heldBack == nil && store.catalog.fileItemCount == before + 1)
    }

    /// The watching process keeps no listing of every folder, only a fingerprint and the
    /// subfolders of each (`FolderMark`): a rewritten file is found by listing its folder
    /// against that, and a rebuild after a new folder tells the other folders from the
    /// snapshot's rows (companions and sidecars included) without listing them.
    @Test func aChangeWithoutKeptListingsFindsChangedFilesAndTellsOtherFoldersFromTheRows() throws {
        let root = try Self.library(albums: 4, photos: 2)
        defer { Self.remove(root) }
        let fm = FileManager.default
        // A raw shot beside a JPEG (its companion) and a sidecar.
        try fm.copyItem(atPath: root + "/A01/p0.jpg", toPath: root + "/A01/p0.dng")
        try Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8).write(to: URL(fileURLWithPath: root + "/A01/p1.jpg.xmp"))
        let counter = LibraryIndexTests.CountingReader()
        let (store, _) = try Self.writer(root, counter: counter)
        store.refreshAndIndex(force: true)
        let marks = store.folderMarks.withLock { $0 }
        #expect(Set(marks.keys) == ["", "A00", "A01", "A02", "A03"])
        #expect(marks[""]?.subfolders.map(\.name).sorted() == ["A00", "A01", "A02", "A03"])
        func item(_ rel: String) -> CatalogItem? { store.catalog.items.values.first { $0.relativePath == rel } }
        #expect(item("A01/p0.jpg")?.companion(.raw)?.name == "p0.dng")
        #expect(item("A01/p1.jpg")?.sidecar?.name == "p1.jpg.xmp")

        // A file rewritten in place (new size and mtime): found, read again, same id.
        let id = try #require(item("A02/p1.jpg")?.id)
        let readBefore = counter.reads.load(ordering: .relaxed), listedBefore = store.foldersListed.load(ordering: .relaxed)
        try fm.removeItem(atPath: root + "/A02/p1.jpg")
        try Self.copyPhoto(to: root + "/A02/p1.jpg")
        let changed = try #require(store.applyFolderChanges(["A02"]))
        #expect(changed.read == 1 && changed.albums == ["A02"])
        #expect(counter.reads.load(ordering: .relaxed) - readBefore == 1)
        #expect(store.foldersListed.load(ordering: .relaxed) - listedBefore == 1)
        #expect(item("A02/p1.jpg")?.id == id && item("A02/p1.jpg")?.stamp?.size == Self.fileSize(root + "/A02/p1.jpg"))

        // A new top-level folder: the root and it are listed; A00-A03 come from the rows.
        let listedBeforeNew = store.foldersListed.load(ordering: .relaxed)
        try fm.createDirectory(atPath: root + "/New", withIntermediateDirectories: false)
        try Self.copyPhoto(to: root + "/New/n.jpg")
        let added = try #require(store.applyFolderChanges([""]))
        #expect(added.read == 1 && added.albums == ["New"])
        #expect(store.foldersListed.load(ordering: .relaxed) - listedBeforeNew == 2)
        #expect(item("A01/p0.jpg")?.companion(.raw)?.name == "p0.dng")
        #expect(item("A01/p1.jpg")?.sidecar?.name == "p1.jpg.xmp")
        #expect(item("A02/p1.jpg")?.id == id)
        #expect(store.folderMarks.withLock { $0["New"] } != nil)
        // What the rows told equals what the disk says.
        #expect(!store.refresh(), "a full scan finds nothing the per-folder path missed")
    }

    /// At start the catalog is built from the index folder by folder (`IndexedFolders`), with
    /// no listing of the whole library: the same albums, items and fingerprint as from it.
    @Test func theStartCatalogReadFolderByFolderEqualsTheWholeListings() throws {
        let root = try Self.library(albums: 3, photos: 2)
        defer { Self.remove(root) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/A01/Deep/Deeper", withIntermediateDirectories: true)
        try Self.copyPhoto(to: root + "/A01/Deep/Deeper/d.jpg")
        try Self.copyPhoto(to: root + "/top.jpg")
        try Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8).write(to: URL(fileURLWithPath: root + "/A02/p0.xmp"))
        let counter = LibraryIndexTests.CountingReader()
        let (writer, index) = try Self.writer(root, counter: counter)
        writer.refreshAndIndex(force: true)
        let scanner = CatalogScanner(root: root, siteTitle: "T")
        let whole = scanner.build(from: try #require(index.listing()))
        let byFolder = try #require(index.readFolders { scanner.build(from: &$0) })
        #expect(byFolder.fingerprint == whole.fingerprint)
        #expect(byFolder.catalog.albums == whole.catalog.albums)
        let items = { (c: Catalog) in c.items.values.sorted { $0.id < $1.id } }
        #expect(items(byFolder.catalog) == items(whole.catalog) && byFolder.catalog.items.count == 8)
        #expect(byFolder.catalog.items.values.contains { $0.relativePath == "A01/Deep/Deeper/d.jpg" })
        #expect(byFolder.catalog.items.values.first { $0.relativePath == "A02/p0.jpg" }?.sidecar != nil)
        // A store started on that index serves the same.
        let store = CatalogStore(scanner: scanner, index: index, log: { _ in })
        #expect(store.catalog.albums == whole.catalog.albums && store.foldersListed.load(ordering: .relaxed) == 0)
    }

    static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    /// Photo ids come from the relative path (see docs/library-index.md, "Photo ids"): a
    /// renamed folder's photos get new ids, and the old links stop working.
    @Test func aRenamedFolderGivesItsPhotosNewIds() throws {
        let root = try Self.library(albums: 2, photos: 2)
        defer { Self.remove(root) }
        let counter = LibraryIndexTests.CountingReader()
        let (store, _) = try Self.writer(root, counter: counter)
        store.refreshAndIndex(force: true)
        let old = Set(store.catalog.items.values.filter { $0.relativePath?.hasPrefix("A01/") == true }.map(\.id))
        try FileManager.default.moveItem(atPath: root + "/A01", toPath: root + "/Renamed")
        let summary = try #require(store.applyFolderChanges([""]))
        #expect(summary.albums == ["A01", "Renamed"])
        let renamed = Set(store.catalog.items.values.filter { $0.relativePath?.hasPrefix("Renamed/") == true }.map(\.id))
        #expect(renamed.count == 2 && renamed.isDisjoint(with: old))
    }

    @Test func watcherNamesTheChangedFolder() throws {
        let root = try Self.library(albums: 2, photos: 1)
        defer { Self.remove(root) }
        let watcher = try #require(DirectoryWatcher())
        #expect(watcher.watch(["", "A00", "A01"], root: root) == ["", "A00", "A01"])
        try Self.copyPhoto(to: root + "/A01/new.jpg")
        #expect(watcher.waitForChange(timeout: 5, settler: ChangeSettler(settle: 0.01, maxDelay: 0.1)))
        #expect(watcher.takeChanges() == .folders(["A01"]))
        #expect(watcher.takeChanges().isEmpty)
        try FileManager.default.createDirectory(atPath: root + "/New", withIntermediateDirectories: false)
        #expect(watcher.waitForChange(timeout: 5, settler: ChangeSettler(settle: 0.01, maxDelay: 0.1)))
        #expect(watcher.takeChanges() == .folders([""]))
        #expect(watcher.watch(["", "A00", "A01", "New"], root: root) == ["New"])
    }

    @Test func aSchema3FileWithoutGenerationsGetsThemInPlace() throws {
        let root = try Self.library(albums: 1, photos: 1)
        defer { Self.remove(root) }
        let path = Self.indexPath(root)
        do {
            let index = try LibraryIndexTests.openIndex(path)
            #expect(index.generation() == 0)
        }
        #expect(LibraryIndexTests.waitForWriterLock(path))
        do {
            let db = try SQLiteConnection(path: path, readOnly: false, create: false)
            try db.execute("DROP TABLE meta; DROP INDEX albums_by_generation; ALTER TABLE albums DROP COLUMN generation")
            #expect(try !LibraryIndex.hasGenerations(db))
        }
        let index = try LibraryIndexTests.openIndex(path)
        #expect(index.generation() == 0)
        #expect(index.updateAlbums(["A00"]) == 1)
        #expect(index.albumsChanged(since: 0)?.map(\.path) == ["A00"])
    }
}
