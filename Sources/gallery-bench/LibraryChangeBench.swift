import CSQLite
import Foundation
import Gallery
#if canImport(Glibc)
import Glibc
#endif

/// The parts of the library section about work not redone: `gallery index` stopped half way
/// and started again, and the cost of one new photo to a running, idle server.
enum LibraryChangeBench {
    /// Photos in the index at `path`, read with a connection of our own (the index is being
    /// written by another process: WAL lets us read beside it); nil when it cannot be read.
    static func indexedPhotos(_ path: String) -> Int? {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return nil }
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 2000)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT count(*) FROM photos", -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : nil
    }

    /// What the two runs of an interrupted build did.
    struct Resume {
        var total: Int
        /// Rows in the index when the first run had been stopped.
        var keptAfterStop: Int
        /// Seconds the first run ran before SIGTERM, and its exit.
        var firstSeconds: Double
        var firstExit: String
        /// The second run's own summary line and its files read.
        var secondSummary: String
        var secondRead: Int?
        var secondSeconds: Double
        var cpuSeconds: Double
        var peakRSSKiB: Int

        var report: String {
            let remainder = total - keptAfterStop
            return String(format: "index build stopped by SIGTERM after %.1f s (%@) with %d of %d photos written; the second run read %@ files "
                          + "(the remainder was %d: %@) in %.1f s, %.1f s CPU, peak RSS %d MB\n  %@",
                          firstSeconds, firstExit, keptAfterStop, total, secondRead.map(String.init) ?? "?", remainder,
                          secondRead.map { $0 <= remainder ? "nothing finished was read again" : "\($0 - remainder) read again" } ?? "unknown",
                          secondSeconds, cpuSeconds, peakRSSKiB / 1024, secondSummary)
        }
    }

    /// Builds the index of `library` in two runs of `gallery index`: the first stopped with
    /// SIGTERM once about half the photos are in the index, the second to the end.
    static func interruptedBuild(_ context: BenchContext, library: String, cache: String, total: Int) throws -> Resume {
        let indexPath = cache + "/library-index.sqlite"
        let output = cache + "-index-first.out"
        let started = DispatchTime.now().uptimeNanoseconds
        let first = try WebSetup.spawn(context.galleryBinary, ["index", "--root", library, "--cache-dir", cache], outputFile: output)
        var lastPrint = 0.0
        while true {
            var status: Int32 = 0
            if waitpid(first, &status, WNOHANG) == first { throw WebSetup.Failure(description: "gallery index ended before half way") }
            let now = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            let rows = indexedPhotos(indexPath) ?? 0
            if now - lastPrint >= 10 {
                print(String(format: "  %.0f s: %d photos indexed (%.0f photos/s)", now, rows, Double(rows) / max(now, 0.001)))
                lastPrint = now
            }
            if rows >= total / 2 { break }
            usleep(200_000)
        }
        kill(first, SIGTERM)
        var status: Int32 = 0
        while waitpid(first, &status, 0) < 0 && errno == EINTR {}
        let firstSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let exit = (status & 0x7f) != 0 ? "killed by signal \(status & 0x7f)" : "exit \((status >> 8) & 0xff)"
        let kept = indexedPhotos(indexPath) ?? 0

        let secondOutput = cache + "-index.out"
        let secondStart = DispatchTime.now().uptimeNanoseconds
        let second = try WebSetup.spawn(context.galleryBinary, ["index", "--root", library, "--cache-dir", cache], outputFile: secondOutput)
        var usage = rusage()
        while wait4(second, &status, 0, &usage) < 0 && errno == EINTR {}
        let summary = ((try? String(contentsOfFile: secondOutput, encoding: .utf8)) ?? "").split(separator: "\n").last.map(String.init) ?? ""
        guard status == 0 else { throw WebSetup.Failure(description: "the second gallery index failed: \(summary)") }
        // "… read N (…" in the summary line.
        let read = summary.range(of: ", read ").flatMap { r in Int(summary[r.upperBound...].prefix { $0.isNumber }) }
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return Resume(total: total, keptAfterStop: kept, firstSeconds: firstSeconds, firstExit: exit, secondSummary: summary, secondRead: read,
                      secondSeconds: Double(DispatchTime.now().uptimeNanoseconds - secondStart) / 1e9, cpuSeconds: cpu,
                      peakRSSKiB: usage.ru_maxrss)
    }

    /// utime + stime of process `pid` in seconds (from /proc/PID/stat), nil when gone.
    static func processCPU(_ pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        return (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Copies one photo into `album` of the running server's library and reports the server's
    /// CPU over the next 6 s and when the photo is on the album's page (polled).
    static func changeCost(port: Int, pid: pid_t, library: String, albumFolder: String, albumURI: String, photo: String) throws -> String {
        // Idle first: whatever the views started (renders, placeholders) settles.
        sleep(3)
        // First by name, so on the album's first page.
        let name = "A_NEW_\(getpid())_\(Int(DispatchTime.now().uptimeNanoseconds % 1_000_000)).jpg"
        let target = library + "/" + albumFolder + "/" + name
        let before = processCPU(pid) ?? 0
        let start = DispatchTime.now().uptimeNanoseconds
        try FileManager.default.copyItem(atPath: photo, toPath: target)
        var shownAfter: Double?
        let photoID = StableID.make("item:" + albumFolder + "/" + name)
        while DispatchTime.now().uptimeNanoseconds - start < 6_000_000_000 {
            if shownAfter == nil, let page = try? FastCGIClient.get(port: port, uri: albumURI), page.body.contains(photoID) {
                shownAfter = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
            usleep(50_000)
        }
        let after = processCPU(pid) ?? 0
        // The page is polled every 50 ms until the photo is on it: those views are in the figure.
        return String(format: "one new photo in %@: server CPU over the 6 s after %.2f s (utime+stime, page polls included); on its album page after %@",
                      albumFolder, after - before, shownAfter.map { String(format: "%.2f s", $0) } ?? "more than 6 s")
    }
}
