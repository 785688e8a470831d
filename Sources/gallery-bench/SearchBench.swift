import CSQLite
import FastCGI
import Foundation
import Gallery
import ImagePipeline

/// The search section: an index of `--photos N` synthetic rows (default 1,000,000) written in
/// one transaction through SQL (the index's triggers fill the FTS table and the map cells as
/// they do for the indexer), then p50/p99 of `/search` and `/map/points` answered by the app's
/// own handler in this process: the server's work, without nginx or a socket.
///
/// The rows: 10,000 albums of equal size (an album is an event: its photos share a day), one
/// in 50 private; dates over 20 years; a caption of six words drawn from 400 with a skewed
/// frequency (the commonest word is on about half the photos, the rarest on a few hundred),
/// three keywords of 200, ten cameras, a position near one of 50 cities for 30 %, one file in
/// 30 a movie. GALLERY_BENCH_SEARCH=DIR keeps the index in DIR for the next run of the same N.
enum SearchBench {
    static func run(_ context: BenchContext) {
        let count = context.searchPhotos
        print("\n## search (\(count) synthetic photos)")
        do {
            try measure(context, count: count)
        } catch {
            print("failed: \(error)")
        }
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    static let albums = 10_000
    static let words: [String] = {
        let base = ["day", "light", "family", "summer", "walk", "friends", "city", "river", "morning", "evening", "garden", "old",
                    "house", "street", "market", "snow", "winter", "autumn", "spring", "beach", "mountain", "lake", "forest",
                    "sunset", "sunrise", "bridge", "harbour", "boat", "train", "station", "church", "castle", "museum", "park",
                    "dog", "cat", "horse", "bird", "flower", "tree", "field", "road", "car", "bike", "party", "wedding",
                    "birthday", "dinner", "lunch", "breakfast", "coffee", "picnic", "concert", "festival", "school", "holiday"]
        return (0..<400).map { $0 < base.count ? base[$0] : "word\($0)" }
    }()
    static let cities: [(String, Double, Double)] = (0..<50).map { i in
        let named = [("paris", 48.8566, 2.3522), ("london", 51.5074, -0.1278), ("tokyo", 35.6762, 139.6503), ("zurich", 47.3769, 8.5417),
                     ("newyork", 40.7128, -74.006), ("sydney", -33.8688, 151.2093), ("lima", -12.0464, -77.0428), ("cairo", 30.0444, 31.2357)]
        if i < named.count { return named[i] }
        return ("town\(i)", Double((i * 37) % 120) - 50, Double((i * 71) % 340) - 170)
    }

    private static func measure(_ context: BenchContext, count: Int) throws {
        let kept = ProcessInfo.processInfo.environment["GALLERY_BENCH_SEARCH"].flatMap { $0.isEmpty ? nil : $0 }
        let dir = kept ?? (context.scratchDir + "/search")
        let library = dir + "/library", indexPath = dir + "/index.sqlite"
        let fm = FileManager.default
        let reuse = kept != nil && fm.fileExists(atPath: indexPath)
            && (try? String(contentsOfFile: dir + "/photo-count", encoding: .utf8)) == String(count)
        if reuse {
            print("index kept in \(dir) (GALLERY_BENCH_SEARCH): build skipped")
        } else {
            try? fm.removeItem(atPath: dir)
            try fm.createDirectory(atPath: library, withIntermediateDirectories: true)
            var manifest = "{\"show_location\": true, \"albums\": {"
            manifest += stride(from: 25, to: albums, by: 50).map { "\"\(albumName($0))\": {\"private\": true}" }.joined(separator: ", ")
            try (manifest + "}}").write(toFile: library + "/gallery.json", atomically: true, encoding: .utf8)
            // The schema comes from the app's own open.
            guard LibraryIndex.open(path: indexPath, log: { print($0) }) != nil else { throw Failure(description: "cannot make \(indexPath)") }
            let t0 = DispatchTime.now().uptimeNanoseconds
            try fill(indexPath, count: count)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            let bytes = (try? fm.attributesOfItem(atPath: indexPath)[.size] as? Int) ?? 0
            print(String(format: "rows written: %d in %.1f s (%.0f rows/s, FTS and map-cell triggers included); index file %.0f MB",
                         count, seconds, Double(count) / seconds, Double(bytes) / 1e6))
            if kept != nil { try String(count).write(toFile: dir + "/photo-count", atomically: true, encoding: .utf8) }
        }
        let root = WebSetup.repoRoot(binary: context.galleryBinary)
        var pc = PipelineConfiguration(cacheDirectory: dir + "/cache", libraryRoot: library)
        pc.log = { _ in }
        let started = DispatchTime.now().uptimeNanoseconds
        let app = try GalleryApp(configuration: GalleryConfiguration(
            libraryRoot: library, templatesDirectory: root + "/templates", publicDirectory: root + "/public", indexPath: indexPath),
            pipeline: ImagePipeline(configuration: pc), watchLibrary: false, log: { _ in })
        print(String(format: "app on the index: %.0f ms (catalog of %d items from the index); this process's RSS %.0f MB",
                     Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6, app.catalog.items.count, Double(residentKiB()) / 1024))

        let rare = (390..<400).map { words[$0] }
        let queries: [(label: String, uris: [String])] = [
            ("a common word (`day`, about half the photos)", ["/search?q=day+"]),
            ("a rare word (`word390`..`word399`)", rare.map { "/search?q=\($0)+" }),
            ("`keyword:beach`", ["/search?q=keyword%3Abeach+"]),
            ("`date:2019`", ["/search?q=date%3A2019"]),
            ("`date:2019..2021`", ["/search?q=date%3A2019..2021"]),
            ("`date:2024-07`", ["/search?q=date%3A2024-07"]),
            ("`beach date:2019..2021 camera:canon`", ["/search?q=beach+date%3A2019..2021+camera%3Acanon"]),
            ("`type:video`", ["/search?q=type%3Avideo"]),
            ("page 5 of `day`", ["/search?q=day+&page=5"]),
            ("`day -summer`", ["/search?q=day+-summer"]),
            ("map points, whole world, zoom 2", ["/map/points?bbox=-180,-90,180,90&zoom=2"]),
            ("map points, Paris (0.4 x 0.2 degrees), zoom 3", ["/map/points?bbox=2.15,48.75,2.55,48.95&zoom=3"]),
            ("map points, Paris, zoom 8", ["/map/points?bbox=2.15,48.75,2.55,48.95&zoom=8"]),
            ("map points, Paris, zoom 14", ["/map/points?bbox=2.15,48.75,2.55,48.95&zoom=14"]),
        ]
        print(String(format: "load average %.1f on %d cores; wall time, and the request thread's CPU time (what other processes on the machine do not inflate)",
                     loadAverage(), ProcessInfo.processInfo.activeProcessorCount))
        print("| query | found | status, size | wall p50 | wall p99 | CPU p50 | CPU p99 |")
        print("|---|---|---|---|---|---|---|")
        for (label, uris) in queries {
            var times: [Double] = []
            var cpu: [Double] = []
            var status = 0, bytes = 0
            var found = ""
            for run in 0..<(context.runs * 20) {
                let uri = uris[run % uris.count]
                let t0 = DispatchTime.now().uptimeNanoseconds, c0 = threadCPU()
                let response = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": uri]))
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                cpu.append((threadCPU() - c0) * 1000)
                status = response.status
                bytes = response.body.count
                if run == 0 { found = summary(response.body) }
            }
            times.sort()
            cpu.sort()
            func p99(_ v: [Double]) -> Double { v[min(v.count - 1, Int(Double(v.count) * 0.99))] }
            print(String(format: "| %@ | %@ | %d, %d B | %.1f ms | %.1f ms | %.1f ms | %.1f ms |", label, found, status, bytes,
                         times[times.count / 2], p99(times), cpu[cpu.count / 2], p99(cpu)))
        }
    }

    /// This process's resident set (VmRSS), KiB.
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// CPU seconds of the calling thread.
    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : 0
    }

