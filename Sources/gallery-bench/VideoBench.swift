import Foundation
import ImageCodec

/// Movies, whole processes, beside ffmpeg in the same run (issue #25's targets):
/// - a 480 px poster of a 4K H.264 clip and of a 720p HEVC clip: `gallery thumb F out.jpg
///   --size 480` against `ffmpeg -i F -frames:v 1 -vf scale=480:-2 out.jpg` (ffmpeg with its
///   default threads, as the issue states it), with our peak RSS above an idle `gallery help`;
/// - the decode of one 1080p H.264 IDR picture: this binary as `gallery-bench decode-h264 FILE`
///   against `ffmpeg -threads 1 -i FILE -frames:v 1 -f null -`.
/// The clips are made at bench time in the scratch folder with ffmpeg's libx264/libx265 from
/// the photo folder's first JPEG (a pan across it, so the picture is a photograph's), or from
/// ffmpeg's testsrc2 when the folder has none. Never part of the product.
enum VideoBench {
    static let posterSize = 480

    /// `gallery-bench decode-h264 FILE`: decodes the first picture of an Annex B stream.
    static func decodeCommand(_ path: String) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path) else { return 2 }
        do {
            let picture = try H264Decoder.decodeAnnexB([UInt8](data))
            return picture.planes.isEmpty ? 1 : 0
        } catch {
            FileHandle.standardError.write(Data("decode-h264: \(error)\n".utf8))
            return 1
        }
    }

    /// ffmpeg input arguments for `seconds` of `width`x`height` video: a pan over `photo`, or testsrc2.
    static func input(_ photo: String?, width: Int, height: Int, seconds: Double) -> [String] {
        guard let photo else {
            return ["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30:duration=\(seconds)"]
        }
        let pan = "scale=\(width * 5 / 4):-2,crop=\(width):\(height):x='t*(iw-\(width))/\(seconds)':y='(ih-\(height))/2',format=yuv420p"
        return ["-loop", "1", "-i", photo, "-t", String(seconds), "-r", "30", "-vf", pan]
    }

    static func make(_ argv: [String]) -> Bool {
        measureProcess(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + argv, runs: 1) != nil
    }

    static func run(_ context: BenchContext) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            print("\nvideo: ffmpeg is not installed; nothing to compare with")
            return
        }
        let photo = context.photos([".jpg", ".jpeg"]).first
        let dir = context.scratchDir
        var clips: [(name: String, path: String)] = []
        let h264 = dir + "/uhd-h264.mp4", hevc = dir + "/hd-hevc.mov", idr = dir + "/fhd-idr.264"
        if make(input(photo, width: 3840, height: 2160, seconds: 2) + ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20",
                                                                      "-x264-params", "log-level=error", "-movflags", "+faststart", h264]) {
            clips.append(("4K H.264 (3840x2160)", h264))
        }
        if make(input(photo, width: 1280, height: 720, seconds: 2) + ["-c:v", "libx265", "-preset", "fast", "-crf", "24", "-tag:v", "hvc1",
                                                                     "-x265-params", "log-level=error", hevc]) {
            clips.append(("720p HEVC (1280x720)", hevc))
        }
        posters(context, clips)
        if make(input(photo, width: 1920, height: 1080, seconds: 0.04) + ["-frames:v", "1", "-c:v", "libx264", "-crf", "18",
                                                                         "-x264-params", "log-level=error", "-f", "h264", idr]) {
            intra(context, idr)
        }
    }

    private static func posters(_ context: BenchContext, _ clips: [(name: String, path: String)]) {
        guard !clips.isEmpty else { print("\nvideo: ffmpeg could not make the clips"); return }
        var table = Table(title: "Video poster, \(posterSize) px JPEG, whole process, median of \(context.runs) (peak RSS MiB)",
                          columns: ["clip", "ours ms", "ffmpeg ms", "ours/ffmpeg", "ours RSS", "above idle", "ffmpeg RSS"])
        let idle = peakRSSKiB([context.galleryBinary, "help"])
        for clip in clips {
            let ours = context.scratchDir + "/poster-ours.jpg", theirs = context.scratchDir + "/poster-ffmpeg.jpg"
            let o = measureProcess([context.galleryBinary, "thumb", clip.path, ours, "--size", String(posterSize)], runs: context.runs,
                                   peakRSS: true)
            let f = measureProcess(["ffmpeg", "-loglevel", "error", "-y", "-i", clip.path, "-frames:v", "1",
                                    "-vf", "scale=\(posterSize):-2", theirs], runs: context.runs, peakRSS: true)
            table.add([clip.name, o.map { ms($0.medianSeconds) } ?? "fail", f.map { ms($0.medianSeconds) } ?? "fail",
                       (o != nil && f != nil) ? ratio(o!.medianSeconds, f!.medianSeconds) : "-",
                       o.map { mib($0.peakRSSKiB) } ?? "-", (o != nil && idle != nil) ? mib(o!.peakRSSKiB - idle!) : "-",
                       f.map { mib($0.peakRSSKiB) } ?? "-"])
        }
        print(table.render(), terminator: "")
        print("idle `gallery help` peak RSS: \(idle.map(mib) ?? "?") MiB; targets: ours/ffmpeg <= 0.50x, <= 48 MiB above idle at 4K")
    }

    private static func intra(_ context: BenchContext, _ stream: String) {
        var table = Table(title: "H.264 1080p IDR decode, first picture, whole process, median of \(context.runs) (peak RSS MiB)",
                          columns: ["stream", "ours ms", "ffmpeg -threads 1 ms", "ours/ffmpeg", "ours RSS", "ffmpeg RSS"])
        let o = measureProcess([CommandLine.arguments[0], "decode-h264", stream], runs: context.runs, peakRSS: true)
        let f = measureProcess(["ffmpeg", "-loglevel", "error", "-threads", "1", "-i", stream, "-frames:v", "1", "-f", "null", "-"],
                               runs: context.runs, peakRSS: true)
        table.add(["1920x1080 x264 CRF 18", o.map { ms($0.medianSeconds) } ?? "fail", f.map { ms($0.medianSeconds) } ?? "fail",
                   (o != nil && f != nil) ? ratio(o!.medianSeconds, f!.medianSeconds) : "-",
                   o.map { mib($0.peakRSSKiB) } ?? "-", f.map { mib($0.peakRSSKiB) } ?? "-"])
        print(table.render(), terminator: "")
        print("target: ours/ffmpeg <= 1.50x (ffmpeg single-threaded)")
    }
}
