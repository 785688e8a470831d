import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Search latency over a synthetic index of `GALLERY_SEARCH_BENCH` photos (e.g. 100000):
/// 1,000 albums, three keywords a photo from 2,000 words, a caption, dates over 25 years, ten
/// cameras, positions over Europe. Prints p50/p99 of each query through `LibraryIndex.search`
/// (SQL and FTS only; the page adds the resolution to catalog items and 60 tiles). Off unless
/// the variable is set: building 100,000 rows takes a while (docs/search.md has the figures).
@Suite struct SearchBenchTests {
    static let photoCount = Int(ProcessInfo.processInfo.environment["GALLERY_SEARCH_BENCH"] ?? "") ?? 0

    @Test(.enabled(if: photoCount > 0, "set GALLERY_SEARCH_BENCH=100000 to measure"))
    func searchLatency() throws {
        let dir = NSTemporaryDirectory() + "search-bench-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let opened = LibraryIndex.open(path: dir + "/index.sqlite", log: { print($0) })
        let index = try #require(opened)
        var rng = SystemRandomNumberGenerator()
        let words = (0..<2000).map { "word\($0)" }
        let cameras = ["Canon", "Nikon", "Sony", "Apple", "Fujifilm", "Olympus", "Panasonic", "Leica", "Pentax", "Ricoh"]
        let t0 = Date()
        var batch: [LibraryIndex.Change] = []
        for i in 0..<Self.photoCount {
            let date = String(format: "%04d:%02d:%02d 12:00:00", 2000 + i % 25, 1 + i % 12, 1 + i % 28)
            let text = PhotoText(title: "Photo \(i)", caption: "A day with \(words.randomElement(using: &rng)!)",
                                 keywords: (0..<3).map { _ in words.randomElement(using: &rng)! }, rating: i % 6)
            let facts = ImageFacts(width: 4000, height: 3000, pixelCount: 12_000_000, format: "JPEG", dateTaken: date,
                                   cameraMake: cameras[i % 10], cameraModel: "Model \(i % 7)", colourSpace: nil,
                                   location: PhotoLocation(latitude: 36 + Double(i % 2000) / 100, longitude: -9 + Double(i % 3000) / 100),
                                   text: text)
            let path = String(format: "Album %04d/IMG_%05d.jpg", i % 1000, i)
            batch.append(.put(IndexedPhoto(relativePath: path, stamp: FileStamp(size: i, mtimeSeconds: i, mtimeNanoseconds: 0, inode: UInt64(i)),
                                           version: "abcdef012345", facts: facts)))
            if batch.count == 1000 {
                index.write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        index.write(batch)
        print(String(format: "search bench: %d rows written in %.1f s", Self.photoCount, Date().timeIntervalSince(t0)))
        let size = (try? FileManager.default.attributesOfItem(atPath: dir + "/index.sqlite")[.size] as? Int) ?? 0
        print(String(format: "search bench: index file %.1f MB", Double(size) / 1e6))

        let queries = ["word17", "keyword:word17", "word17 word18", "wor", "canon", "date:2019", "date:2019-07..2021-03",
                       "rating>=5 canon", "word17 -canon", "img_00042", "album:0042", "\"a day with word3\"", "photo"]
        for text in queries {
            let query = SearchQuery(parsing: text)
            var times: [Double] = []
            var count = 0
            for _ in 0..<25 {
                let start = DispatchTime.now().uptimeNanoseconds
                count = index.search(query)?.count ?? -1
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            times.sort()
            print(String(format: "search bench: %-24@ %6d rows  p50 %7.2f ms  p99 %7.2f ms", text as NSString, count,
                         times[times.count / 2], times[times.count - 1]))
        }
        let world = try #require(MapBox(parsing: "-180,-90,180,90"))
        var times: [Double] = []
        let folders = (0..<1000).map { String(format: "Album %04d", $0) }
        for _ in 0..<25 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = index.positions(in: world, folders: folders, limit: 400, zoom: 2)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        print(String(format: "search bench: map points, whole world, zoom 2: p50 %.2f ms  p99 %.2f ms", times[12], times[24]))
        var day: [Double] = []
        for _ in 0..<25 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = index.takenOnThisDay(CalendarDay(year: 2026, month: 3, day: 4))
            day.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        day.sort()
        print(String(format: "search bench: on this day: p50 %.2f ms  p99 %.2f ms", day[12], day[24]))
    }
}
