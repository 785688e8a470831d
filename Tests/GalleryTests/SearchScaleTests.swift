import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// The paths that keep search and the map fast at a million photos: ids in date order walked
/// with LIMIT, counts that stop at a limit, and map cells kept in step by triggers.
@Suite struct SearchScaleTests {
    static func row(_ path: String, date: String?, keywords: [String] = ["sea"], at position: PhotoLocation? = nil, n: Int) -> IndexedPhoto {
        SearchIndexTests.row(path, date: date, text: PhotoText(keywords: keywords), at: position, n: n)
    }

    /// Every map cell equals what the photos say it should be (the triggers' sums checked
    /// against a GROUP BY over `photos`).
    static func cellsMatchPhotos(_ index: LibraryIndex) -> Bool {
        let expected = "SELECT zoom, album, cx, cy, count(*) AS n, round(sum(lat), 6) AS lat, round(sum(lon), 6) AS lon "
            + "FROM (SELECT \(LibraryIndex.cellColumns("p")) FROM photos p, \(LibraryIndex.zooms) WHERE \(LibraryIndex.placed("p"))) "
            + "GROUP BY zoom, album, cx, cy"
        let kept = "SELECT zoom, album, cx, cy, n, round(lat, 6), round(lon, 6) FROM map_cells"
        let differences = index.read { db throws(SQLiteError) -> Int in
            let missing = try db.scalar("SELECT count(*) FROM (\(expected) EXCEPT \(kept))") ?? -1
            let extra = try db.scalar("SELECT count(*) FROM (\(kept) EXCEPT \(expected))") ?? -1
            return missing + extra
        }
        return differences == 0
    }

