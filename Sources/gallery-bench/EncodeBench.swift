import Foundation
import ImageCodec

/// JPEG encoding against cjpeg, and resize throughput against Pillow.
///
/// Encoding: ours is timed in-process (median over the runs, after one warm-up call); cjpeg is
/// a whole process, so its start-up (measured as cjpeg on a 1×1 image) is subtracted. Both raw
/// figures are printed. The machine is shared, so CPU time is printed beside wall time (ours:
/// the thread's CPU clock, median; cjpeg: the children's user+sys from getrusage, mean) and
/// the CPU ratio is the one to trust when the load is high. Inputs are PPMs in the scratch folder made from a bench photo: djpeg
/// at 1/2 scale for 1920 px, then our resampler down to 480 px.
/// Resize: in-process CPU time on both sides (Pillow's `resize` timed inside Python with
/// `process_time`), in MP of input per CPU second.
enum EncodeBench {
    static func run(_ context: BenchContext) {
        guard let base = preparePhoto(context, name: "mate_Elephants_3840x2160.jpg", scale: "1/2", tag: "1920") else {
            print("encode: skipped (djpeg or the Elephants photo is missing)")
            return
        }
        encodeTable(context, base: base)
        resizeTable(context)
    }

    // MARK: Encoding

    private static func encodeTable(_ context: BenchContext, base: Bitmap) {
        guard let small = try? Resampler.resize(base, width: 480, height: 270) else { return }
        var inputs: [(String, Bitmap, String)] = []
        for (label, bitmap) in [("480x270", small), ("\(base.width)x\(base.height)", base)] {
            let path = context.scratchDir + "/encode_\(label).ppm"
            guard writePPM(bitmap, to: path) else { return }
            inputs.append((label, bitmap, path))
        }
        let tiny = context.scratchDir + "/encode_1x1.ppm"
        guard let one = try? Bitmap(width: 1, height: 1, layout: .rgb), writePPM(one, to: tiny),
              let startup = measureProcess(["cjpeg", "-quality", "82", "-outfile", context.scratchDir + "/startup.jpg", tiny], runs: context.runs)
        else {
            print("encode: skipped (cjpeg is missing)")
            return
        }
        let startupCPU = childCPUSeconds { _ = measureProcess(["cjpeg", "-quality", "82", "-outfile", context.scratchDir + "/startup.jpg", tiny], runs: context.runs) } / Double(context.runs)
        var table = Table(title: "JPEG encode q82: ours in-process vs cjpeg process minus start-up (\(ms(startup.medianSeconds)) ms wall, \(ms(startupCPU)) ms CPU)",
                          columns: ["image", "mode", "ours ms", "cjpeg ms", "cjpeg raw ms", "wall ratio", "ours CPU ms", "cjpeg CPU ms", "CPU ratio",
                                    "ours B", "cjpeg B", "size ratio"])
        let modes: [(String, JPEGEncoder.Subsampling, Bool, [String])] = [
            ("4:2:0", .s420, false, ["-sample", "2x2"]),
            ("4:4:4", .s444, false, ["-sample", "1x1"]),
            ("4:2:0 opt", .s420, true, ["-sample", "2x2", "-optimize"]),
        ]
        for (label, bitmap, path) in inputs {
            for (modeName, sub, optimize, flags) in modes {
                let out = context.scratchDir + "/cjpeg.jpg"
                var measured: Measurement?
                let theirCPU = childCPUSeconds {
                    measured = measureProcess(["cjpeg", "-quality", "82"] + flags + ["-outfile", out, path], runs: context.runs)
                } / Double(context.runs)
                guard let theirs = measured, let theirBytes = FileManager.default.contents(atPath: out)?.count else { continue }
                var size = 0
                let (ours, oursCPU) = medianSeconds(runs: max(context.runs, label == "480x270" ? 15 : 3)) {
                    size = (try? JPEGEncoder.encode(bitmap, quality: 82, subsampling: sub, optimizeHuffman: optimize))?.count ?? 0
                }
                let net = max(theirs.medianSeconds - startup.medianSeconds, 1e-6)
                let netCPU = max(theirCPU - startupCPU, 1e-6)
                // Start-up dominates a small image's wall time; under load the difference is noise.
                let wallRatio = net > 0.2 * theirs.medianSeconds ? ratio(ours, net) : "noisy"
                table.add([label, modeName, ms(ours), ms(net), ms(theirs.medianSeconds), wallRatio,
                           ms(oursCPU), ms(netCPU), ratio(oursCPU, netCPU),
                           "\(size)", "\(theirBytes)", String(format: "%.4f", Double(size) / Double(theirBytes))])
            }
        }
        print(table.render(), terminator: "")
    }

