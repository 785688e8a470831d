import Foundation
import ImageCodec
import ImagePipeline
#if canImport(Glibc)
import Glibc
#endif

/// `gallery decode` and `gallery probe`: the codec façade from the command line, for tests,
/// benchmarks against djpeg, and looking at one file by hand.
///
/// Exit status: 0 on success, 1 when the input cannot be read or decoded (one line on stderr),
/// 2 on a usage error. A hostile file never crashes the process: every failure is a thrown
/// `ImageCodecError`.
enum CodecCommands {
    /// `gallery decode IN OUT [--scale M/8] [--orient]`: writes OUT as `.ppm` (RGB), `.pgm`
    /// (gray), `.pam` (the bitmap's own channels) or `.png` (the bitmap's own channels). HEIF
    /// files come out with their transforms applied and colours as decoded (no ICC applied). `--scale` accepts M/8 for M in 1, 2, 4, 8
    /// (or an equal fraction such as 1/2); default 8/8. `--orient` applies the EXIF orientation.
    /// Without `--orient`, PPM, PGM and PAM are written band by band as the decoder hands rows
    /// over (`NetpbmRowWriter`): a JPEG never exists as a whole bitmap here, as djpeg's never
    /// does. PNG output and `--orient` decode the whole bitmap first.
    static func decode(_ args: [String]) -> Int32 {
        var positional: [String] = []
        var scale = DecodeScale.full
        var orient = false
        var rest = args[...]
        while let arg = rest.popFirst() {
            switch arg {
            case "--orient":
                orient = true
            case "--scale":
                guard let value = rest.popFirst(), let parsed = parseScale(value) else {
                    return usage("decode: --scale needs M/8 with M in 1, 2, 4, 8")
                }
                scale = parsed
            default:
                if arg.hasPrefix("--scale="), let parsed = parseScale(String(arg.dropFirst(8))) {
                    scale = parsed
                } else if arg.hasPrefix("--") {
                    return usage("decode: unknown option '\(arg)'")
                } else {
                    positional.append(arg)
                }
            }
        }
        guard positional.count == 2 else { return usage("decode: expected IN OUT") }
        let (input, output) = (positional[0], positional[1])
        guard let kind = OutputKind(path: output) else {
            return usage("decode: OUT must end in .ppm, .pgm, .pam or .png")
        }

        do {
            // Positioned reads: a movie's poster reads its `moov` and one sample, not the file.
            let source = try ImagePipeline.openFile(input)
            if !orient && kind != .png {
                // Rows written as they are decoded: no whole bitmap for a JPEG.
                let writer = NetpbmRowWriter(kind: kind, path: output)
                do {
                    _ = try ImageCodec.decodeRows(source: source, scale: scale, into: writer)
                } catch {
                    try? writer.finish(ok: false)
                    throw error
                }
                try writer.finish(ok: true)
                return 0
            }
            let decoded = try ImageCodec.decode(source: source, scale: scale)
            let bitmap = orient ? decoded.info.orientation.apply(to: decoded.bitmap) : decoded.bitmap
            try writeNetpbm(bitmap, kind: kind, to: output)
            return 0
        } catch {
            printError("gallery decode: \(input): \(error)")
            return 1
        }
    }

    /// `gallery probe IN`: one JSON line with what the header says.
    static func probe(_ args: [String]) -> Int32 {
        guard args.count == 1, !args[0].hasPrefix("--") else { return usage("probe: expected IN") }
        let input = args[0]
        do {
            let source = try ImagePipeline.openFile(input)
            let info = try ImageCodec.probe(source: source)
            print(probeJSON(info, fileBytes: source.size))
            return 0
        } catch {
            printError("gallery probe: \(input): \(error)")
            return 1
        }
    }

    // MARK: - Arguments

    private static func usage(_ message: String) -> Int32 {
        printError("gallery \(message)\n\(usageText)")
        return 2
    }