    @Test func idsSortLikeDates() {
        let texts = ["1999:12:31 23:59:59", "2000", "2000:01", "2000:01:01 00:00:01", "2024:07", "2024:07:15 10:00:00", "2024:13", "2025"]
        let ids = texts.map(LibraryIndex.dateRowID)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)
        #expect(LibraryIndex.dateRowID("0000:00:00 00:00:00") == LibraryIndex.firstDatedID, "zero dates clamp to the first dated id")
        #expect(LibraryIndex.dateRowID("9998") > 0, "a far year clamps, never overflows")
    }

    @Test func pagesWalkTheDateOrderAndCountsStop() throws {
        let (index, dir) = try SearchIndexTests.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rows: [LibraryIndex.Change] = []
        // 300 photos: 100 seconds apart, in pairs taken in the same second, a few undated or zero-dated.
        for i in 0..<300 {
            let date: String? = i % 50 == 7 ? nil : i % 50 == 8 ? "0000:00:00 00:00:00"
                : String(format: "2010:05:%02d %02d:%02d:%02d", 1 + i / 150, (i / 2) / 36 % 24, (i / 2) % 36, 0)
            rows.append(.put(Self.row(String(format: "Many/p%03d.jpg", i), date: date, keywords: ["crowd"], n: 1000 + i)))
        }
        index.write(rows)
        let query = SearchQuery(parsing: "crowd")
        let all = try #require(index.search(query)).map(\.relativePath)
        #expect(all.count == 300 && Set(all).count == 300)
        var pages: [String] = []
        for page in 0..<6 {
            let found = try #require(index.search(query, offset: page * 60, limit: 60, countLimit: 1000))
            #expect(found.total == 300 && !found.more)
            pages += found.hits.map(\.relativePath)
        }
        #expect(pages == all, "pages are slices of one order")
        // Newest first by date text, the undated (and zero-dated) last.
        let dates = index.photos(all).mapValues { $0.facts?.dateTaken }
        let dated = all.compactMap { dates[$0] ?? nil }.filter { !$0.hasPrefix("0000") }
        #expect(dated == dated.sorted(by: >) && dated.count == 288)
        #expect(all.suffix(12).allSatisfy { (dates[$0] ?? nil).map { $0.hasPrefix("0000") } ?? true })
        let capped = try #require(index.search(query, offset: 0, limit: 60, countLimit: 100))
        #expect(capped.total == 100 && capped.more && capped.hits.count == 60)
        // A date range is an id range.
        let day2 = try #require(index.search(SearchQuery(parsing: "crowd date:2010-05-02"), offset: 0, limit: 500, countLimit: 500))
        #expect(day2.total == 150 - 6 && day2.hits.allSatisfy { (dates[$0.relativePath] ?? nil)?.hasPrefix("2010:05:02") == true })
        // A new date moves the row; the FTS row follows.
        index.write([.put(Self.row("Many/p299.jpg", date: "2030:01:01 00:00:00", keywords: ["crowd", "moved"], n: 5000))])
        #expect(index.search(query, offset: 0, limit: 1, countLimit: 10)?.hits.first?.relativePath == "Many/p299.jpg")
        #expect(SearchIndexTests.paths(index, "moved") == ["Many/p299.jpg"])
        #expect(index.search(query)?.count == 300)
    }

    @Test func typesAreAnsweredInSQL() throws {
        let (index, dir) = try SearchIndexTests.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(SearchIndexTests.paths(index, "type:video") == ["Family/clip.mov"])
        #expect(SearchIndexTests.paths(index, "type:animated") == ["Misc/anim.gif"])
        #expect(SearchIndexTests.paths(index, "-type:video -type:animated") == ["Trips/beach.jpg", "Trips/rain.jpg", "Family/kids.jpg"])
        #expect(SearchIndexTests.paths(index, "type:photo sea") == ["Trips/beach.jpg", "Trips/rain.jpg"])
    }

    @Test func mapCellsFollowAddsRemovesMovesAndFailures() throws {
        let (index, dir) = try SearchIndexTests.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paris = PhotoLocation(latitude: 48.85, longitude: 2.35)
        var rows: [LibraryIndex.Change] = []
        for i in 0..<30 {
            rows.append(.put(Self.row("Geo/p\(i).jpg", date: nil, at: PhotoLocation(latitude: 48.85 + Double(i) * 0.0001, longitude: 2.35), n: 100 + i)))
        }
        rows.append(.put(Self.row("Secret/home.jpg", date: nil, at: paris, n: 200)))
        index.write(rows)
        #expect(Self.cellsMatchPhotos(index))
        let world = try #require(MapBox(parsing: "-180,-90,180,90"))
        func clusterCount(_ folders: [String]) -> Int {
            let answer = index.positions(in: world, folders: folders, limit: 5, zoom: 2)
            return (answer?.clusters.map(\.count).reduce(0, +) ?? 0) + (answer?.points.count ?? 0)
        }
        #expect(clusterCount(["Geo"]) == 30 && clusterCount(["Geo", "Secret"]) == 31)
        // Moved into the private folder: counted there, no longer in the public one.
        index.write([.remove(relativePath: "Geo/p0.jpg"), .put(Self.row("Secret/p0.jpg", date: nil, at: paris, n: 300))])
        #expect(Self.cellsMatchPhotos(index) && clusterCount(["Geo"]) == 29)
        // Re-read with a new position, then as a failure (no version): the cells follow.
        index.write([.put(Self.row("Geo/p1.jpg", date: nil, at: PhotoLocation(latitude: -33.9, longitude: 151.2), n: 301))])
        #expect(Self.cellsMatchPhotos(index) && clusterCount(["Geo"]) == 29)
        index.write([.put(IndexedPhoto(relativePath: "Geo/p2.jpg", stamp: SearchIndexTests.stamp(302), version: "", facts: nil, failure: "unreadable"))])
        #expect(Self.cellsMatchPhotos(index) && clusterCount(["Geo"]) == 28)
        index.write([.removeFolder("Geo")])
        #expect(Self.cellsMatchPhotos(index) && clusterCount(["Geo"]) == 0)
        let cells = index.read { db throws(SQLiteError) in try db.scalar("SELECT count(*) FROM map_cells WHERE album = 'Geo'") }
        #expect(cells == 0, "empty cells are deleted")
        // Above the kept zooms the photos are grouped directly, with the same answer.
        let box = try #require(MapBox(parsing: "2.3,48.8,2.4,48.9"))
        let close = try #require(index.positions(in: box, folders: ["Secret"], limit: 1, zoom: 16))
        #expect(close.clusters.map(\.count).reduce(0, +) + close.points.count == 2)
    }

    /// A file whose search tables predate the date-ordered ids and map cells gets them, filled.
    @Test func anOlderSearchLayoutIsRebuilt() throws {
        let (index, dir) = try SearchIndexTests.makeIndex()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        index.write([.put(Self.row("Geo/a.jpg", date: "2020:01:01 00:00:00", at: PhotoLocation(latitude: 1, longitude: 2), n: 50))])
        let db = try SQLiteConnection(path: index.path, readOnly: false, create: false)
        try db.execute("DROP TRIGGER photos_cells_insert; DROP TRIGGER photos_cells_update; DROP TRIGGER photos_cells_delete; DROP TABLE map_cells")
        let opening = LibraryIndex.open(path: index.path, log: { _ in })
        let reopened = try #require(opening)
        #expect(SearchIndexTests.paths(reopened, "sea") == ["Trips/beach.jpg", "Trips/rain.jpg", "Geo/a.jpg"])
        #expect(Self.cellsMatchPhotos(reopened))
        #expect(reopened.read { db throws(SQLiteError) in try db.scalar("SELECT count(*) FROM map_cells") } == 13)
    }

    /// The public count and pages leave the private album's photo out in SQL, by any field.
    @Test func publicCountsAndPagesLeavePrivatePhotosOut() throws {
        let library = try SearchPagesTests.library(showLocation: true)
        defer { library.remove() }
        let app = try SearchPagesTests.makeApp(library, today: CalendarDay(year: 2025, month: 1, day: 1))
        let secret = try SearchPagesTests.id(app, "Family/Secret.jpg")
        let jpegs = app.catalog.publicView().items.values.filter { $0.fileName.lowercased().hasSuffix(".jpg") }.count
        #expect(jpegs == app.catalog.items.values.filter { $0.fileName.lowercased().hasSuffix(".jpg") }.count - 1)
        let all = SearchPagesTests.get(app, "/search?q=jpg+")
        #expect(all.status == 200 && all.text.contains("\(jpegs) photos") && !all.text.contains(secret))
        for query in ["secret+", "album%3Afamily", "file%3Asecret", "date%3A2021", "type%3Aphoto+secret"] {
            let page = SearchPagesTests.get(app, "/search?q=" + query)
            #expect(page.status == 200 && !page.text.contains(secret) && page.text.contains("0 photos"), "\(query)")
        }
        let feed = SearchPagesTests.get(app, "/search/photos?q=jpg+")
        #expect(feed.status == 200 && !feed.text.contains(secret) && feed.text.contains("\"total\":\(jpegs)"))
        #expect(SearchPagesTests.get(app, "/search?q=jpg+&page=2").status == 404, "one page of \(jpegs)")
        let capped = GalleryApp.SearchOutcome(query: SearchQuery(parsing: "x"), total: GalleryApp.searchCountLimit, more: true)
        #expect(GalleryApp.searchSummary(capped).hasPrefix("more than 1,000 photos"))
        #expect(GalleryApp.grouped(1_234_567) == "1,234,567" && GalleryApp.grouped(999) == "999")
    }
}

