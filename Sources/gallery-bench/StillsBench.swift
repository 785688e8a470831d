import Foundation
import ImageCodec
import ImagePipeline

/// GIF, TIFF and camera raw (issue #26's targets), whole processes in the same run:
/// - full decode of GIF and TIFF files: this binary as `gallery-bench decode-still FILE`
///   against `vips avg FILE` (libvips decodes every pixel to average them, writing nothing);
/// - a raw's 480 px thumbnail by `gallery thumb` against the same thumbnail of its embedded
///   preview saved as a plain JPEG (what the raw container costs), with peak RSS above idle.
/// The files come from the photo folder (`.gif`, `.tif`/`.tiff`, raws); missing kinds are made
/// in the scratch folder from its first JPEG: a 1600 px GIF (ImageMagick), 3000 px TIFFs
/// (uncompressed, LZW with the predictor, tiled Deflate: `convert` and `tiffcp`), and a DNG
/// whose preview is the photo at 2048 px (written here, laid out as make_fixtures.py does).
/// Between them, `InflateBench`: our inflate against zlib's on tiled-TIFF-like streams.
enum StillsBench {
    static let thumbSize = 480

    /// `gallery-bench decode-still FILE`: a full decode, nothing written.
    static func decodeCommand(_ path: String) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path) else { return 2 }
        do {
            let image = try ImageCodec.decode([UInt8](data))
            return image.bitmap.width > 0 ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("decode-still: \(error)\n".utf8))
            return 1
        }
    }

    static func run(_ context: BenchContext) {
        let photo = context.photos([".jpg", ".jpeg"]).first
        decodes(context, photo: photo)
        InflateBench.run(context, photo: photo)
        raws(context, photo: photo)
    }

    private static func tool(_ argv: [String]) -> Bool { measureProcess(argv, runs: 1) != nil }

    private static func decodes(_ context: BenchContext, photo: String?) {
        var files = context.photos([".gif", ".tif", ".tiff"])
        let dir = context.scratchDir
        if let photo, !files.contains(where: { $0.lowercased().hasSuffix(".gif") }),
           tool(["/usr/bin/convert", photo, "-resize", "1600x", dir + "/photo-1600.gif"]) {
            files.append(dir + "/photo-1600.gif")
        }
        if let photo, !files.contains(where: { $0.lowercased().contains(".tif") }),
           tool(["/usr/bin/convert", photo, "-resize", "3000x", "-compress", "none", dir + "/photo-3000-none.tif"]) {
            files.append(dir + "/photo-3000-none.tif")
            if tool(["tiffcp", "-c", "lzw:2", dir + "/photo-3000-none.tif", dir + "/photo-3000-lzw.tif"]) { files.append(dir + "/photo-3000-lzw.tif") }
            if tool(["tiffcp", "-c", "zip:2", "-t", dir + "/photo-3000-none.tif", dir + "/photo-3000-zip-tiles.tif"]) {
                files.append(dir + "/photo-3000-zip-tiles.tif")
            }
        }
        guard !files.isEmpty else { print("\nstills: no GIF or TIFF files and none could be made"); return }
        var table = Table(title: "GIF and TIFF full decode, whole process, median of \(context.runs) (peak RSS MiB)",
                          columns: ["file", "size", "ours ms", "vips ms", "ours/vips", "ours RSS", "vips RSS"])
        for file in files {
            let size = FileManager.default.contents(atPath: file).flatMap { try? ImageCodec.probe([UInt8]($0)) }
                .map { "\($0.width)x\($0.height)" } ?? "?"
            let o = measureProcess([CommandLine.arguments[0], "decode-still", file], runs: context.runs, peakRSS: true)
            let v = measureProcess(["vips", "avg", file], runs: context.runs, peakRSS: true)
            table.add([String((file as NSString).lastPathComponent.prefix(28)), size, o.map { ms($0.medianSeconds) } ?? "fail",
                       v.map { ms($0.medianSeconds) } ?? "fail", (o != nil && v != nil) ? ratio(o!.medianSeconds, v!.medianSeconds) : "-",
                       o.map { mib($0.peakRSSKiB) } ?? "-", v.map { mib($0.peakRSSKiB) } ?? "-"])
        }
        print(table.render(), terminator: "")
        print("target: ours/vips <= 1.00x")
    }

    private static func raws(_ context: BenchContext, photo: String?) {
        var pairs: [(raw: String, preview: String)] = []
        let dir = context.scratchDir
        for raw in context.photos(ImageFiles.rawExtensions) {
            let preview = dir + "/" + (raw as NSString).lastPathComponent + ".preview.jpg"
            if measureProcess(["exiftool", "-b", "-PreviewImage", raw], runs: 1, stdoutPath: preview) != nil,
               (try? FileManager.default.attributesOfItem(atPath: preview)[.size] as? Int) ?? 0 > 0 {
                pairs.append((raw, preview))
            }
        }
        if pairs.isEmpty, let photo {
            let preview = dir + "/preview-2048.jpg", dng = dir + "/made.dng"
            if tool(["ffmpeg", "-loglevel", "error", "-y", "-i", photo, "-vf", "scale=2048:-2", "-q:v", "2", preview]),
               let jpeg = FileManager.default.contents(atPath: preview), let size = try? ImageCodec.probe([UInt8](jpeg)),
               FileManager.default.createFile(atPath: dng, contents: Data(dngBytes(preview: [UInt8](jpeg), width: size.width, height: size.height))) {
                pairs.append((dng, preview))
            }
        }
        guard !pairs.isEmpty else { print("\nstills: no raw files and none could be made"); return }
        var table = Table(title: "Raw \(thumbSize) px thumbnail against its preview as a plain JPEG, whole process, median of \(context.runs)",
                          columns: ["raw", "raw ms", "preview ms", "raw/preview", "raw RSS", "above idle"])
        let idle = peakRSSKiB([context.galleryBinary, "help"])
        for pair in pairs {
            let out = dir + "/raw-thumb.jpg"
            let r = measureProcess([context.galleryBinary, "thumb", pair.raw, out, "--size", String(thumbSize)], runs: context.runs, peakRSS: true)
            let p = measureProcess([context.galleryBinary, "thumb", pair.preview, out, "--size", String(thumbSize)], runs: context.runs)
            table.add([String((pair.raw as NSString).lastPathComponent.prefix(28)), r.map { ms($0.medianSeconds) } ?? "fail",
                       p.map { ms($0.medianSeconds) } ?? "fail", (r != nil && p != nil) ? ratio(r!.medianSeconds, p!.medianSeconds) : "-",
                       r.map { mib($0.peakRSSKiB) } ?? "-", (r != nil && idle != nil) ? mib(r!.peakRSSKiB - idle!) : "-"])
        }
        print(table.render(), terminator: "")
        print("targets: raw/preview <= 1.20x, <= 32 MiB above idle")
    }

    /// A little-endian DNG: IFD0 holds the preview (JPEG, compression 7, NewSubFileType 1),
    /// its SubIFD a 64x32 16-bit CFA of filler where the sensor data would be.
    static func dngBytes(preview: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        typealias Entry = (tag: Int, type: Int, value: Int)
        func ifd(_ entries: [Entry]) -> [UInt8] {
            var b = u16(entries.count)
            for e in entries {
                b += u16(e.tag) + u16(e.type) + u32(e.type == 1 ? 4 : 1)
                b += e.type == 3 ? u16(e.value) + [0, 0] : u32(e.value)
            }
            return b + u32(0)
        }
        let ifd0Count = 12, subCount = 8
        let ifd0Size = 2 + 12 * ifd0Count + 4, subSize = 2 + 12 * subCount + 4
        let subOffset = 8 + ifd0Size
        let filler = [UInt8](repeating: 0x80, count: 64 * 32 * 2)
        let fillerOffset = subOffset + subSize, previewOffset = fillerOffset + filler.count
        // DNGVersion and DNGBackwardVersion 1.4.0.0: four bytes, in the entry itself.
        out += ifd([(254, 4, 1), (256, 4, width), (257, 4, height), (259, 3, 7), (262, 3, 6), (273, 4, previewOffset),
                    (274, 3, 1), (277, 3, 3), (279, 4, preview.count), (330, 4, subOffset), (50706, 1, 0x0000_0401),
                    (50707, 1, 0x0000_0401)])
        out += ifd([(254, 4, 0), (256, 4, 64), (257, 4, 32), (258, 3, 16), (259, 3, 1), (262, 3, 32803), (273, 4, fillerOffset),
                    (279, 4, filler.count)])
        return out + filler + preview
    }
}