    /// "M/8" or an equal fraction ("1/2" is 4/8); nil unless it names 1/8, 2/8, 4/8 or 8/8.
    static func parseScale(_ text: String) -> DecodeScale? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let num = Int(parts[0]), let den = Int(parts[1]),
              num > 0, den > 0, den <= 64, num <= den, (num * 8) % den == 0 else { return nil }
        return try? DecodeScale(numerator: num * 8 / den)
    }

    // MARK: - Files

    /// Netpbm flavours chosen by the output file name.
    enum OutputKind {
        case ppm, pgm, pam, png

        init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "png": self = .png
            case "ppm": self = .ppm
            case "pgm": self = .pgm
            case "pam": self = .pam
            default: return nil
            }
        }
    }

    /// Writes a binary PPM (P6, RGB), PGM (P5, gray), PAM (P7, the bitmap's own layout) or a
    /// PNG (the bitmap's own layout).
    /// The pixels are written straight from the bitmap's storage, without an extra copy.
    /// (`decode` writes the Netpbm kinds through `NetpbmRowWriter` unless it orients.)
    static func writeNetpbm(_ source: Bitmap, kind: OutputKind, to path: String) throws {
        let bitmap: Bitmap
        switch kind {
        case .png, .pam: bitmap = source
        case .ppm: bitmap = source.converted(to: .rgb)
        case .pgm: bitmap = source.converted(to: .gray)
        }
        let header = kind == .png ? "" : netpbmHeader(kind, width: bitmap.width, height: bitmap.height, layout: bitmap.layout)
        let png = kind == .png ? try PNGEncoder.encode(bitmap) : nil
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError("cannot create \(path): \(String(cString: strerror(errno)))") }
        var ok: Bool
        if let png {
            ok = png.withUnsafeBytes { writeAll(fd, $0) }
        } else {
            ok = Array(header.utf8).withUnsafeBytes { writeAll(fd, $0) }
            ok = ok && bitmap.pixels.withUnsafeBytes { writeAll(fd, $0) }
        }
        let closed = close(fd) == 0
        guard ok, closed else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw CLIError("cannot write \(path): \(reason)")
        }
    }

    /// The header of a PPM (P6), PGM (P5) or PAM (P7) of pixels already in `layout` (RGB for
    /// PPM, gray for PGM).
    static func netpbmHeader(_ kind: OutputKind, width: Int, height: Int, layout: Bitmap.Layout) -> String {
        switch kind {
        case .ppm: return "P6\n\(width) \(height)\n255\n"
        case .pgm: return "P5\n\(width) \(height)\n255\n"
        case .pam, .png:
            let tuple: String
            switch layout {
            case .gray: tuple = "GRAYSCALE"
            case .grayAlpha: tuple = "GRAYSCALE_ALPHA"
            case .rgb: tuple = "RGB"
            case .rgba: tuple = "RGB_ALPHA"
            }
            return "P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH \(layout.channels)\nMAXVAL 255\nTUPLTYPE \(tuple)\nENDHDR\n"
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var p = bytes.baseAddress else { return true }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, p, left)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            p += n
            left -= n
        }
        return true
    }

    // MARK: - JSON

    /// The probe result as one JSON object, keys in a fixed order; absent values are null.
    static func probeJSON(_ info: ImageInfo, fileBytes: Int) -> String {
        var fields: [(String, String)] = [
            ("format", jsonString(info.format.rawValue)),
            ("width", String(info.width)),
            ("height", String(info.height)),
            ("components", String(info.components)),
            ("colorSpace", jsonString(info.colorSpace)),
            ("sampling", "[" + info.sampling.map(jsonString).joined(separator: ",") + "]"),
            ("progressive", String(info.progressive)),
            ("bitDepth", String(info.bitDepth)),
            ("hasAlpha", String(info.hasAlpha)),
            ("orientation", String(info.orientation.rawValue)),
            ("orientedWidth", String(info.orientedWidth)),
            ("orientedHeight", String(info.orientedHeight)),
            ("dateTimeOriginal", info.exif.dateTimeOriginal.map(jsonString) ?? "null"),
            ("make", info.exif.make.map(jsonString) ?? "null"),
            ("model", info.exif.model.map(jsonString) ?? "null"),
            ("iccProfileBytes", info.iccProfile.map { String($0.count) } ?? "null"),
            ("fileBytes", String(fileBytes)),
        ]
        if let gamma = info.gamma, gamma.isFinite { fields.append(("gamma", String(gamma))) }
        if let intent = info.srgbIntent { fields.append(("srgbIntent", String(intent))) }
        if info.tileCount > 1 { fields.append(("tileCount", String(info.tileCount))) }
        if info.video == nil, let id = info.exif.contentIdentifier { fields.append(("contentIdentifier", jsonString(id))) }
        if let v = info.video {
            // Rotation as the display shows it: degrees clockwise (90 for an upright phone video).
            let rotation: Int
            switch info.orientation {
            case .rotatedClockwise, .transposed: rotation = 90
            case .rotated180, .mirroredVertically: rotation = 180
            case .rotatedCounterClockwise, .transversed: rotation = 270
            default: rotation = 0
            }
            fields.append(("durationSeconds", String(v.durationSeconds)))
            fields.append(("codec", jsonString(v.codec)))
            fields.append(("codecTag", jsonString(v.codecTag)))
            fields.append(("frameRate", v.frameRate.map { String($0) } ?? "null"))
            fields.append(("frameCount", String(v.frameCount)))
            fields.append(("rotation", String(rotation)))
            fields.append(("mirrored", String([.mirrored, .mirroredVertically, .transposed, .transversed].contains(info.orientation))))
            fields.append(("hdr", v.hdr.map(jsonString) ?? "null"))
            fields.append(("creationDate", v.creationDate.map(jsonString) ?? "null"))
            fields.append(("contentIdentifier", v.contentIdentifier.map(jsonString) ?? "null"))
            fields.append(("hasAudio", String(v.hasAudio)))
            fields.append(("movieBoxBytes", String(v.movieBoxBytes)))
            fields.append(("posterSampleBytes", String(v.posterSampleBytes)))
            if let gps = info.exif.gps { fields.append(("gps", "[\(gps.latitude),\(gps.longitude)]")) }
        }
        return "{" + fields.map { jsonString($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value) {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// A command-line failure that is not the codec's (file system, arguments).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
