import Foundation
import ImageCodec

/// PNG decode (and encode) against libpng and Pillow, in the same run.
///
/// - Photographic PNGs from the photo folder: ours as a whole process (`gallery decode IN
///   OUT.pam`, when the CLI exists; libpng's PNM goes to /dev/null) and in-process (full and 1/8), libpng as `pngtopnm`
///   (netpbm, whole process), and Pillow (`Image.open().load()`, raw and with the Python +
///   PIL import startup subtracted). Pillow inflates and unfilters in its own C code, not
///   libpng, so it is a second reference rather than "libpng".
/// - Small files: every valid PngSuite file decoded in one process, ours in-process against
///   Pillow in one Python process, both per-file means.
/// - Encode: a 1920×1280 crop of a photo, ours at level 6 against Pillow's `save` at
///   compress_level 6 (both timed in-process), with output sizes.
enum PNGDecodeBench {
    static func run(_ context: BenchContext) {
        let photos = context.photos([".png"])
        var table = Table(title: "PNG decode (median of \(context.runs); ratio = ours / reference)",
                          columns: ["file", "tool", "ms", "peak MiB", "ratio vs libpng", "ratio vs Pillow-net"])
        let python = "/usr/bin/python3"
        let pillowStartup = measureProcess([python, "-c", "from PIL import Image"], runs: context.runs)
        for path in photos {
            let name = (path as NSString).lastPathComponent
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            let libpng = measureProcess(["pngtopnm", path], runs: context.runs)
            let pillowArgv = [python, "-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).load()", path]
            let pillow = measureProcess(pillowArgv, runs: context.runs)
            let pillowNet = pillow.map { p in max(0.0001, p.medianSeconds - (pillowStartup?.medianSeconds ?? 0)) }
            func row(_ tool: String, _ seconds: Double?, _ argv: [String]?) {
                let rss = argv.flatMap { peakRSSKiB($0, context: context) }
                guard let seconds else { table.add([name, tool, "n/a", "n/a", "", ""]); return }
                table.add([name, tool, ms(seconds), rss.map(mib) ?? "-",
                           libpng.map { ratio(seconds, $0.medianSeconds) } ?? "-",
                           pillowNet.map { ratio(seconds, $0) } ?? "-"])
            }
            let ourArgv = [context.galleryBinary, "decode", path, context.scratchDir + "/ours.pam"]
            let process = measureProcess(ourArgv, runs: context.runs)
            row("ours (gallery decode, process)", process?.medianSeconds, ourArgv)
            let reducedArgv = [context.galleryBinary, "decode", path, context.scratchDir + "/ours8.pam", "--scale", "1/8"]
            row("ours (gallery decode --scale 1/8)", measureProcess(reducedArgv, runs: context.runs)?.medianSeconds, reducedArgv)
            let probeArgv = [context.galleryBinary, "probe", path]
            row("ours (gallery probe: process floor)", measureProcess(probeArgv, runs: context.runs)?.medianSeconds, probeArgv)
            row("ours (in-process, full)", inProcess(runs: context.runs) { _ = try ImageCodec.decode(bytes) }, nil)
            row("ours (in-process, 1/8)", inProcess(runs: context.runs) { _ = try ImageCodec.decode(bytes, scale: .eighth) }, nil)
            row("libpng (pngtopnm, process)", libpng?.medianSeconds, ["pngtopnm", path])
            row("Pillow (process, raw)", pillow?.medianSeconds, pillowArgv)
            row("Pillow (startup subtracted)", pillowNet, nil)
        }
        if let startup = pillowStartup {
            let rss = peakRSSKiB([python, "-c", "from PIL import Image"], context: context)
            table.add(["-", "python3 + PIL import (startup)", ms(startup.medianSeconds), rss.map(mib) ?? "-", "", ""])
        }
        print(table.render())
        for path in photos { print(identityLine(path, context: context)) }
        smallFiles(context)
        encode(context, photos: photos)
    }

    /// Whether our pixels equal libpng's (pngtopnm writes a PPM/PGM/PAM; its payload must be
    /// our RGB bytes), so the timing rows compare equal work.
    static func identityLine(_ path: String, context: BenchContext) -> String {
        let name = (path as NSString).lastPathComponent
        let out = context.scratchDir + "/identity.pnm"
        guard measureProcess(["pngtopnm", path], runs: 1, stdoutPath: out) != nil,
              let pnm = FileManager.default.contents(atPath: out).map({ [UInt8]($0) }),
              let data = FileManager.default.contents(atPath: path),
              let ours = try? ImageCodec.decode([UInt8](data)).bitmap, !ours.layout.hasAlpha else {
            return "\(name): pixel identity with libpng not checked"
        }
        let payload = pnm.suffix(ours.pixels.count)
        return "\(name): our pixels \(payload.elementsEqual(ours.pixels) ? "==" : "!=") libpng's (pngtopnm)"
    }

    /// Peak RSS of one run under /usr/bin/time. measureProcess's figure is not used here:
    /// posix_spawn shares this process's memory until exec, and Linux then carries our own
    /// high-water mark into the child's ru_maxrss, so small children report our size.
    static func peakRSSKiB(_ argv: [String], context: BenchContext) -> Int? {
        let out = context.scratchDir + "/rss.txt"
        guard measureProcess(["/usr/bin/time", "-o", out, "-f", "%M"] + argv, runs: 1) != nil,
              let text = try? String(contentsOfFile: out, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last ?? "")
    }

