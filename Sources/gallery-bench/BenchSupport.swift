import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One measured command: median wall time over the runs, mean user and system CPU, and the
/// largest peak RSS seen.
struct Measurement {
    var medianSeconds: Double
    var peakRSSKiB: Int
    var runs: Int
    /// Mean user CPU seconds of a run (the child's own, from wait4).
    var userSeconds: Double = 0
    /// Mean system CPU seconds of a run: on this kind of VM mostly page faults.
    var systemSeconds: Double = 0
}

/// What every benchmark section gets: where the photographs are, how many runs, where the
/// binaries live, and a scratch folder for outputs.
struct BenchContext: Sendable {
    var photoDir: String
    var runs: Int
    /// Absolute path of the release `gallery` executable (ours, whole process).
    var galleryBinary: String
    var scratchDir: String
    /// Photos in the library section's synthetic library (`--photos N`). Default 100,000.
    var libraryPhotos = 100_000
    /// Rows of the search section's synthetic index (`--photos N`). Default 1,000,000.
    var searchPhotos = 1_000_000

    /// Files in `photoDir` whose names end with one of `extensions`, sorted.
    func photos(_ extensions: [String]) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: photoDir)) ?? []
        return names.filter { n in extensions.contains { n.lowercased().hasSuffix($0) } }.sorted().map { photoDir + "/" + $0 }
    }
}

/// Runs `argv` (argv[0] resolved on PATH) `runs` times, stdout to `stdoutPath` (or /dev/null),
/// and returns the median wall time, plus the peak RSS of one extra run under /usr/bin/time
/// when `peakRSS` is set (0 otherwise). Returns nil when the command cannot be started or
/// exits non-zero.
func measureProcess(_ argv: [String], runs: Int, stdoutPath: String = "/dev/null", peakRSS: Bool = false) -> Measurement? {
    var times: [Double] = []
    var user = 0.0, system = 0.0
    for _ in 0..<max(1, runs) {
        guard let run = runOnce(argv, stdoutPath: stdoutPath) else { return nil }
        times.append(run.wall)
        user += run.user
        system += run.system
    }
    times.sort()
    let peak = peakRSS ? (peakRSSKiB(argv, stdoutPath: stdoutPath) ?? 0) : 0
    let n = Double(times.count)
    return Measurement(medianSeconds: times[times.count / 2], peakRSSKiB: peak, runs: times.count,
                       userSeconds: user / n, systemSeconds: system / n)
}

/// Peak RSS of one run of `argv`, read by /usr/bin/time. wait4's own figure is no use here:
/// posix_spawn's child shares this process's memory until exec, and Linux carries our
/// high-water mark into the child's ru_maxrss, so a small child would report our size.
func peakRSSKiB(_ argv: [String], stdoutPath: String = "/dev/null") -> Int? {
    let out = NSTemporaryDirectory() + "gallery-bench-rss-\(getpid()).txt"
    defer { try? FileManager.default.removeItem(atPath: out) }
    guard runOnce(["/usr/bin/time", "-f", "%M", "-o", out] + argv, stdoutPath: stdoutPath) != nil,
          let text = try? String(contentsOfFile: out, encoding: .utf8) else { return nil }
    return text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
}

/// Starts `argv` (looked up on PATH) with stdout into `stdoutPath` and stderr discarded; nil
/// when it cannot start.
func spawnQuietly(_ argv: [String], stdoutPath: String = "/dev/null") -> pid_t? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ) == 0 else { return nil }
    return pid
}

/// Wall time and the child's own user and system CPU (wait4's rusage: its times are the
/// child's, unlike its ru_maxrss, see `peakRSSKiB`).
private func runOnce(_ argv: [String], stdoutPath: String) -> (wall: Double, user: Double, system: Double)? {
    let start = DispatchTime.now().uptimeNanoseconds
    guard let pid = spawnQuietly(argv, stdoutPath: stdoutPath) else { return nil }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid else { return nil }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else { return nil }
    func value(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return (seconds, value(usage.ru_utime), value(usage.ru_stime))
}

/// A plain-text table: a header row, then rows, columns padded to the widest cell.
struct Table {
    var title: String
    var columns: [String]
    var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = columns.map(\.count)
        for r in rows { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in c.padding(toLength: widths[min(i, widths.count - 1)], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        var out = "\n## \(title)\n" + line(columns) + "\n" + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for r in rows { out += line(r) + "\n" }
        return out
    }
}

func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }
func ratio(_ ours: Double, _ theirs: Double) -> String { String(format: "%.2fx", ours / theirs) }
func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
