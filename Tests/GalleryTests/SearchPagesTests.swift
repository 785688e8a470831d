import FastCGI
import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// "On this day" with an injected date, and the map's routes with `show_location` off and on,
/// through the app (no nginx): private albums stay out of both.
@Suite struct SearchPagesTests {
    /// Trips/Old.jpg taken 2020-03-04, Trips/New.jpg 2024-03-04, Trips/Other.jpg 2022-05-06, and
    /// the private Family/Secret.jpg 2021-03-04; `gallery.json` marks Family private.
    static func library(showLocation: Bool) throws -> TestLibrary {
        let library = try TestLibrary.make()
        let fm = FileManager.default
        try fm.createDirectory(atPath: library.root + "/Family", withIntermediateDirectories: true)
        for (path, date) in [("Trips/Old.jpg", "2020:03:04 10:00:00"), ("Trips/New.jpg", "2024:03:04 09:00:00"),
                             ("Trips/Other.jpg", "2022:05:06 09:00:00"), ("Family/Secret.jpg", "2021:03:04 12:00:00")] {
            try LibraryIndexTests.datedJPEG("flower_420_q75.jpg", date: date).write(to: URL(fileURLWithPath: library.root + "/" + path))
        }
        var manifest: [String: Any] = ["albums": ["Family": ["private": true]]]
        if showLocation { manifest["show_location"] = true }
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: library.root + "/gallery.json"))
        return library
    }

    static func makeApp(_ library: TestLibrary, today: CalendarDay) throws -> GalleryApp {
        let base = (library.root as NSString).deletingLastPathComponent
        var pc = PipelineConfiguration(cacheDirectory: base + "/cache", libraryRoot: library.root)
        pc.log = { _ in }
        let repo = Fixtures.repoRoot.path
        let app = try GalleryApp(configuration: GalleryConfiguration(
            libraryRoot: library.root, templatesDirectory: repo + "/templates", publicDirectory: repo + "/public",
            pageLookupBudget: 60, indexPath: base + "/index.sqlite", mapTiles: "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png",
            today: { today }), pipeline: ImagePipeline(configuration: pc), watchLibrary: false, log: { _ in })
        app.refreshLibrary()
        return app
    }

    static func get(_ app: GalleryApp, _ target: String) -> (status: Int, text: String, response: FastCGIResponse) {
        let response = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": target]))
        return (response.status, String(decoding: response.body, as: UTF8.self), response)
    }

    static func id(_ app: GalleryApp, _ path: String) throws -> String {
        try #require(app.catalog.item(relativePath: path)).id
    }

    @Test func onThisDayByYearWithoutPrivatePhotos() throws {
        let library = try Self.library(showLocation: false)
        defer { library.remove() }
        let app = try Self.makeApp(library, today: CalendarDay(year: 2025, month: 3, day: 4))
        let page = Self.get(app, "/on-this-day")
        #expect(page.status == 200)
        let old = try Self.id(app, "Trips/Old.jpg"), new = try Self.id(app, "Trips/New.jpg")
        let secret = try Self.id(app, "Family/Secret.jpg"), other = try Self.id(app, "Trips/Other.jpg")
        let text = page.text
        #expect(text.contains("/photo/\(old)") && text.contains("/photo/\(new)"))
        #expect(!text.contains(secret) && !text.contains(">2021 <") && !text.contains(other))
        // Newest year first.
        let y2024 = try #require(text.range(of: ">2024 <")), y2020 = try #require(text.range(of: ">2020 <"))
        #expect(y2024.lowerBound < y2020.lowerBound)
        #expect(text.contains("1 year ago") && text.contains("5 years ago") && text.contains("4 March"))
        #expect(Self.get(app, "/").text.contains("href=\"/on-this-day\""))

        // Another day: nothing, and no link on the root page.
        let other6 = try Self.makeApp(library, today: CalendarDay(year: 2025, month: 3, day: 5))
        #expect(Self.get(other6, "/on-this-day").text.contains("No photos were taken on this day"))
        #expect(!Self.get(other6, "/").text.contains("/on-this-day"))
        // This year's photos are not "earlier years".
        let in2024 = try Self.makeApp(library, today: CalendarDay(year: 2024, month: 3, day: 4))
        #expect(!Self.get(in2024, "/on-this-day").text.contains(new))
    }

    /// Puts every photo of the index at a position (the fixtures have no GPS).
    static func place(_ library: TestLibrary) throws {
        let db = try SQLiteConnection(path: (library.root as NSString).deletingLastPathComponent + "/index.sqlite", readOnly: false, create: false)
        try db.execute("UPDATE photos SET latitude = 48.85, longitude = 2.35")
    }

    @Test func mapOnlyWhereShowLocationSaysSo() throws {
        let hidden = try Self.library(showLocation: false)
        defer { hidden.remove() }
        let off = try Self.makeApp(hidden, today: CalendarDay(year: 2025, month: 1, day: 1))
        try Self.place(hidden)
        let trips = try #require(off.catalog.albums.values.first { $0.relativePath == "Trips" })
        #expect(Self.get(off, "/map").status == 404)
        #expect(Self.get(off, "/album/\(trips.id)/map").status == 404)
        #expect(Self.get(off, "/map/points?bbox=-180,-90,180,90&zoom=2").status == 404)
        #expect(!Self.get(off, "/").text.contains("/map\""))

        let shown = try Self.library(showLocation: true)
        defer { shown.remove() }
        let on = try Self.makeApp(shown, today: CalendarDay(year: 2025, month: 1, day: 1))
        try Self.place(shown)
        let map = Self.get(on, "/map")
        #expect(map.status == 200 && map.text.contains("/static/leaflet/leaflet.js") && map.text.contains("data-points=\"/map/points\""))
        #expect(map.response.header("Content-Security-Policy")?.contains("img-src 'self' data: http://127.0.0.1:9") == true)
        #expect(Self.get(on, "/").text.contains("href=\"/map\""))
        let tripsOn = try #require(on.catalog.albums.values.first { $0.relativePath == "Trips" })
        #expect(Self.get(on, "/album/\(tripsOn.id)/map").status == 200)
        #expect(Self.get(on, "/album/\(tripsOn.id)").text.contains("/album/\(tripsOn.id)/map"))
        let secret = try Self.id(on, "Family/Secret.jpg"), old = try Self.id(on, "Trips/Old.jpg")
        let points = Self.get(on, "/map/points?bbox=-180,-90,180,90&zoom=2")
        #expect(points.status == 200 && points.response.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(points.text.contains("/photo/\(old)") && !points.text.contains(secret))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(points.response.body)) as? [String: Any])
        let publicCount = on.catalog.publicView().items.count
        #expect((json["points"] as? [Any])?.count == publicCount)
        #expect(Self.get(on, "/map/points?bbox=0,0,1,1&zoom=2").text == #"{"clusters":[],"points":[]}"#)
        #expect(Self.get(on, "/map/points?bbox=-180,-90,180,90&zoom=2&album=\(tripsOn.id)").text.contains(old))
        for bad in ["/map/points", "/map/points?bbox=1,2,3&zoom=2", "/map/points?bbox=0,0,1,1&zoom=99", "/map/points?bbox=0,0,1,1&zoom=2&album=zz",
                    "/map/points?bbox=0,0,1,1&zoom=2&album=000000000000"] {
            #expect(Self.get(on, bad).status == 404, "\(bad)")
        }
    }
}

/// Search results are tiles and slides like an album's: a movie found by search carries its
/// duration badge on the grid and plays in the viewer (its slide names the original).
@Suite struct SearchResultTileTests {
    @Test func aMovieFoundBySearchHasItsDurationAndPlaysInTheViewer() throws {
        let library = try SearchPagesTests.library(showLocation: false)
        defer { library.remove() }
        try FileManager.default.copyItem(atPath: Fixtures.testsDirectory.appendingPathComponent("Fixtures/video/h264.mp4").path,
                                         toPath: library.root + "/Trips/Clip.mp4")
        let app = try SearchPagesTests.makeApp(library, today: CalendarDay(year: 2025, month: 3, day: 4))
        let id = try SearchPagesTests.id(app, "Trips/Clip.mp4")
        let page = SearchPagesTests.get(app, "/search?q=type%3Avideo")
        #expect(page.status == 200 && page.text.contains("/photo/\(id)"))
        #expect(page.text.contains("badge duration"), "the tile shows the movie's length")
        let feed = SearchPagesTests.get(app, "/search/photos?q=type%3Avideo&page=1")
        #expect(feed.status == 200 && feed.text.contains("\"video\":\"/original/\(id)\""), "\(feed.text)")
    }
}
