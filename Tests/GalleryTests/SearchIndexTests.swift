import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Search, "on this day" and map positions over index rows written through the index API:
/// the FTS table follows every put, update and delete, and the queries find what they should.
@Suite struct SearchIndexTests {
    static func stamp(_ n: Int) -> FileStamp { FileStamp(size: n, mtimeSeconds: n, mtimeNanoseconds: 0, inode: UInt64(n)) }

    static func row(_ path: String, date: String?, text: PhotoText = PhotoText(), camera: String? = nil, format: String = "JPEG",
                    at position: PhotoLocation? = nil, n: Int = 1) -> IndexedPhoto {
        let facts = ImageFacts(width: 10, height: 10, pixelCount: 100, format: format, dateTaken: date, cameraMake: camera,
                               cameraModel: camera.map { _ in "EOS R5" }, colourSpace: nil, location: position, text: text)
        return IndexedPhoto(relativePath: path, stamp: stamp(n), version: "abcdef012345", facts: facts)
    }

    static func makeIndex() throws -> (LibraryIndex, String) {
        let dir = NSTemporaryDirectory() + "search-index-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let opened = LibraryIndex.open(path: dir + "/index.sqlite", log: { _ in })
        let index = try #require(opened)
        index.write([
            .put(row("Trips/beach.jpg", date: "2024:07:15 10:00:00",
                     text: PhotoText(title: "Sunset at the beach", caption: "Café on the shore", keywords: ["summer day", "sea"], rating: 5,
                                     people: ["Ada Lovelace"], places: ["Zürich", "Switzerland"]), camera: "Canon")),
            .put(row("Trips/rain.jpg", date: "2023:07:15 09:00:00", text: PhotoText(keywords: ["rain", "sea"], rating: 2), n: 2)),
            .put(row("Family/kids.jpg", date: "2019:07:15 08:00:00", text: PhotoText(keywords: ["secretword"]), n: 3)),
            .put(row("Family/clip.mov", date: "2021:01:02 08:00:00", n: 4)),
            .put(row("Misc/anim.gif", date: nil, format: "GIF, 12 frames", n: 5)),
        ])
        return (index, dir)
    }

    static func paths(_ index: LibraryIndex, _ text: String, albums: [String]? = nil) -> [String] {
        (index.search(SearchQuery(parsing: text), albums: albums) ?? []).map(\.relativePath)
    }

    @Test func wordsFieldsDatesAndOrder() throws {
        let (index, dir) = try Self.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(Self.paths(index, "sea") == ["Trips/beach.jpg", "Trips/rain.jpg"], "newest first")
        #expect(Self.paths(index, "zurich cafe") == ["Trips/beach.jpg"], "accents fold")
        #expect(Self.paths(index, #"keyword:"summer day""#) == ["Trips/beach.jpg"])
        #expect(Self.paths(index, "keyword:sunset").isEmpty, "a title word is no keyword")
        #expect(Self.paths(index, "person:lovelace place:switzerland camera:canon") == ["Trips/beach.jpg"])
        #expect(Self.paths(index, "sea -rain") == ["Trips/beach.jpg"])
        #expect(Self.paths(index, "-sea") == ["Family/clip.mov", "Family/kids.jpg", "Misc/anim.gif"], "exclusions alone, undated last")
        #expect(Self.paths(index, "sun") == ["Trips/beach.jpg"], "the last word is a prefix")
        #expect(Self.paths(index, "sun ").isEmpty, "a finished word is not")
        #expect(Self.paths(index, "album:family") == ["Family/clip.mov", "Family/kids.jpg"])
        #expect(Self.paths(index, "file:kids") == ["Family/kids.jpg"])
        #expect(Self.paths(index, "rating>=3") == ["Trips/beach.jpg"])
        #expect(Self.paths(index, "date:2023..2024") == ["Trips/beach.jpg", "Trips/rain.jpg"])
        #expect(Self.paths(index, "date:2024-07") == ["Trips/beach.jpg"])
        #expect(Self.paths(index, "-date:2019..2023 sea") == ["Trips/beach.jpg"])
        #expect(Self.paths(index, "sea", albums: ["Family"]).isEmpty, "limited to the view's folders")
        #expect(Self.paths(index, "secretword", albums: ["Family", "Family/Kids"]) == ["Family/kids.jpg"])
        // Hostile text runs as text.
        for text in [#"NEAR(sea rain)"#, "* ^ :", #"sea" OR "rain"#, "keyword:\"", "{keyword}:sea", "a AND OR NOT", "\u{0}", "q=NEAR(: b)\"unbalanced\u{0}\u{0}x", "a\u{1}\u{0}\"b"] {
            #expect(index.search(SearchQuery(parsing: text)) != nil, "\(text)")
        }
    }

