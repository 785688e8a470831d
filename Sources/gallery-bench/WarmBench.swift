import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The warm section: a static build of the 8 largest photos of the folder at sigal's default
/// sizes (thumbnail 280×210 cropped, image fit in 800×600), ours (`gallery warm --root --out`,
/// one decode per photo) beside sigal 2.6.1 (PIL) in the same run. Both run on every core
/// (sigal's default process pool, our default thread count) and write JPEG quality 85
/// (sigal's default). Wall time and CPU time (user + system of the whole process tree), and
/// peak memory as the largest sum of the RSS of the process and its children, sampled every
/// 5 ms from /proc (sigal works in several processes; our warm in one). Up to 5 runs of each,
/// alternating between the two tools; medians.
/// sigal is looked for in $SIGAL, /tmp/sigal-venv/bin/sigal, then PATH.
enum WarmBench {
    static let sizes = "280x210,800"

    static func run(_ context: BenchContext) {
        let photos = context.photos([".jpg", ".jpeg", ".png"])
            .sorted { fileSize($0) > fileSize($1) }.prefix(8)
        guard !photos.isEmpty else { print("\n## warm\nno photos in \(context.photoDir)"); return }
        let dir = context.scratchDir + "/warm"
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.createDirectory(atPath: dir + "/photos/album", withIntermediateDirectories: true)
        for photo in photos {
            let target = dir + "/photos/album/" + (photo as NSString).lastPathComponent
            if link(photo, target) != 0 { try? FileManager.default.copyItem(atPath: photo, toPath: target) }
        }
        let totalMB = Double(photos.map(fileSize).reduce(0, +)) / 1e6
        var table = Table(title: "warm: \(photos.count) photos (\(String(format: "%.1f", totalMB)) MB) at 280x210 crop + 800x600 fit, JPEG q85, whole process trees, median of \(min(5, max(1, context.runs))) runs, alternating",
                          columns: ["tool", "wall s", "CPU s", "peak RSS MiB", "wall vs sigal", "CPU vs sigal", "RSS vs sigal"])
        let runs = min(5, max(1, context.runs))
        let oursArgv = { () -> [String] in
            try? FileManager.default.removeItem(atPath: dir + "/ours")
            return [context.galleryBinary, "warm", "--root", dir + "/photos", "--sizes", sizes, "--out", dir + "/ours", "--quality", "85"]
        }
        guard let sigal = findSigal() else {
            guard let ours = measureTree(runs: runs, oursArgv) else { print(table.render() + "ours failed to run"); return }
            table.add(["ours (gallery warm --root)", f(ours.wall), f(ours.cpu), mib(ours.peakKiB), "-", "-", "-"])
            print(table.render(), terminator: "")
            print("sigal skipped: not installed (python3 -m venv /tmp/sigal-venv && /tmp/sigal-venv/bin/pip install sigal==2.6.1)")
            return
        }
        let config = dir + "/sigal.conf.py"
        try? """
        source = '\(dir)/photos'
        destination = '\(dir)/sigal'
        thumb_size = (280, 210)
        img_size = (800, 600)
        jpg_options = {'quality': 85, 'optimize': True, 'progressive': True}
        keep_orig = False
        zip_gallery = False
        write_html = False
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let sigalArgv = { () -> [String] in
            try? FileManager.default.removeItem(atPath: dir + "/sigal")
            return [sigal, "build", "-c", config, "-f", dir + "/photos", dir + "/sigal"]
        }
        // Runs alternate (ours, sigal, ours, ...) so that a change in the machine's load hits
        // both tools alike instead of one tool's whole series.
        guard let (ours, theirs) = measurePair(runs: runs, oursArgv, sigalArgv) else {
            print(table.render() + "a tool failed to run"); return
        }
        table.add(["ours (gallery warm --root)", f(ours.wall), f(ours.cpu), mib(ours.peakKiB),
                   ratio(ours.wall, theirs.wall), ratio(ours.cpu, theirs.cpu), ratio(Double(ours.peakKiB), Double(theirs.peakKiB))])
        table.add(["sigal 2.6.1", f(theirs.wall), f(theirs.cpu), mib(theirs.peakKiB), "1.00x", "1.00x", "1.00x"])
        print(table.render(), terminator: "")
        let written = ((try? FileManager.default.subpathsOfDirectory(atPath: dir + "/ours")) ?? []).filter { $0.hasSuffix(".jpg") }.count
        print("ours wrote \(written) files; targets: wall ≤ 0.25x and peak RSS ≤ 0.25x of sigal's")
    }

    struct TreeRun { var wall: Double; var cpu: Double; var peakKiB: Int }

    /// `measureTree` for two commands, their runs interleaved.
    static func measurePair(runs: Int, _ a: () -> [String], _ b: () -> [String]) -> (TreeRun, TreeRun)? {
        var first: [TreeRun] = [], second: [TreeRun] = []
        for _ in 0..<runs {
            guard let x = runTree(a()), let y = runTree(b()) else { return nil }
            first.append(x)
            second.append(y)
        }
        return (summary(first), summary(second))
    }

    /// Median wall and CPU time, and the largest peak tree RSS seen.
    static func summary(_ all: [TreeRun]) -> TreeRun {
        let walls = all.map(\.wall).sorted(), cpus = all.map(\.cpu).sorted()
        return TreeRun(wall: walls[walls.count / 2], cpu: cpus[cpus.count / 2], peakKiB: all.map(\.peakKiB).max() ?? 0)
    }

    /// Median wall and CPU time over `runs`, and the largest peak tree RSS seen.
    static func measureTree(runs: Int, _ argv: () -> [String]) -> TreeRun? {
        var all: [TreeRun] = []
        for _ in 0..<runs {
            guard let r = runTree(argv()) else { return nil }
            all.append(r)
        }
        return summary(all)
    }

    /// One run: spawn, sample the tree's RSS until it exits, wait4 for its CPU time.
    static func runTree(_ argv: [String]) -> TreeRun? {
        let start = DispatchTime.now().uptimeNanoseconds
        guard let pid = spawnQuietly(argv) else { return nil }
        var peak = 0
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let done = wait4(pid, &status, WNOHANG, &usage)
            if done == pid { break }
            if done < 0 && errno != EINTR { return nil }
            peak = max(peak, treeRSSKiB(pid))
            usleep(5000)
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else { return nil }
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return TreeRun(wall: wall, cpu: cpu, peakKiB: peak)
    }

    /// Sum of the resident set of `root` and every process below it.
    ///
    /// Follows `/proc/PID/task/TID/children` down from `root` and reads each process's
    /// `statm`, with plain reads into a stack buffer: a few files per sample. Scanning all of
    /// `/proc` every 5 ms took about a third of a core on a 2-core machine, which slowed the
    /// tool that used both cores (ours) more than the one that did not.
    static func treeRSSKiB(_ root: pid_t) -> Int {
        let pageKiB = Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
        var total = 0
        var pending = [root]
        var seen = 0
        while let pid = pending.popLast(), seen < 4096 {
            seen += 1
            // statm: size resident shared ... (pages); the second field is the RSS.
            if let statm = readSmallFile("/proc/\(pid)/statm") {
                let fields = statm.split(separator: 32, maxSplits: 2)
                if fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) { total += pages * pageKiB }
            }
            guard let tasks = opendir("/proc/\(pid)/task") else { continue }
            while let entry = readdir(tasks) {
                let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard tid.first?.isNumber == true, let list = readSmallFile("/proc/\(pid)/task/\(tid)/children") else { continue }
                for child in list.split(separator: 32) {
                    if let c = pid_t(String(decoding: child, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) { pending.append(c) }
                }
            }
            closedir(tasks)
        }
        return total
    }

    /// Up to 4 KiB of a /proc file, or nil when it cannot be read (the process has exited).
    static func readSmallFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? Array(buffer[..<n]) : nil
    }

    static func findSigal() -> String? {
        var candidates = [ProcessInfo.processInfo.environment["SIGAL"], "/tmp/sigal-venv/bin/sigal"].compactMap { $0 }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { $0 + "/sigal" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    static func f(_ x: Double) -> String { String(format: "%.2f", x) }
}
