import FastCGI
import Foundation
import ImagePipeline
import Synchronization
import Testing
@testable import Gallery

/// The library index: built once, refreshed by stamp, rebuilt when damaged, and what pages
/// serve from after a restart.
@Suite struct LibraryIndexTests {
    /// Counts the files the indexer reads (each read hashes the whole file).
    final class CountingReader: Sendable {
        let reads = Atomic<Int>(0)
        var reader: LibraryIndexer.FileReader {
            { path throws(PipelineError) in
                self.reads.add(1, ordering: .relaxed)
                return try FileIndexing.read(path: path)
            }
        }
    }

    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    static func indexPath(_ library: TestLibrary) -> String {
        (library.root as NSString).deletingLastPathComponent + "/index/library.sqlite"
    }

    static func openIndex(_ path: String) throws -> LibraryIndex {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let opened = LibraryIndex.open(path: path, log: { _ in })
        return try #require(opened)
    }

    /// Waits (up to 10 s) until no index object holds the writer lock of `path`.
    static func waitForWriterLock(_ path: String) -> Bool {
        for _ in 0..<1000 {
            let fd = open(path + ".lock", O_RDWR | O_CLOEXEC)
            if fd >= 0 {
                defer { close(fd) }
                if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            }
            usleep(10_000)
        }
        return false
    }

    static func scan(_ library: TestLibrary) -> Catalog { CatalogScanner(root: library.root, siteTitle: "T").scan().catalog }

    @Test func refreshReadsOnlyChangedFilesAndDropsVanishedOnes() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let counter = CountingReader()
        let indexer = LibraryIndexer(index: try Self.openIndex(Self.indexPath(library)), readFile: counter.reader)

        let first = indexer.refresh(Self.scan(library))
        #expect(first.read == 7 && first.removed == 0 && first.failed == 0 && first.photos == 7)
        #expect(counter.reads.load(ordering: .relaxed) == 7)

        let unchanged = indexer.refresh(Self.scan(library))
        #expect(unchanged.read == 0 && unchanged.removed == 0 && !unchanged.changed)
        #expect(counter.reads.load(ordering: .relaxed) == 7, "an unchanged file must not be read again")

