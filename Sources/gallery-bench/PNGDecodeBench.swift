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
        var table = Table(title: "PNG decode (median of \(context.runs); ratio = ours / reference; process rows against process rows, in-process against in-process)",
                          columns: ["file", "tool", "ms", "peak MiB", "vs pngtopnm", "vs libpng C", "vs Pillow-net"])
        let python = "/usr/bin/python3"
        let pillowStartup = measureProcess([python, "-c", "from PIL import Image"], runs: context.runs)
        let libpngTool = buildLibpngHarness(context)
        var cpuTable = Table(title: "PNG decode CPU time in-process (median of \(context.runs); steadier than wall time on a busy machine)",
                             columns: ["file", "ours full ms", "ours 1/8 ms", "libpng C ms", "ours full / libpng"])
        for path in photos {
            let name = (path as NSString).lastPathComponent
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            let pngtopnm = measureProcess(["pngtopnm", path], runs: context.runs)
            let libpngArgv = libpngTool.map { [$0, path, "1", context.scratchDir + "/libpng.pam"] }
            let libpngProcess = libpngArgv.flatMap { measureProcess($0, runs: context.runs) }
            let libpngTimes = libpngTool.map { commandNumbers([$0, path, "\(context.runs)"], context: context) } ?? []
            let libpngInProcess = libpngTimes.first
            let oursCPU = cpuTime(runs: context.runs) { _ = try ImageCodec.decode(bytes) }
            let oursCPU8 = cpuTime(runs: context.runs) { _ = try ImageCodec.decode(bytes, scale: .eighth) }
            let libpngCPU = libpngTimes.count > 1 ? libpngTimes[1] : nil
            cpuTable.add([name, oursCPU.map(ms) ?? "n/a", oursCPU8.map(ms) ?? "n/a", libpngCPU.map(ms) ?? "n/a",
                          (oursCPU != nil && libpngCPU != nil) ? ratio(oursCPU!, libpngCPU!) : "-"])
            let pillowArgv = [python, "-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).load()", path]
            let pillow = measureProcess(pillowArgv, runs: context.runs)
            let pillowNet = pillow.map { p in max(0.0001, p.medianSeconds - (pillowStartup?.medianSeconds ?? 0)) }
            func row(_ tool: String, _ seconds: Double?, _ argv: [String]?, inProcess: Bool) {
                let rss = argv.flatMap { peakRSSKiB($0, context: context) }
                guard let seconds else { table.add([name, tool, "n/a", "n/a", "", "", ""]); return }
                let libpng = inProcess ? libpngInProcess : libpngProcess?.medianSeconds
                table.add([name, tool, ms(seconds), rss.map(mib) ?? "-",
                           inProcess ? "-" : pngtopnm.map { ratio(seconds, $0.medianSeconds) } ?? "-",
                           libpng.map { ratio(seconds, $0) } ?? "-",
                           pillowNet.map { ratio(seconds, $0) } ?? "-"])
            }
            let ourArgv = [context.galleryBinary, "decode", path, context.scratchDir + "/ours.pam"]
            row("ours (gallery decode, process)", measureProcess(ourArgv, runs: context.runs)?.medianSeconds, ourArgv, inProcess: false)
            let reducedArgv = [context.galleryBinary, "decode", path, context.scratchDir + "/ours8.pam", "--scale", "1/8"]
            row("ours (gallery decode --scale 1/8)", measureProcess(reducedArgv, runs: context.runs)?.medianSeconds, reducedArgv, inProcess: false)
            let probeArgv = [context.galleryBinary, "probe", path]
            row("ours (gallery probe: process floor)", measureProcess(probeArgv, runs: context.runs)?.medianSeconds, probeArgv, inProcess: false)
            row("ours (in-process, full)", inProcess(runs: context.runs) { _ = try ImageCodec.decode(bytes) }, nil, inProcess: true)
            row("ours (in-process, 1/8)", inProcess(runs: context.runs) { _ = try ImageCodec.decode(bytes, scale: .eighth) }, nil, inProcess: true)
            row("libpng 1.6 C harness (process)", libpngProcess?.medianSeconds, libpngArgv, inProcess: false)
            row("libpng 1.6 C harness (in-process)", libpngInProcess, nil, inProcess: true)
            row("libpng via pngtopnm (process)", pngtopnm?.medianSeconds, ["pngtopnm", path], inProcess: false)
            row("Pillow (process, raw)", pillow?.medianSeconds, pillowArgv, inProcess: false)
            row("Pillow (startup subtracted)", pillowNet, nil, inProcess: true)
        }
        if let startup = pillowStartup {
            let rss = peakRSSKiB([python, "-c", "from PIL import Image"], context: context)
            table.add(["-", "python3 + PIL import (startup)", ms(startup.medianSeconds), rss.map(mib) ?? "-", "", "", ""])
        }
        print(table.render())
        print(cpuTable.render())
        if libpngTool == nil { print("(libpng C harness not built: needs cc and libpng-dev)") }
        for path in photos { print(identityLine(path, context: context)) }
        smallFiles(context)
        encode(context, photos: photos)
    }

    /// A minimal libpng 1.6 decoder (classic API, rows into one buffer, 16-bit stripped,
    /// palette/gray/tRNS expanded like ours) that prints the median wall and CPU seconds of
    /// N decodes from memory, and with a third argument writes the image as a PAM, the same work as
    /// `gallery decode`: libpng without netpbm's output formatting. Compiled into the scratch
    /// folder at run time; nil when cc or libpng-dev is missing.
    static func buildLibpngHarness(_ context: BenchContext) -> String? {
        let source = context.scratchDir + "/libpng-decode.c"
        let binary = context.scratchDir + "/libpng-decode"
        guard FileManager.default.createFile(atPath: source, contents: Data(libpngHarnessSource.utf8)),
              measureProcess(["cc", "-O2", "-o", binary, source, "-lpng"], runs: 1) != nil else { return nil }
        return binary
    }

    /// Runs a command once and reads the numbers on its stdout.
    static func commandNumbers(_ argv: [String], context: BenchContext) -> [Double] {
        let out = context.scratchDir + "/harness-out.txt"
        guard measureProcess(argv, runs: 1, stdoutPath: out) != nil,
              let text = try? String(contentsOfFile: out, encoding: .utf8) else { return [] }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    }

    static let libpngHarnessSource = #"""
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef struct { const unsigned char *p; size_t n, at; } Src;
static void readfn(png_structp png, png_bytep out, size_t len) {
    Src *s = png_get_io_ptr(png);
    if (s->n - s->at < len) png_error(png, "short");
    memcpy(out, s->p + s->at, len); s->at += len;
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static int decode(const unsigned char *buf, size_t n, const char *pam) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    unsigned char *volatile image = NULL;
    if (setjmp(png_jmpbuf(png))) { png_destroy_read_struct(&png, &info, NULL); free(image); return 1; }
    Src s = { buf, n, 0 };
    png_set_read_fn(png, &s, readfn);
    png_read_info(png, info);
    png_set_strip_16(png); png_set_packing(png); png_set_palette_to_rgb(png);
    png_set_expand_gray_1_2_4_to_8(png); png_set_tRNS_to_alpha(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t rb = png_get_rowbytes(png, info); png_uint_32 h = png_get_image_height(png, info);
    image = malloc(rb * h);
    for (int p = 0; p < passes; p++) for (png_uint_32 y = 0; y < h; y++) png_read_row(png, image + rb * y, NULL);
    png_read_end(png, NULL);
    if (pam) {
        FILE *o = fopen(pam, "wb"); if (!o) png_error(png, "cannot write");
        int depth = png_get_channels(png, info);
        fprintf(o, "P7\nWIDTH %u\nHEIGHT %u\nDEPTH %d\nMAXVAL 255\nENDHDR\n", png_get_image_width(png, info), h, depth);
        fwrite(image, 1, rb * h, o); fclose(o);
    }
    png_destroy_read_struct(&png, &info, NULL); free(image);
    return 0;
}
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"); if (!f) return 1;
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n); if (fread(buf, 1, n, f) != (size_t)n) return 1; fclose(f);
    int runs = argc > 2 ? atoi(argv[2]) : 1;
    double *t = malloc(sizeof(double) * runs), *c = malloc(sizeof(double) * runs);
    for (int r = 0; r < runs; r++) {
        double s = now(), sc = cpu();
        if (decode(buf, n, argc > 3 ? argv[3] : NULL)) return 1;
        t[r] = now() - s; c[r] = cpu() - sc;
    }
    qsort(t, runs, sizeof(double), cmp); qsort(c, runs, sizeof(double), cmp);
    printf("%f %f\n", t[runs / 2], c[runs / 2]); return 0;
}
"""#

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

    /// Median CPU time of this thread running `body`; nil when it throws.
    static func cpuTime(runs: Int, _ body: () throws -> Void) -> Double? {
        var times: [Double] = []
        for _ in 0..<max(1, runs) {
            var start = timespec(), end = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
            do { try body() } catch { return nil }
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
            times.append(Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9)
        }
        times.sort()
        return times[times.count / 2]
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
