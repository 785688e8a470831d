import Foundation
import ImageCodec

/// JPEG decode, whole process: `gallery decode IN OUT.ppm --scale M/8` beside
/// `djpeg -dct int [-scale M/8] -outfile OUT IN`, at 8/8 and 1/8, for every JPEG in the photo
/// folder. Reports median wall time, the ratio ours/djpeg, mean user CPU time of both and its
/// ratio (steadier than wall time on a shared machine), source megapixels per second, peak
/// RSS of both, our RSS above an empty run of the same binary (`gallery help`), and whether the
/// two outputs are byte-identical (they should be: we match djpeg's IDCT, upsampling and colour).
enum JPEGDecodeBench {
    static func run(_ context: BenchContext) {
        let files = context.photos([".jpg", ".jpeg"])
        guard !files.isEmpty else {
            print("\njpeg: no JPEG files in \(context.photoDir)")
            return
        }
        guard let empty = measureProcess([context.galleryBinary, "help"], runs: 1, peakRSS: true) else {
            print("\njpeg: cannot run \(context.galleryBinary) (build it with swift build -c release)")
            return
        }
        var table = Table(title: "JPEG decode, whole process, median of \(context.runs) (ours = gallery decode, ref = djpeg -dct int; empty run \(mib(empty.peakRSSKiB)) MiB)",
                          columns: ["file", "kind", "MP", "scale", "ours ms", "djpeg ms", "ours/djpeg",
                                    "ours user ms", "djpeg user ms", "user ours/djpeg", "ours MP/s", "djpeg MP/s",
                                    "ours RSS MiB", "djpeg RSS MiB", "ours extra MiB", "identical"])
        var ratios: [Int: [Double]] = [:], userRatios: [Int: [Double]] = [:]
        for file in files {
            let name = (file as NSString).lastPathComponent
            guard let info = probe(file) else {
                table.add([short(name), "probe failed"])
                continue
            }
            let megapixels = Double(info.width * info.height) / 1e6
            for m in [8, 1] {
                let ours = context.scratchDir + "/ours-\(m).ppm"
                let reference = context.scratchDir + "/djpeg-\(m).ppm"
                let oursRun = measureProcess([context.galleryBinary, "decode", file, ours, "--scale", "\(m)/8"], runs: context.runs, peakRSS: true)
                let refRun = measureProcess(["djpeg", "-dct", "int"] + (m == 8 ? [] : ["-scale", "\(m)/8"]) + ["-outfile", reference, file],
                                            runs: context.runs, peakRSS: true)
                var row = [short(name), kind(info), String(format: "%.2f", megapixels), "\(m)/8"]
                switch (oursRun, refRun) {
                case let (o?, r?):
                    ratios[m, default: []].append(o.medianSeconds / r.medianSeconds)
                    userRatios[m, default: []].append(o.userSeconds / max(r.userSeconds, 1e-6))
                    row += [ms(o.medianSeconds), ms(r.medianSeconds), ratio(o.medianSeconds, r.medianSeconds),
                            ms(o.userSeconds), ms(r.userSeconds), ratio(o.userSeconds, max(r.userSeconds, 1e-6)),
                            String(format: "%.0f", megapixels / o.medianSeconds), String(format: "%.0f", megapixels / r.medianSeconds),
                            mib(o.peakRSSKiB), mib(r.peakRSSKiB), mib(max(0, o.peakRSSKiB - empty.peakRSSKiB)),
                            identical(ours, reference) ? "yes" : "NO"]
                case (nil, _):
                    row += ["failed"]
                case (_, nil):
                    row += ["-", "djpeg failed"]
                }
                table.add(row)
                try? FileManager.default.removeItem(atPath: ours)
                try? FileManager.default.removeItem(atPath: reference)
            }
        }
        func geomean(_ r: [Double]) -> String { String(format: "%.2fx", exp(r.map { log($0) }.reduce(0, +) / Double(r.count))) }
        for m in [8, 1] {
            guard let r = ratios[m], !r.isEmpty, let u = userRatios[m] else { continue }
            table.add(["geometric mean", "", "", "\(m)/8", "", "", geomean(r), "", "", geomean(u)])
        }
        print(table.render())
    }

    /// "baseline 4:2:0", "progressive 4:4:4", "baseline gray", ...
    private static func kind(_ info: ImageInfo) -> String {
        let mode = info.progressive ? "progressive" : "baseline"
        let subsampling: String
        switch info.sampling.first {
        case _ where info.components == 1: subsampling = "gray"
        case "1x1": subsampling = "4:4:4"
        case "2x1": subsampling = "4:2:2"
        case "2x2": subsampling = "4:2:0"
        case "1x2": subsampling = "4:4:0"
        case "4x1": subsampling = "4:1:1"
        default: subsampling = info.sampling.joined(separator: ",")
        }
        let color = info.colorSpace == "YCbCr" || info.components == 1 ? "" : " " + info.colorSpace
        return "\(mode) \(subsampling)\(color)"
    }

    private static func short(_ name: String) -> String {
        name.count <= 28 ? name : String(name.prefix(25)) + "..."
    }

    /// Header-only probe reading at most the first 4 MiB, so this process stays small.
    private static func probe(_ path: String) -> ImageInfo? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4 << 20) else { return nil }
        return try? ImageCodec.probe([UInt8](head))
    }

    /// Byte-for-byte comparison in 1 MiB chunks (outputs are up to ~70 MB).
    private static func identical(_ a: String, _ b: String) -> Bool {
        guard let x = FileHandle(forReadingAtPath: a), let y = FileHandle(forReadingAtPath: b) else { return false }
        defer { try? x.close(); try? y.close() }
        while true {
            let p = (try? x.read(upToCount: 1 << 20)) ?? nil
            let q = (try? y.read(upToCount: 1 << 20)) ?? nil
            if p != q { return false }
            if p == nil || p?.isEmpty == true { return true }
        }
    }
}