    /// The page's "N photos" line, or the number of points and clusters of a map answer.
    static func summary(_ body: [UInt8]) -> String {
        let text = String(decoding: body, as: UTF8.self)
        if let start = text.range(of: "<p class=\"summary\">"), let end = text[start.upperBound...].range(of: "</p>") {
            return String(text[start.upperBound..<end.lowerBound])
        }
        let points = text.components(separatedBy: "\"thumb\"").count - 1, clusters = text.components(separatedBy: "\"count\"").count - 1
        return "\(points) points, \(clusters) clusters"
    }

    static func albumName(_ a: Int) -> String { String(format: "%04d/Album %05d", 2006 + a * 20 / albums, a) }

    /// Writes `count` rows in one transaction with one prepared statement.
    private static func fill(_ path: String, count: Int) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw Failure(description: "cannot open \(path)") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
        }
        try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-200000; BEGIN")
        let sql = """
            INSERT INTO photos(path, album, name, size, mtime_s, mtime_ns, inode, version, width, height, pixels, format, date_taken,
                               camera_make, camera_model, latitude, longitude, facts_level, title, caption, keywords, rating)
            VALUES (?, ?, ?, ?, 0, 0, ?, 'abcdef012345', 4000, 3000, 12000000, ?, ?, ?, 'Model', ?, ?, 3, ?, ?, ?, ?)
            """
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        var rng = SplitMix(seed: 42)
        let cameras = ["Canon", "Nikon", "Sony", "Apple", "Fujifilm", "Olympus", "Panasonic", "Leica", "Pentax", "Ricoh"]
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let perAlbum = max(1, (count + albums - 1) / albums)
        for i in 0..<count {
            let album = i / perAlbum
            let dayOfAlbum = album * 20 * 365 / albums
            let year = 2006 + dayOfAlbum / 365, yday = dayOfAlbum % 365
            let date = String(format: "%04d:%02d:%02d %02d:%02d:%02d", year, 1 + yday / 31 % 12, 1 + yday % 28,
                              8 + (i % perAlbum) / 10, rng.next(60), rng.next(60))
            let movie = i % 30 == 0
            let name = String(format: "IMG_%07d.", i) + (movie ? "mp4" : "jpg")
            // Skewed word choice: the square of a uniform number favours the first words.
            func word() -> String { let u = Double(rng.next(1 << 20)) / Double(1 << 20); return words[Int(u * u * u * 400)] }
            let caption = (0..<6).map { _ in word() }.joined(separator: " ")
            let keywords = (0..<3).map { _ in words[19 + rng.next(200)] }.joined(separator: "\n")
            var values: [String?] = [albumName(album) + "/" + name, albumName(album), name, nil, nil, movie ? "MP4" : "JPEG", date,
                                     cameras[rng.next(10)], nil, nil, "Photo \(i)", caption, keywords, nil]
            let placed = rng.next(10) < 3
            let city = cities[album % cities.count]
            sqlite3_reset(statement)
            for (n, value) in values.enumerated() where value != nil { sqlite3_bind_text(statement, Int32(n + 1), value, -1, transient) }
            sqlite3_bind_int64(statement, 4, Int64(2_000_000 + i))
            sqlite3_bind_int64(statement, 5, Int64(i + 1))
            if placed {
                sqlite3_bind_double(statement, 9, city.1 + Double(rng.next(2000)) / 10_000 - 0.1)
                sqlite3_bind_double(statement, 10, city.2 + Double(rng.next(2000)) / 10_000 - 0.1)
            } else {
                sqlite3_bind_null(statement, 9)
                sqlite3_bind_null(statement, 10)
            }
            sqlite3_bind_int64(statement, 14, Int64(rng.next(6)))
            values.removeAll()
            guard sqlite3_step(statement) == SQLITE_DONE else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
            if i > 0, i % 100_000 == 0 { print("  \(i) rows") }
        }
        try exec("COMMIT")
    }

    /// A small seeded generator: the same rows on every run.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }
}
