import Foundation
import ImageCodec

/// WebP decode, whole process: `gallery decode IN OUT.ppm|pam` beside `dwebp IN -ppm|-pam -o OUT`
/// (its default fancy upsampling, which ours reproduces), one run each. The WebP files are made
/// in the scratch folder from the photo folder's JPEGs and PNGs with `cwebp -q 80` (lossy) and
/// `cwebp -lossless -z 6` (lossless), plus any `.webp` already there. Reports median wall time, the
/// ratio ours/dwebp of wall time and of mean user CPU and of user + system CPU (system time is
/// mostly page faults: what each holds), megapixels per second, and whether the outputs are
/// byte-identical.
enum WebPDecodeBench {
    static func run(_ context: BenchContext) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cwebp") || context.photos([".webp"]).count > 0 else {
            print("\nwebp: no cwebp (Debian package webp) and no WebP files in \(context.photoDir)")
            return
        }
        var files = context.photos([".webp"]).map { ($0, "as found") }
        for source in context.photos([".jpg", ".jpeg", ".png"]) {
            let base = context.scratchDir + "/" + ((source as NSString).lastPathComponent as NSString).deletingPathExtension
            let lossy = base + ".q80.webp", lossless = base + ".lossless.webp"
            if measureProcess(["cwebp", "-quiet", "-q", "80", source, "-o", lossy], runs: 1) != nil { files.append((lossy, "lossy q80")) }
            if measureProcess(["cwebp", "-quiet", "-lossless", "-z", "6", source, "-o", lossless], runs: 1) != nil {
                files.append((lossless, "lossless z6"))
            }
        }
        var table = Table(title: "WebP decode, whole process, median of \(context.runs) runs (ours = gallery decode, ref = dwebp)",
                          columns: ["file", "kind", "MP", "ours ms", "dwebp ms", "ours/dwebp", "user", "user+sys", "ours MP/s", "dwebp MP/s", "identical"])
        var ratios: [String: [(wall: Double, user: Double, cpu: Double)]] = [:]
        for (file, kind) in files {
            guard let bytes = FileManager.default.contents(atPath: file), let info = try? ImageCodec.probe([UInt8](bytes)) else {
                table.add([(file as NSString).lastPathComponent, "probe failed"])
                continue
            }
            let megapixels = Double(info.width * info.height) / 1e6
            let ext = info.hasAlpha ? "pam" : "ppm"
            let ours = context.scratchDir + "/ours.\(ext)", reference = context.scratchDir + "/dwebp.\(ext)"
            let oursRun = measureProcess([context.galleryBinary, "decode", file, ours], runs: context.runs)
            let refRun = measureProcess(["dwebp", "-quiet", file, "-\(ext)", "-o", reference], runs: context.runs)
            var row = [String((file as NSString).lastPathComponent.prefix(40)), kind, String(format: "%.2f", megapixels)]
            if let o = oursRun, let r = refRun {
                let family = kind.hasPrefix("lossless") ? "lossless" : "lossy"
                ratios[family, default: []].append((o.medianSeconds / r.medianSeconds, o.userSeconds / r.userSeconds,
                                                    (o.userSeconds + o.systemSeconds) / (r.userSeconds + r.systemSeconds)))
                row += [ms(o.medianSeconds), ms(r.medianSeconds), ratio(o.medianSeconds, r.medianSeconds),
                        ratio(o.userSeconds, r.userSeconds), ratio(o.userSeconds + o.systemSeconds, r.userSeconds + r.systemSeconds),
                        String(format: "%.0f", megapixels / o.medianSeconds), String(format: "%.0f", megapixels / r.medianSeconds),
                        samePixels(ours, reference) ? "yes" : "NO"]
            } else {
                row += [oursRun == nil ? "failed" : "-", refRun == nil ? "dwebp failed" : "-"]
            }
            table.add(row)
            try? FileManager.default.removeItem(atPath: ours)
            try? FileManager.default.removeItem(atPath: reference)
        }
        for (family, r) in ratios.sorted(by: { $0.key < $1.key }) where !r.isEmpty {
            func geomean(_ values: [Double]) -> String {
                String(format: "%.2fx", exp(values.map { log($0) }.reduce(0, +) / Double(values.count)))
            }
            table.add(["geometric mean", family, "", "", "", geomean(r.map(\.wall)), geomean(r.map(\.user)), geomean(r.map(\.cpu))])
        }
        print(table.render())
    }

    /// Same samples after the Netpbm headers (the two writers format headers differently).
    private static func samePixels(_ a: String, _ b: String) -> Bool {
        guard let x = FileManager.default.contents(atPath: a), let y = FileManager.default.contents(atPath: b) else { return false }
        func body(_ d: Data) -> Data {
            if let r = d.range(of: Data("ENDHDR\n".utf8)) { return d[r.upperBound...] }
            var fields = 0, i = d.startIndex
            let space: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]
            while fields < 4 && i < d.endIndex {
                while i < d.endIndex && space.contains(d[i]) { i += 1 }
                while i < d.endIndex && !space.contains(d[i]) { i += 1 }
                fields += 1
            }
            return i < d.endIndex ? d[(i + 1)...] : Data()
        }
        return body(x) == body(y)
    }
}
