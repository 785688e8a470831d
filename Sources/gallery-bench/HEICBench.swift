import Foundation
import ImageCodec

/// HEVC and HEIC, whole processes so that time and peak RSS compare like with like:
/// - raw `.265`/`.hevc` streams: our decoder (this binary run as `gallery-bench decode-hevc
///   FILE`, which decodes the first picture and writes nothing) beside `libde265-dec265 -q -t 0`
///   (single-threaded, no output) and `ffmpeg -threads 1 ... -f null -`;
/// - HEIC photos: a 480 px JPEG thumbnail by `gallery thumb` beside `vipsthumbnail`.
/// Streams and photos come from the photo folder; when it has none, one is made from its first
/// JPEG in the scratch folder: a 1920 px wide intra stream with ffmpeg's libx265 (CRF 22) and a
/// HEIC with `heif-enc -q 80` (a single coded image, not an iPhone-style tile grid). Run from
/// the repository, the thumbnail rows also time its iPhone 8 Plus photo (`iPhoneFixture`, a
/// 4032×3024 grid of 48 tiles), the row the iPhone target is about.
/// Then the optional 200 MP grid row (`HEICGridBench`).
enum HEICBench {
    static let thumbSize = 480
    /// The repository's iPhone photo, found from the current directory as `HEICGridBench`
    /// finds its generator.
    static let iPhoneFixture = "Tests/Fixtures/heic/heif_other_arrow.heic"

    /// `gallery-bench decode-hevc FILE`: the child process the stream rows time.
    static func decodeCommand(_ path: String) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path) else { return 2 }
        do {
            let picture = try HEVCDecoder.decodeAnnexB([UInt8](data))
            return picture.planes.isEmpty ? 1 : 0
        } catch {
            FileHandle.standardError.write(Data("decode-hevc: \(error)\n".utf8))
            return 1
        }
    }

    static func run(_ context: BenchContext) {
        streams(context)
        thumbnails(context)
        HEICGridBench.run(context)
    }

    private static func streams(_ context: BenchContext) {
        var files = context.photos([".265", ".hevc"])
        if files.isEmpty, let jpeg = context.photos([".jpg", ".jpeg"]).first {
            let made = context.scratchDir + "/intra1920.265"
            if measureProcess(["ffmpeg", "-loglevel", "error", "-y", "-i", jpeg, "-vf", "scale=1920:-2",
                               "-pix_fmt", "yuv420p", "-c:v", "libx265", "-x265-params", "crf=22:keyint=1:log-level=error",
                               "-frames:v", "1", made], runs: 1) != nil {
                files.append(made)
            }
        }
        guard !files.isEmpty else {
            print("\nheic: no .265/.hevc streams in \(context.photoDir) and none could be made (ffmpeg with libx265)")
            return
        }
        let selfBinary = CommandLine.arguments[0]
        let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
        var table = Table(title: "HEVC intra decode, first picture, whole process, median of \(context.runs) (peak RSS MiB by /usr/bin/time)",
                          columns: ["stream", "size", "ours ms", "de265 ms", "ffmpeg ms", "ours/de265", "ours/ffmpeg",
                                    "ours RSS", "de265 RSS", "ffmpeg RSS"])
        for file in files {
            let name = String((file as NSString).lastPathComponent.prefix(32))
            let bytes = FileManager.default.contents(atPath: file).map { [UInt8]($0) } ?? []
            let size = (try? HEVCDecoder.decodeAnnexB(bytes)).map { "\($0.width)x\($0.height)" } ?? "?"
            let oursArgv = [selfBinary, "decode-hevc", file]
            let de265Argv = ["libde265-dec265", "-q", "-t", "0", "-f", "1", file]
            let ffmpegArgv = ["ffmpeg", "-loglevel", "error", "-threads", "1", "-i", file, "-frames:v", "1", "-f", "null", "-"]
            let o = measureProcess(oursArgv, runs: context.runs, peakRSS: true)
            let d = measureProcess(de265Argv, runs: context.runs, peakRSS: true)
            let f = hasFFmpeg ? measureProcess(ffmpegArgv, runs: context.runs, peakRSS: true) : nil
            func cell(_ m: Measurement?) -> String { m.map { ms($0.medianSeconds) } ?? "fail" }
            func rss(_ m: Measurement?) -> String { m.map { mib($0.peakRSSKiB) } ?? "-" }
            func over(_ m: Measurement?) -> String {
                guard let o, let m else { return "-" }
                return ratio(o.medianSeconds, m.medianSeconds)
            }
            table.add([name, size, cell(o), cell(d), hasFFmpeg ? cell(f) : "-", over(d), over(f), rss(o), rss(d), rss(f)])
        }
        print(table.render(), terminator: "")
        print("target: ours/de265 <= 1.00x (libde265 single-threaded)")
    }

    private static func thumbnails(_ context: BenchContext) {
        var photos = context.photos([".heic", ".heif", ".hif"])
        if photos.isEmpty, let jpeg = context.photos([".jpg", ".jpeg"]).first {
            let made = context.scratchDir + "/made.heic"
            if measureProcess(["heif-enc", "-q", "80", jpeg, "-o", made], runs: 1) != nil { photos.append(made) }
        }
        if FileManager.default.fileExists(atPath: iPhoneFixture) { photos.append(iPhoneFixture) }
        guard !photos.isEmpty else {
            print("\nheic: no HEIC photos in \(context.photoDir) and heif-enc could not make one")
            return
        }
        var table = Table(title: "HEIC \(thumbSize) px thumbnail (JPEG q82), whole process, median of \(context.runs) (peak RSS MiB)",
                          columns: ["photo", "ours ms", "vips ms", "ours/vips", "ours RSS", "extra RSS", "vips RSS"])
        let idle = peakRSSKiB([context.galleryBinary, "help"])
        for photo in photos {
            let ours = context.scratchDir + "/heic-ours.jpg", vips = context.scratchDir + "/heic-vips.jpg"
            let oursArgv = [context.galleryBinary, "thumb", photo, ours, "--size", String(thumbSize)]
            let vipsArgv = ["vipsthumbnail", photo, "--size", String(thumbSize), "-o", vips + "[Q=82]"]
            let o = measureProcess(oursArgv, runs: context.runs, peakRSS: true)
            let v = measureProcess(vipsArgv, runs: context.runs, peakRSS: true)
            var row = [String((photo as NSString).lastPathComponent.prefix(32))]
            row += [o.map { ms($0.medianSeconds) } ?? "fail", v.map { ms($0.medianSeconds) } ?? "fail"]
            if let o, let v { row.append(ratio(o.medianSeconds, v.medianSeconds)) } else { row.append("-") }
            row.append(o.map { mib($0.peakRSSKiB) } ?? "-")
            if let o, let idle { row.append(mib(o.peakRSSKiB - idle)) } else { row.append("-") }
            row.append(v.map { mib($0.peakRSSKiB) } ?? "-")
            table.add(row)
        }
        print(table.render(), terminator: "")
        if let idle { print("idle `gallery help` peak RSS: \(mib(idle)) MiB (extra RSS = ours - idle); target: ours/vips <= 0.40x (iPhone photos)") }
    }
}