    /// Median wall time of `body` over `runs` runs; nil when it throws.
    static func inProcess(runs: Int, _ body: () throws -> Void) -> Double? {
        var times: [Double] = []
        for _ in 0..<max(1, runs) {
            let start = DispatchTime.now().uptimeNanoseconds
            do { try body() } catch { return nil }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        times.sort()
        return times[times.count / 2]
    }

    /// The valid PngSuite files (Tests/Fixtures/png/pngsuite, found from this source file).
    static func suiteFiles() -> [String] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let dir = url.appendingPathComponent("Tests/Fixtures/png/pngsuite").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".png") && !$0.hasPrefix("x") }.sorted().map { dir + "/" + $0 }
    }

    private static func smallFiles(_ context: BenchContext) {
        let files = suiteFiles()
        guard !files.isEmpty else { print("\n(PngSuite fixtures not found; small-file bench skipped)"); return }
        let inputs = files.compactMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } }
        let ours = inProcess(runs: context.runs) { for b in inputs { _ = try ImageCodec.decode(b) } }
        let script = """
        import sys, time
        from PIL import Image
        names = sys.argv[1:]
        best = []
        for _ in range(\(max(1, context.runs))):
            t = time.perf_counter()
            for n in names:
                Image.open(n).load()
            best.append(time.perf_counter() - t)
        best.sort()
        print(best[len(best) // 2])
        """
        let pillow = pythonSeconds(script, arguments: files, context: context)
        var table = Table(title: "PNG small files: \(inputs.count) PngSuite files per batch, in-process",
                          columns: ["tool", "batch ms", "per file µs", "ratio"])
        for (tool, t) in [("ours", ours), ("Pillow (file open + load)", pillow)] {
            guard let t else { table.add([tool, "n/a", "n/a", ""]); continue }
            table.add([tool, ms(t), String(format: "%.1f", t * 1e6 / Double(inputs.count)),
                       (ours != nil && pillow != nil) ? ratio(t, pillow!) : "-"])
        }
        print(table.render())
    }

    private static func encode(_ context: BenchContext, photos: [String]) {
        guard let path = photos.first, let data = FileManager.default.contents(atPath: path),
              let decoded = try? ImageCodec.decode([UInt8](data)).bitmap,
              let source = try? decoded.cropped(x: 0, y: 0, width: min(1920, decoded.width), height: min(1280, decoded.height)) else {
            print("\n(no photographic PNG; encode bench skipped)"); return
        }
        var encoded: [UInt8] = []
        let ours = inProcess(runs: context.runs) { encoded = try PNGEncoder.encode(source, compressionLevel: 6) }
        let rawPath = context.scratchDir + "/encode-source.rgb"
        guard FileManager.default.createFile(atPath: rawPath, contents: Data(source.pixels)) else {
            print("\n(cannot write \(rawPath); encode bench skipped)"); return
        }
        let outPath = context.scratchDir + "/pillow.png"
        let script = """
        import sys, time, os
        from PIL import Image
        w, h = int(sys.argv[2]), int(sys.argv[3])
        im = Image.frombytes('RGB', (w, h), open(sys.argv[1], 'rb').read())
        times = []
        for _ in range(\(max(1, context.runs))):
            t = time.perf_counter()
            im.save(sys.argv[4], compress_level=6)
            times.append(time.perf_counter() - t)
        times.sort()
        print(times[len(times) // 2], os.path.getsize(sys.argv[4]))
        """
        let pillow = pythonOutput(script, arguments: [rawPath, "\(source.width)", "\(source.height)", outPath], context: context)
        var table = Table(title: "PNG encode \(source.width)x\(source.height) RGB (level 6), in-process",
                          columns: ["tool", "ms", "bytes", "ratio (time)", "ratio (size)"])
        let pillowFields = pillow?.split(separator: " ").compactMap { Double($0) } ?? []
        let pillowTime = pillowFields.first, pillowSize = pillowFields.count > 1 ? pillowFields[1] : nil
        table.add(["ours", ours.map(ms) ?? "n/a", "\(encoded.count)",
                   (ours != nil && pillowTime != nil) ? ratio(ours!, pillowTime!) : "-",
                   pillowSize.map { String(format: "%.3f", Double(encoded.count) / $0) } ?? "-"])
        table.add(["Pillow save", pillowTime.map(ms) ?? "n/a", pillowSize.map { String(Int($0)) } ?? "n/a", "", ""])
        print(table.render())
    }

    private static func pythonSeconds(_ script: String, arguments: [String], context: BenchContext) -> Double? {
        pythonOutput(script, arguments: arguments, context: context).flatMap { Double($0) }
    }

    /// Runs a Python script once and returns its trimmed stdout.
    private static func pythonOutput(_ script: String, arguments: [String], context: BenchContext) -> String? {
        let out = context.scratchDir + "/python-out.txt"
        guard measureProcess(["/usr/bin/python3", "-c", script] + arguments, runs: 1, stdoutPath: out) != nil,
              let text = try? String(contentsOfFile: out, encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
