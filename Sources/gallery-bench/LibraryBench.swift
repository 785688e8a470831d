import Foundation
import Gallery
#if canImport(Glibc)
import Glibc
#endif

/// The library section: a synthetic library of `--photos N` photos (default 100,000: hard
/// links of the real photos in albums of 100, in the scratch folder), and then
///   - the index build (`gallery index`), in photos/s, stopped by SIGTERM half way and run
///     again: the second run's files read against what was left,
///   - a restart of `gallery serve` on that index: process start to the first page served,
///   - the first views after the restart of the root, album pages and photo pages (p50/p99),
///     checking that every image URL on them carries a version,
///   - the app's RSS after those views, and the cost of one new photo to the idle server
///     (its CPU over the 6 s after, and when the photo shows on its album page),
/// beside the same first views served without the index (`--index off`, today's path: each
/// page hashes its photos) on a sample of album pages.
enum LibraryBench {
    static func run(_ context: BenchContext) {
        print("\n## library (\(context.libraryPhotos) photos)")
        do {
            try measure(context)
        } catch {
            print("failed: \(error)")
        }
    }

    private static func measure(_ context: BenchContext) throws {
        // GALLERY_BENCH_LIBRARY=DIR keeps the library and its index in DIR: a second run with
        // the same --photos skips building them (an index of 100,000 photos takes many minutes)
        // and measures only the restarts, e.g. to compare two builds of the server.
        let kept = ProcessInfo.processInfo.environment["GALLERY_BENCH_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
        let dir = kept ?? (context.scratchDir + "/library")
        let library = dir + "/photos", cache = dir + "/cache"
        if let kept, FileManager.default.fileExists(atPath: cache + "/library-index.sqlite"),
           let count = try? String(contentsOfFile: kept + "/photo-count", encoding: .utf8), Int(count) == context.libraryPhotos {
            print("library and index kept in \(kept) (GALLERY_BENCH_LIBRARY): build skipped")
            try restarts(context, library: library, cache: cache)
            return
        }
        try? FileManager.default.removeItem(atPath: dir)
        try makeLibrary(context, into: library)
        try? FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let resume = try LibraryChangeBench.interruptedBuild(context, library: library, cache: cache, total: context.libraryPhotos)
        print(resume.report)
        let buildSeconds = resume.firstSeconds + resume.secondSeconds
        print(String(format: "index build: %d photos in %.1f s (both runs) = %.0f photos/s wall (scan, hash once per inode, probe, write; "
                     + "%d cores, load %.1f)", context.libraryPhotos, buildSeconds, Double(context.libraryPhotos) / buildSeconds,
                     ProcessInfo.processInfo.activeProcessorCount, loadAverage()))
        let indexBytes = (try? FileManager.default.attributesOfItem(atPath: cache + "/library-index.sqlite")[.size] as? Int) ?? 0
        print(String(format: "index file: %.1f MB (%.0f bytes a photo)", Double(indexBytes) / 1e6, Double(indexBytes) / Double(max(1, context.libraryPhotos))))

        if let kept { try? String(context.libraryPhotos).write(toFile: kept + "/photo-count", atomically: true, encoding: .utf8) }
        try restarts(context, library: library, cache: cache)
    }

    /// The two restarts: on the index, and without it.
    private static func restarts(_ context: BenchContext, library: String, cache: String) throws {
        // The run without the index starts from an empty cache, as it would on a first visit.
        try? FileManager.default.removeItem(atPath: cache + "-noindex")
        let withIndex = try session(context, library: library, cache: cache, extra: [], albumSample: 50)
        print(withIndex.report(label: "with the index"))
        print(withIndex.searchReport())
        print(withIndex.change)
        // GALLERY_BENCH_WITHOUT_INDEX=0 leaves that session out (at a million photos it costs
        // minutes, and it does not change when only the indexed path does).
        guard ProcessInfo.processInfo.environment["GALLERY_BENCH_WITHOUT_INDEX"] != "0" else { return }
        let without = try session(context, library: library, cache: cache + "-noindex", extra: ["--index", "off"], albumSample: 10)
        print(without.report(label: "without (--index off)"))
    }

    /// Hard links (copies when the photo folder is on another file system) of the real photos,
    /// in albums of 100 (10,000 albums at a million photos).
    private static func makeLibrary(_ context: BenchContext, into library: String) throws {
        let sources = context.photos([".jpg", ".jpeg", ".png", ".heic", ".webp"])
        guard !sources.isEmpty else { throw WebSetup.Failure(description: "no photos in \(context.photoDir)") }
        let fm = FileManager.default
        try fm.createDirectory(atPath: library, withIntermediateDirectories: true)
        let originals = library + "/../originals"
        try fm.createDirectory(atPath: originals, withIntermediateDirectories: true)
        var local: [String] = []
        for (i, source) in sources.enumerated() {
            let target = originals + "/\(i)." + (source as NSString).pathExtension
            if link(source, target) != 0 { try fm.copyItem(atPath: source, toPath: target) }
            local.append(target)
        }
        let count = context.libraryPhotos
        let albumCount = max(1, count / 100)
        let perAlbum = (count + albumCount - 1) / albumCount
        var made = 0
        for a in 0..<albumCount where made < count {
            let name = String(format: "Album %05d", a)
            try fm.createDirectory(atPath: library + "/" + name, withIntermediateDirectories: true)
            for p in 0..<perAlbum where made < count {
                let source = local[made % local.count]
                let target = library + "/" + name + String(format: "/IMG_%05d.", p) + (source as NSString).pathExtension
                if link(source, target) != 0 {
                    // ext4 allows 65,000 links to one inode: a million photos of a dozen files
                    // need fresh copies to link to (each copy is hashed once, like any inode).
                    guard errno == EMLINK else { throw WebSetup.Failure(description: "cannot link \(target)") }
                    let copy = originals + "/\(made % local.count)-\(made)." + (source as NSString).pathExtension
                    try fm.copyItem(atPath: source, toPath: copy)
                    local[made % local.count] = copy
                    guard link(copy, target) == 0 else { throw WebSetup.Failure(description: "cannot link \(target)") }
                }
                made += 1
            }
        }
    }

    struct Session {
        var startSeconds: Double
        var latencies: [Double]
        /// The page of each latency, in the same order.
        var uris: [String]
        var pages: Int
        var unversioned: Int
        var failures: Int
        var rssKiB: Int
        /// Search pages (`/search?q=…`) by query: each one's latencies, with the index only.
        var searches: [(query: String, seconds: [Double])] = []
        /// The cost of one new photo (with the index only).
        var change = ""

        /// p50/p99 of each search query (whole page: parse, SQL, resolution to catalog items, 60 tiles).
        func searchReport() -> String {
            searches.map { query, seconds in
                let sorted = seconds.sorted()
                func pct(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
                return String(format: "search %@: %d runs, p50 %.1f ms, p99 %.1f ms", query, sorted.count, pct(0.5), pct(0.99))
            }.joined(separator: "\n")
        }

        func report(label: String) -> String {
            let sorted = latencies.sorted()
            func pct(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
            return String(format: "%@: start to first page %.0f ms; first views of %d pages p50 %.1f ms, p99 %.1f ms, max %.1f ms; "
                          + "%d image URLs without a version, %d failed pages; RSS after %.0f MB",
                          label, startSeconds * 1000, pages, pct(0.5), pct(0.99), (sorted.last ?? 0) * 1000, unversioned, failures,
                          Double(rssKiB) / 1024) + "\n  slowest: " + slowest(3)
        }

        /// The `n` slowest pages with their times, to tell which kind of page makes the p99.
        func slowest(_ n: Int) -> String {
            zip(latencies, uris).sorted { $0.0 > $1.0 }.prefix(n)
                .map { String(format: "%@ %.1f ms", $0.1, $0.0 * 1000) }.joined(separator: ", ")
        }
    }

    /// Starts the server, times its first page, then the first views of the root, a sample of
    /// album pages and a photo page from each; stops it.
    private static func session(_ context: BenchContext, library: String, cache: String, extra: [String],
                                albumSample: Int) throws -> Session {
        let port = try WebSetup.freePort()
        let log = cache + ".log"
        try? FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let root = WebSetup.repoRoot(binary: context.galleryBinary)
        let start = DispatchTime.now().uptimeNanoseconds
        let pid = try WebSetup.spawn(context.galleryBinary, ["serve", "--root", library, "--cache-dir", cache, "--listen", "127.0.0.1:\(port)",
                                                             "--templates", root + "/templates", "--public", root + "/public", "--log", log] + extra)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        var first: FastCGIClient.Reply?
        while first == nil, DispatchTime.now().uptimeNanoseconds - start < 120_000_000_000 {
            first = try? FastCGIClient.get(port: port, uri: "/healthz")
            if first == nil { usleep(2000) }
        }
        guard first != nil else { throw WebSetup.Failure(description: "the server did not answer; see \(log)") }
        let rootStart = DispatchTime.now().uptimeNanoseconds
        let rootPage = try FastCGIClient.get(port: port, uri: "/")
        let startSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var session = Session(startSeconds: startSeconds, latencies: [Double(DispatchTime.now().uptimeNanoseconds - rootStart) / 1e9],
                              uris: ["/"], pages: 1, unversioned: unversioned(rootPage.body), failures: rootPage.status == 200 ? 0 : 1, rssKiB: 0)
        let albumLinks = Array(Set(WebBench.matches(in: rootPage.body, prefix: "/album/", allowed: "0123456789abcdef"))).sorted()
        var rng = SystemRandomNumberGenerator()
        let sample = albumLinks.shuffled(using: &rng).prefix(albumSample)
        var photoLinks: [String] = []
        for album in sample {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let page = try FastCGIClient.get(port: port, uri: album)
            session.latencies.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            session.uris.append(album)
            session.pages += 1
            session.unversioned += unversioned(page.body)
            if page.status != 200 { session.failures += 1 }
            if let photo = WebBench.matches(in: page.body, prefix: "/photo/", allowed: "0123456789abcdef").randomElement() { photoLinks.append(photo) }
        }
        for photo in photoLinks {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let page = try FastCGIClient.get(port: port, uri: photo)
            session.latencies.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            session.uris.append(photo)
            session.pages += 1
            session.unversioned += unversioned(page.body)
            if page.status != 200 { session.failures += 1 }
        }
        if extra.isEmpty {
            // Words of the bench's names ("Album 0042/IMG_00012.jpg"): a rare word, an album, a
            // date range, and a word every photo has (the worst case: every row sorted and resolved).
            for query in ["img_00012", "album%3A00042", "date%3A2000..2030", "jpg", "-jpg", "album%3A00+img_0001"] {
                var seconds: [Double] = []
                for _ in 0..<30 {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    let page = try FastCGIClient.get(port: port, uri: "/search?q=" + query)
                    seconds.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                    if page.status != 200 { session.failures += 1 }
                }
                session.searches.append((query.removingPercentEncoding ?? query, seconds))
            }
        }
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) {
            session.rssKiB = Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        if extra.isEmpty, let photo = context.photos([".jpg", ".jpeg"]).first {
            session.change = try LibraryChangeBench.changeCost(port: port, pid: pid, library: library, albumFolder: "Album 00000",
                                                               albumURI: "/album/" + StableID.make("album:Album 00000"), photo: photo)
        }
        return session
    }

    /// The one-minute load average (other work on the machine slows the wall-clock figures).
    private static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : 0
    }

    /// Image URLs on a page that carry no `?v=` (linked before their version was known).
    private static func unversioned(_ html: String) -> Int {
        // One pass over the bytes (a substring search per URL was quadratic on the root page of
        // 10,000 albums).
        let bytes = Array(html.utf8), needle = Array("/img/".utf8), version = Array("?v=".utf8)
        var count = 0
        var i = 0
        while i + needle.count <= bytes.count {
            guard bytes[i] == needle[0], bytes[i..<i + needle.count].elementsEqual(needle) else {
                i += 1
                continue
            }
            let start = i + needle.count
            var end = start
            while end < min(bytes.count, start + 40), bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: " "),
                  bytes[end] != UInt8(ascii: ",") { end += 1 }
            let tail = bytes[start..<end]
            if !tail.indices.contains(where: { j in j + version.count <= end && bytes[j..<j + version.count].elementsEqual(version) }) {
                count += 1
            }
            i = start
        }
        return count
    }
}
