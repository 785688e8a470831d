import FastCGI
import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Lens, exposure and GPS: kept by the index (schema 2, migrated from 1), and on the detail
/// page, where the position shows only when `gallery.json` says `"show_location": true`.
@Suite struct ExifPageTests {
    static let shot = Fixtures.testsDirectory.appendingPathComponent("Fixtures/exif/shot.jpg").path

    /// The test library plus `Shots/shot.jpg` (exiftool-tagged: iPhone, lens, 1/120 s, GPS).
    static func library(manifest: String? = nil) throws -> TestLibrary {
        let library = try TestLibrary.make()
        try FileManager.default.createDirectory(atPath: library.root + "/Shots", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: shot, toPath: library.root + "/Shots/shot.jpg")
        if let manifest { try Data(manifest.utf8).write(to: URL(fileURLWithPath: library.root + "/gallery.json")) }
        return library
    }

    static func detail(_ app: GalleryApp) throws -> String {
        let item = try #require(app.catalog.items.values.first { $0.fileName == "shot.jpg" })
        let response = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/photo/\(item.id)"]))
        #expect(response.status == 200)
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test func detailPageShowsTheShotLineAndNoPositionByDefault() throws {
        for indexed in [false, true] {
            let library = try Self.library()
            defer { library.remove() }
            let app = try LibraryIndexTests.makeApp(library, indexPath: indexed ? LibraryIndexTests.indexPath(library) : nil)
            app.refreshLibrary()
            let page = try Self.detail(app)
            #expect(page.contains("Apple iPhone 13 Pro · 26 mm f/1.5 · 1/120 s · ISO 64"), "indexed \(indexed)")
            #expect(page.contains("iPhone 13 Pro back triple camera 5.7mm f/1.5"))
            for secret in ["48.858", "2.294", "openstreetmap", "Location"] {
                #expect(!page.contains(secret), "the page leaks \(secret) (indexed \(indexed))")
            }
        }
    }

    @Test func showLocationTrueAddsThePositionWithAMapLink() throws {
        let library = try Self.library(manifest: #"{"show_location": true}"#)
        defer { library.remove() }
        let app = try LibraryIndexTests.makeApp(library, indexPath: LibraryIndexTests.indexPath(library))
        app.refreshLibrary()
        let page = try Self.detail(app)
        #expect(page.contains("48.85837° N, 2.29448° W"))
        #expect(page.contains("https://www.openstreetmap.org/?mlat=48.85837&amp;mlon=-2.29448"))
    }

    @Test func indexRoundTripKeepsLensExposureAndPosition() throws {
        let library = try Self.library()
        defer { library.remove() }
        let index = try LibraryIndexTests.openIndex(LibraryIndexTests.indexPath(library))
        let indexer = LibraryIndexer(index: index, readFile: LibraryIndexTests.CountingReader().reader)
        _ = indexer.refresh(LibraryIndexTests.scan(library))
        let row = try #require(index.photos(["Shots/shot.jpg"])["Shots/shot.jpg"])
        let facts = try #require(row.facts)
        #expect(facts == (try FileIndexing.read(path: library.root + "/Shots/shot.jpg").facts))
        #expect(facts.shot.lensModel == "iPhone 13 Pro back triple camera 5.7mm f/1.5" && facts.shot.lensMake == "Apple")
        #expect(facts.shot.exposureSeconds == 1.0 / 120 && facts.shot.fNumber == 1.5 && facts.shot.iso == 64)
        #expect(facts.shot.focalLength == 5.7 && facts.shot.focalLength35mm == 26)
        let location = try #require(facts.location)
        #expect(abs(location.latitude - 48.85837) < 1e-5 && abs(location.longitude + 2.294481) < 1e-5 && location.altitude == 35.5)
        // A photo without any of it stores NULLs, not zeros.
        let flower = try #require(index.photos(["Trips/Flower.jpg"])["Trips/Flower.jpg"]?.facts)
        #expect(flower.shot == ShotFacts() && flower.location == nil)
    }

    /// Schema 1 as the previous build created it.
    static let schema1 = """
        CREATE TABLE photos(path TEXT PRIMARY KEY NOT NULL, album TEXT NOT NULL, name TEXT NOT NULL, size INTEGER NOT NULL,
            mtime_s INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, version TEXT NOT NULL, width INTEGER,
            height INTEGER, pixels INTEGER, format TEXT, colour_space TEXT, date_taken TEXT, camera_make TEXT, camera_model TEXT,
            placeholder TEXT, failure TEXT) WITHOUT ROWID;
        CREATE INDEX photos_by_album ON photos(album, name);
        CREATE TABLE albums(path TEXT PRIMARY KEY NOT NULL, photos INTEGER NOT NULL, cover TEXT, first_taken TEXT, last_taken TEXT) WITHOUT ROWID;
        PRAGMA application_id=\(LibraryIndex.applicationID); PRAGMA user_version=1;
        """

    @Test func schema1FileIsMigratedServesAtOnceAndIsRefreshedInTheBackground() throws {
        let library = try Self.library()
        defer { library.remove() }
        let path = LibraryIndexTests.indexPath(library)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let stamp = try #require(FileStamp.of(path: library.root + "/Shots/shot.jpg"))
        let version = try FileIndexing.read(path: library.root + "/Shots/shot.jpg").version
        do {
            let db = try SQLiteConnection(path: path, readOnly: false, create: true)
            try db.execute(Self.schema1)
            try db.run("""
                INSERT INTO photos VALUES('Shots/shot.jpg', 'Shots', 'shot.jpg', ?, ?, ?, ?, ?, 16, 12, 192, 'JPEG', NULL,
                                          '2023:05:06 07:08:09', 'Apple', 'iPhone 13 Pro', '#c86432', NULL)
                """, [.int(stamp.size), .int(stamp.mtimeSeconds), .int(stamp.mtimeNanoseconds), .int(Int(Int64(bitPattern: stamp.inode))),
                      .text(version)])
        }
        let lines = LibraryIndexTests.LogLines()
        let opened = LibraryIndex.open(path: path, log: { line in lines.add(line) })
        let index = try #require(opened)
        #expect(!lines.all.contains { $0.contains("building a new index") }, "\(lines.all)")
        // The old row serves as it is (same version, size, camera; no lens yet).
        let old = try #require(index.photos(["Shots/shot.jpg"])["Shots/shot.jpg"])
        #expect(old.version == version && old.facts?.cameraModel == "iPhone 13 Pro" && old.facts?.shot == ShotFacts())
        #expect(old.placeholder == "#c86432")
        // The next pass reads it again for the new fields and keeps its placeholder.
        let counter = LibraryIndexTests.CountingReader()
        let indexer = LibraryIndexer(index: index, readFile: counter.reader)
        let summary = indexer.refresh(LibraryIndexTests.scan(library))
        #expect(summary.read == 8)
        let fresh = try #require(index.photos(["Shots/shot.jpg"])["Shots/shot.jpg"])
        #expect(fresh.facts?.shot.iso == 64 && fresh.facts?.location != nil && fresh.placeholder == "#c86432")
        #expect(indexer.refresh(LibraryIndexTests.scan(library)).read == 0)
    }
}

/// The wording of the shot line.
@Suite struct ShotSummaryTests {
    @Test func wording() {
        #expect(ShotSummary.exposure(1.0 / 120) == "1/120 s")
        #expect(ShotSummary.exposure(0.004) == "1/250 s")
        #expect(ShotSummary.exposure(0.5) == "0.5 s")
        #expect(ShotSummary.exposure(30) == "30 s")
        #expect(ShotSummary.exposure(0) == nil && ShotSummary.exposure(.infinity) == nil)
        #expect(ShotSummary.decimal(8) == "8" && ShotSummary.decimal(5.66) == "5.7" && ShotSummary.decimal(1.4) == "1.4")
        #expect(ShotSummary.line(camera: nil, shot: ShotFacts()) == nil)
        #expect(ShotSummary.line(camera: "X100V", shot: ShotFacts(fNumber: 2, focalLength: 23)) == "X100V · 23 mm f/2")
        #expect(ShotSummary.line(camera: nil, shot: ShotFacts(iso: 3200)) == "ISO 3200")
        #expect(ShotSummary.coordinates(PhotoLocation(latitude: -33.8568, longitude: 151.2153)) == "33.85680° S, 151.21530° E")
    }
}