        // A rewritten file (new stamp) is read again; a deleted one and a deleted folder are dropped.
        try FileManager.default.removeItem(atPath: library.root + "/Trips/Flower.jpg")
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: library.root + "/Trips/Flower.jpg")
        try FileManager.default.removeItem(atPath: library.root + "/Trips/Square.png")
        try FileManager.default.removeItem(atPath: library.root + "/Trips/2024 Summer")
        let changed = indexer.refresh(Self.scan(library))
        #expect(changed.read == 1 && changed.photos == 4)
        #expect(counter.reads.load(ordering: .relaxed) == 8)

        let rows = indexer.index.photos(["Trips/Flower.jpg", "Trips/Square.png", "Trips/2024 Summer/Stream.jpg", "Trips/Turned.jpg"])
        #expect(rows.keys.sorted() == ["Trips/Flower.jpg", "Trips/Turned.jpg"])
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: library.root + "/Trips/Flower.jpg")))
        #expect(rows["Trips/Flower.jpg"]?.version == String(SHA256.hex(bytes).prefix(12)))
        #expect(rows["Trips/Flower.jpg"]?.facts?.width == 300)
        // EXIF orientation 6: the index keeps the displayed size.
        let turned = try #require(rows["Trips/Turned.jpg"]?.facts)
        #expect(turned.width < turned.height)
    }

    @Test func versionsMatchThePipelines() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        var pc = PipelineConfiguration(cacheDirectory: library.root + "/../cache", libraryRoot: library.root)
        pc.log = { _ in }
        let pipeline = ImagePipeline(configuration: pc)
        for item in Self.scan(library).items.values {
            guard let path = item.absolutePath else { continue }
            let indexed = try FileIndexing.read(path: path)
            #expect(indexed.version == (try pipeline.version(url: item.sourceURL)))
            #expect(indexed.facts == (try pipeline.facts(url: item.sourceURL)))
            #expect(indexed.stamp == item.stamp)
        }
    }

    @Test func damagedOrDeletedIndexCostsARebuild() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let path = Self.indexPath(library)
        do {
            let first = LibraryIndexer(index: try Self.openIndex(path), readFile: CountingReader().reader)
            #expect(first.refresh(Self.scan(library)).photos == 7)
        }

        // The indexer's reader threads may hold the index a moment longer; its connections
        // checkpoint when it goes, so wait for that (the writer lock is freed last).
        #expect(Self.waitForWriterLock(path))
        // Garbage over the whole file: the next writer to open it replaces it with an empty one.
        try Data(repeating: 0x5a, count: 8192).write(to: URL(fileURLWithPath: path))
        unlink(path + "-wal")
        unlink(path + "-shm")
        let lines = LogLines()
        let opened = LibraryIndex.open(path: path, log: { line in lines.add(line) })
        let reopened = try #require(opened)
        #expect(reopened.photoCount() == 0)
        #expect(lines.all.contains { $0.contains("replacing it with a new index") })
        let counter = CountingReader()
        #expect(LibraryIndexer(index: reopened, readFile: counter.reader).refresh(Self.scan(library)).photos == 7)
        #expect(counter.reads.load(ordering: .relaxed) == 7)

        // Deleted: a fresh one.
        LibraryIndex.removeFiles(path)
        let fresh = try Self.openIndex(path)
        #expect(fresh.photoCount() == 0)
        #expect(LibraryIndexer(index: fresh, readFile: CountingReader().reader).refresh(Self.scan(library)).photos == 7)
    }

    @Test func otherSchemaOrForeignFileIsRebuilt() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let path = Self.indexPath(library)
        #expect(LibraryIndexer(index: try Self.openIndex(path), readFile: CountingReader().reader).refresh(Self.scan(library)).photos == 7)
        do {
            let db = try SQLiteConnection(path: path, readOnly: false, create: false)
            try db.execute("PRAGMA user_version=\(LibraryIndex.schemaVersion + 1)")
        }
        // Only the writer replaces a file of another schema: the first index must have let go.
        #expect(Self.waitForWriterLock(path))
        #expect(try Self.openIndex(path).photoCount() == 0)

        LibraryIndex.removeFiles(path)
        do {
            let db = try SQLiteConnection(path: path, readOnly: false, create: true)
            try db.execute("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('someone else''s database')")
        }
        let reopened = try Self.openIndex(path)
        #expect(reopened.photoCount() == 0)
        #expect(LibraryIndexer(index: reopened, readFile: CountingReader().reader).refresh(Self.scan(library)).photos == 7)
    }

    /// A JPEG with an EXIF DateTime (IFD0 tag 0x0132), from a fixture.
    static func datedJPEG(_ fixture: String, date: String) throws -> Data {
        let jpeg = try Array(Data(contentsOf: URL(fileURLWithPath: Fixtures.jpeg(fixture))))
        var tiff: [UInt8] = [0x49, 0x49, 0x2a, 0, 8, 0, 0, 0, 1, 0, 0x32, 0x01, 2, 0, 20, 0, 0, 0, 26, 0, 0, 0, 0, 0, 0, 0]
        tiff += Array(date.utf8.prefix(19)) + [0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let app1: [UInt8] = [0xff, 0xe1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xff)] + payload
        return Data(jpeg.prefix(2) + app1 + jpeg.dropFirst(2))
    }

    static func makeApp(_ library: TestLibrary, indexPath: String?, sort: AlbumSort = .name, pageWait: Double = 60) throws -> GalleryApp {
        var pc = PipelineConfiguration(cacheDirectory: (library.root as NSString).deletingLastPathComponent + "/cache", libraryRoot: library.root)
        pc.log = { _ in }
        let repo = Fixtures.repoRoot.path
        return try GalleryApp(configuration: GalleryConfiguration(
            libraryRoot: library.root, templatesDirectory: repo + "/templates", publicDirectory: repo + "/public",
            pageLookupBudget: pageWait, indexPath: indexPath, defaultSort: sort),
            pipeline: ImagePipeline(configuration: pc), watchLibrary: false, log: { _ in })
    }

    @Test func albumsSortedByDateTakenWithUndatedLastByName() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let dir = library.root + "/Dated"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.datedJPEG("flower_420_q75.jpg", date: "2021:06:01 10:00:00").write(to: URL(fileURLWithPath: dir + "/a.jpg"))
        try Self.datedJPEG("stream_420_q80.jpg", date: "2019:01:05 08:30:00").write(to: URL(fileURLWithPath: dir + "/b.jpg"))
        try Self.datedJPEG("statue_420_q75.jpg", date: "2020:12:24 18:00:00").write(to: URL(fileURLWithPath: dir + "/c.jpg"))
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: dir + "/z10.jpg")
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: dir + "/z9.jpg")
        try Data(#"{"albums": {"Dated": {"sort": "date"}}}"#.utf8).write(to: URL(fileURLWithPath: library.root + "/gallery.json"))

        let app = try Self.makeApp(library, indexPath: Self.indexPath(library))
        app.refreshLibrary()
        let catalog = app.catalog
        let album = try #require(catalog.albums.values.first { $0.relativePath == "Dated" })
        #expect(album.itemIDs.map { catalog.items[$0]!.fileName } == ["b.jpg", "c.jpg", "a.jpg", "z9.jpg", "z10.jpg"])
        let (previous, next) = catalog.neighbours(of: album.itemIDs[1])
        #expect(previous?.fileName == "b.jpg" && next?.fileName == "a.jpg")
        // The viewer's feed follows the same order.
        let feed = String(decoding: app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/album/\(album.id)/photos"])).body,
                          as: UTF8.self)
        let ids = album.itemIDs.map { "\"id\":\"\($0)\"" }
        let positions = ids.compactMap { feed.range(of: $0)?.lowerBound }
        #expect(positions.count == 5 && positions == positions.sorted())
        // Other albums keep name order (no site-wide sort); `--sort date` with a manifest
        // "name" for the album gives name order there.
        let trips = try #require(catalog.albums.values.first { $0.relativePath == "Trips" })
        #expect(trips.itemIDs.map { catalog.items[$0]!.fileName }.first == "Flower.jpg")
        try Data(#"{"albums": {"Dated": {"sort": "name"}}}"#.utf8).write(to: URL(fileURLWithPath: library.root + "/gallery.json"))
        let byName = try Self.makeApp(library, indexPath: Self.indexPath(library), sort: .date).catalog
        let dated = try #require(byName.albums.values.first { $0.relativePath == "Dated" })
        #expect(dated.itemIDs.map { byName.items[$0]!.fileName } == ["a.jpg", "b.jpg", "c.jpg", "z9.jpg", "z10.jpg"])
    }

    @Test func restartServesPagesFromTheIndexWithoutHashing() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let path = Self.indexPath(library)
        try Self.makeApp(library, indexPath: path).refreshLibrary()
        // A restart: no time at all for version lookups, yet every image URL is versioned.
        let app = try Self.makeApp(library, indexPath: path, pageWait: 0)
        #expect(app.catalog.items.count == 7)
        let trips = try #require(app.catalog.albums.values.first { $0.relativePath == "Trips" })
        let html = String(decoding: app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/album/\(trips.id)"])).body,
                          as: UTF8.self)
        let images = html.components(separatedBy: "/img/").dropFirst()
        #expect(images.count >= 4)
        #expect(images.allSatisfy { $0.prefix(40).contains("?v=") })
        let turned = try #require(app.catalog.items.values.first { $0.fileName == "Turned.jpg" })
        let photo = String(decoding: app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/photo/\(turned.id)"])).body,
                           as: UTF8.self)
        #expect(photo.contains("?v=") && photo.contains("JPEG"))
        // Without the index the same restart knows no version: each would need its file hashed
        // (within the page's budget, or the image is linked without one and redirects). Asked
        // of the pipeline before any page runs lookups, not read off a page with a zero budget,
        // where lookup threads that hash seven small files fast enough made this a race.
        let plain = try Self.makeApp(library, indexPath: nil, pageWait: 0)
        let plainTrips = try #require(plain.catalog.albums.values.first { $0.relativePath == "Trips" })
        #expect(!plainTrips.itemIDs.isEmpty)
        #expect(plainTrips.itemIDs.allSatisfy { id in
            plain.catalog.items[id].map { plain.pipeline.knownVersion(url: $0.sourceURL) == nil } ?? false
        })
    }

    @Test func indexThatCannotBeWrittenServesFromScans() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        // A path under a regular file can never be created, as in a read-only cache folder.
        let app = try Self.makeApp(library, indexPath: "/dev/null/library.sqlite")
        #expect(app.index == nil)
        #expect(app.catalog.items.count == 7)
        let response = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/"]))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains("?v="))
    }
}
