import Foundation

/// The heic section's optional 200 MP row: a 480 px thumbnail of a camera-style grid the size
/// of Samsung's 200 MP photos (16320×12240 in 768 tiles of 512×512), by `gallery thumb` beside
/// `vipsthumbnail`, with CPU time and peak RSS above the idle process (target: 64 MiB, issue
/// #12). The file comes from `GALLERY_BENCH_HEIC_200MP` (a path); otherwise, when
/// `Tests/Fixtures/heic/tools/make_grid_photo.py` is found from the current directory and
/// ffmpeg has libx265, it is made in the scratch folder from the photo folder's first JPEG
/// (a few minutes on two busy cores; never kept). Without either the row is skipped.
enum HEICGridBench {
    static let generator = "Tests/Fixtures/heic/tools/make_grid_photo.py"

    static func run(_ context: BenchContext) {
        guard let photo = gridPhoto(context) else {
            print("\nheic 200 MP: skipped (set GALLERY_BENCH_HEIC_200MP=FILE, or run from the repository with ffmpeg + libx265 for \(generator))")
            return
        }
        let size = HEICBench.thumbSize
        let ours = context.scratchDir + "/grid200-ours.jpg", vips = context.scratchDir + "/grid200-vips.jpg"
        let oursArgv = [context.galleryBinary, "thumb", photo, ours, "--size", String(size)]
        let vipsArgv = ["vipsthumbnail", photo, "--size", String(size), "-o", vips + "[Q=82]"]
        // measureProcess runs each command `runs` times plus once under /usr/bin/time.
        var o: Measurement?, v: Measurement?
        let oursCPU = childCPUSeconds { o = measureProcess(oursArgv, runs: context.runs, peakRSS: true) } / Double(context.runs + 1)
        let vipsCPU = childCPUSeconds { v = measureProcess(vipsArgv, runs: context.runs, peakRSS: true) } / Double(context.runs + 1)
        let idle = peakRSSKiB([context.galleryBinary, "help"])
        let bytes = (try? FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int) ?? 0
        var table = Table(title: "HEIC 200 MP grid, \(size) px thumbnail (JPEG q82), whole process, median of \(context.runs) (RSS MiB)",
                          columns: ["photo", "MB", "ours ms", "ours CPU", "vips ms", "vips CPU", "ours/vips", "CPU ratio",
                                    "ours RSS", "extra RSS", "vips RSS", "ours/vips RSS"])
        var row = [String((photo as NSString).lastPathComponent.prefix(24)), String(format: "%.1f", Double(bytes) / 1e6)]
        row += [o.map { ms($0.medianSeconds) } ?? "fail", o == nil ? "-" : ms(oursCPU)]
        row += [v.map { ms($0.medianSeconds) } ?? "fail", v == nil ? "-" : ms(vipsCPU)]
        if let o, let v {
            row += [ratio(o.medianSeconds, v.medianSeconds), ratio(oursCPU, vipsCPU)]
        } else {
            row += ["-", "-"]
        }
        row.append(o.map { mib($0.peakRSSKiB) } ?? "-")
        if let o, let idle { row.append(mib(o.peakRSSKiB - idle)) } else { row.append("-") }
        row.append(v.map { mib($0.peakRSSKiB) } ?? "-")
        if let o, let v { row.append(ratio(Double(o.peakRSSKiB), Double(v.peakRSSKiB))) } else { row.append("-") }
        table.add(row)
        print(table.render(), terminator: "")
        if let idle { print("idle `gallery help` peak RSS: \(mib(idle)) MiB; target: extra RSS <= 64 MiB (issue #12)") }
    }

    /// The 200 MP file: the environment's, or one made in the scratch folder.
    private static func gridPhoto(_ context: BenchContext) -> String? {
        if let path = ProcessInfo.processInfo.environment["GALLERY_BENCH_HEIC_200MP"] {
            return FileManager.default.fileExists(atPath: path) ? path : nil
        }
        guard FileManager.default.fileExists(atPath: generator), let jpeg = context.photos([".jpg", ".jpeg"]).first else { return nil }
        let made = context.scratchDir + "/grid200.heic"
        print("\nheic 200 MP: making \(made) from \(jpeg) with \(generator)...")
        guard measureProcess(["python3", generator, jpeg, made], runs: 1) != nil else { return nil }
        return made
    }
}