    @Test func ftsFollowsUpdatesAndDeletes() throws {
        let (index, dir) = try Self.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        index.write([.put(Self.row("Trips/rain.jpg", date: "2023:07:15 09:00:00", text: PhotoText(keywords: ["storm"]), n: 9))])
        #expect(Self.paths(index, "rain").isEmpty == false, "the file name still matches")
        #expect(Self.paths(index, "keyword:rain").isEmpty && Self.paths(index, "storm") == ["Trips/rain.jpg"])
        index.write([.remove(relativePath: "Trips/beach.jpg"), .removeFolder("Family")])
        #expect(Self.paths(index, "sea").isEmpty && Self.paths(index, "secretword").isEmpty)
        // Placeholder writes do not touch the FTS row.
        index.notePlaceholder(relativePath: "Trips/rain.jpg", version: "abcdef012345", placeholder: "#102030")
        index.flushPlaceholders()
        #expect(Self.paths(index, "storm") == ["Trips/rain.jpg"])
        let counts = index.read { db throws(SQLiteError) -> [Int] in
            [try db.scalar("SELECT count(*) FROM photos") ?? -1, try db.scalar("SELECT count(*) FROM photos_fts") ?? -1,
             try db.scalar("SELECT count(*) FROM search_rows") ?? -1]
        }
        #expect(counts == [2, 2, 2])
    }

    @Test func aFileWithoutSearchTablesGetsThemFilled() throws {
        let (index, dir) = try Self.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = index.path
        let db = try SQLiteConnection(path: path, readOnly: false, create: false)
        try db.execute("""
            DROP TRIGGER photos_search_insert; DROP TRIGGER photos_search_update; DROP TRIGGER photos_search_delete;
            DROP TABLE photos_fts; DROP TABLE search_rows; DROP INDEX photos_by_day;
            """)
        #expect(index.search(SearchQuery(parsing: "sea")) == nil)
        let opening = LibraryIndex.open(path: path, log: { _ in })
        let reopened = try #require(opening)
        #expect(Self.paths(reopened, "sea") == ["Trips/beach.jpg", "Trips/rain.jpg"])
        #expect(Self.paths(reopened, "secretword") == ["Family/kids.jpg"])
    }

    @Test func onThisDayAndPositions() throws {
        let (index, dir) = try Self.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let day = try #require(index.takenOnThisDay(CalendarDay(year: 2024, month: 7, day: 15)))
        #expect(day.map(\.relativePath) == ["Trips/rain.jpg", "Family/kids.jpg"] && day.map(\.year) == [2023, 2019])
        #expect(index.takenOnThisDay(CalendarDay(year: 2025, month: 7, day: 15))?.count == 3)
        #expect(index.takenOnThisDay(CalendarDay(year: 2025, month: 7, day: 16))?.isEmpty == true)

        var rows: [LibraryIndex.Change] = []
        for i in 0..<50 {
            rows.append(.put(Self.row("Geo/p\(i).jpg", date: nil, at: PhotoLocation(latitude: 48 + Double(i % 5) * 0.001,
                                                                                   longitude: 2 + Double(i / 5) * 0.001), n: 100 + i)))
        }
        rows.append(.put(Self.row("Geo/far.jpg", date: nil, at: PhotoLocation(latitude: -33.9, longitude: 151.2), n: 200)))
        rows.append(.put(Self.row("Private/home.jpg", date: nil, at: PhotoLocation(latitude: 48, longitude: 2), n: 201)))
        index.write(rows)
        let world = try #require(MapBox(parsing: "-180,-90,180,90"))
        let few = try #require(index.positions(in: world, folders: ["Geo"], limit: 100, zoom: 6))
        #expect(few.points.count == 51 && few.clusters.isEmpty)
        let many = try #require(index.positions(in: world, folders: ["Geo"], limit: 10, zoom: 6))
        #expect(many.clusters.map(\.count) == [50] && many.points.map(\.relativePath) == ["Geo/far.jpg"])
        let none = try #require(index.positions(in: world, folders: ["Trips"], limit: 10, zoom: 6))
        #expect(none.points.isEmpty && none.clusters.isEmpty)
        let box = try #require(MapBox(parsing: "150,-40,152,-30"))
        #expect(index.positions(in: box, folders: ["Geo", "Private"], limit: 10, zoom: 6)?.points.map(\.relativePath) == ["Geo/far.jpg"])
        #expect(MapBox(parsing: "1,2,3") == nil && MapBox(parsing: "5,0,1,1") == nil && MapBox(parsing: "nan,0,1,1") == nil)
        #expect(MapBox(parsing: "-400,-90,400,90") == MapBox(parsing: "-180,-90,180,90"))
    }
}