    // MARK: Resize

    private static func resizeTable(_ context: BenchContext) {
        var table = Table(title: "Resize throughput, Lanczos-3, in-process CPU time: ours vs Pillow LANCZOS",
                          columns: ["case", "input MP", "ours wall ms", "ours CPU ms", "ours MP/s", "Pillow CPU ms", "Pillow MP/s", "CPU ratio"])
        var cases: [(String, Bitmap, Int, Int)] = []
        if let rain = preparePhoto(context, name: "lxqt_after-the-rain.jpg", scale: "1/1", tag: "6mp") {
            let plan = ResizeMode.fit(maxEdge: 1920).plan(width: rain.width, height: rain.height)
            cases.append(("6 MP -> 1920 px", rain, plan.scaledWidth, plan.scaledHeight))
        }
        if let elephants = preparePhoto(context, name: "derived_Elephants_5640x3172_baseline420_q90.jpg", scale: "1/1", tag: "18mp"),
           let big = try? Resampler.resize(elephants, width: 6000, height: 4000) {
            cases.append(("24 MP -> 480 px", big, 480, 320))
        }
        for (name, bitmap, w, h) in cases {
            let mp = Double(bitmap.width * bitmap.height) / 1e6
            let (ours, oursCPU) = medianSeconds(runs: context.runs) { _ = try? Resampler.resize(bitmap, width: w, height: h) }
            var pillowCell = "-", pillowRate = "-", ratioCell = "-"
            let path = context.scratchDir + "/resize_input.ppm"
            if writePPM(bitmap, to: path), let pillow = pillowResizeSeconds(path, w, h, runs: context.runs) {
                pillowCell = ms(pillow)
                pillowRate = String(format: "%.0f", mp / pillow)
                ratioCell = ratio(oursCPU, pillow)
            }
            table.add([name, String(format: "%.1f", mp), ms(ours), ms(oursCPU), String(format: "%.0f", mp / oursCPU),
                       pillowCell, pillowRate, ratioCell])
        }
        print(table.render(), terminator: "")
    }

    private static func pillowResizeSeconds(_ path: String, _ w: Int, _ h: Int, runs: Int) -> Double? {
        let script = """
            import sys, time
            from PIL import Image
            im = Image.open(sys.argv[1]); im.load()
            f = getattr(Image, 'Resampling', Image).LANCZOS
            times = []
            for _ in range(int(sys.argv[4])):
                t = time.process_time(); im.resize((int(sys.argv[2]), int(sys.argv[3])), f); times.append(time.process_time() - t)
            times.sort(); print(times[len(times) // 2])
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path, "\(w)", "\(h)", "\(max(runs, 1))"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: Helpers

    /// Decodes a bench photo with djpeg at `scale` into the scratch folder and reads it back.
    private static func preparePhoto(_ context: BenchContext, name: String, scale: String, tag: String) -> Bitmap? {
        let source = context.photoDir + "/" + name
        guard FileManager.default.fileExists(atPath: source) else { return nil }
        let out = context.scratchDir + "/photo_\(tag).ppm"
        guard measureProcess(["djpeg", "-scale", scale, "-outfile", out, source], runs: 1) != nil else { return nil }
        return readPPM(out)
    }
}
