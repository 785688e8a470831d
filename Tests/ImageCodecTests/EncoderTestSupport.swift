import Foundation
import Testing
@testable import ImageCodec

/// Helpers shared by the encoder, resampler and thumbnail tests: fixture paths, PNM reading
/// and writing, running the reference tools, PSNR.
enum EncoderTestSupport {
    /// `Tests/Fixtures/<relative>`, located from this source file.
    static func fixture(_ relative: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" && url.pathComponents.count > 1 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures").appendingPathComponent(relative).path
    }

    /// The three photographic sources of the quality tests.
    static let photos = ["statue_192x288", "flower_250x156", "stream_300x200"]

    static func photo(_ name: String) throws -> Bitmap {
        try readPNM(fixture("jpeg/sources/\(name).ppm"))
    }

    /// Reads a binary PGM (P5) or PPM (P6) with maxval 255.
    static func readPNM(_ path: String) throws -> Bitmap {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var pos = 0
        func token() -> String {
            var s = ""
            while pos < data.count {
                let c = data[pos]
                if c == UInt8(ascii: "#") {
                    while pos < data.count && data[pos] != 10 { pos += 1 }
                } else if c == 32 || c == 9 || c == 10 || c == 13 {
                    if !s.isEmpty { break }
                    pos += 1
                } else {
                    s.append(Character(UnicodeScalar(c)))
                    pos += 1
                }
            }
            return s
        }
        let magic = token()
        let w = Int(token()) ?? 0, h = Int(token()) ?? 0, maxval = Int(token()) ?? 0
        pos += 1
        guard magic == "P5" || magic == "P6", maxval == 255 else {
            throw ImageCodecError(.unsupported, "\(path): \(magic) maxval \(maxval)")
        }
        let layout: Bitmap.Layout = magic == "P5" ? .gray : .rgb
        let count = w * h * layout.channels
        guard data.count - pos >= count else { throw ImageCodecError(.truncated, path) }
        return try Bitmap(width: w, height: h, layout: layout, pixels: Array(data[pos..<(pos + count)]))
    }

    /// Writes `.gray` as PGM and `.rgb` as PPM (other layouts are converted to RGB).
    static func writePNM(_ bitmap: Bitmap, to path: String) throws {
        let b = bitmap.layout == .gray || bitmap.layout == .rgb ? bitmap : bitmap.converted(to: .rgb)
        let header = "\(b.layout == .gray ? "P5" : "P6")\n\(b.width) \(b.height)\n255\n"
        try (Data(header.utf8) + Data(b.pixels)).write(to: URL(fileURLWithPath: path))
    }

    /// A fresh temporary directory.
    static func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "imagecodec-enc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func toolExists(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Whether /usr/bin/python3 can import PIL.
    static let pillowAvailable: Bool = {
        guard toolExists("/usr/bin/python3") else { return false }
        return (try? run("/usr/bin/python3", ["-c", "import PIL"])) != nil
    }()

    /// Runs a tool, returns stdout; throws with stderr on a non-zero exit.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], stdoutTo path: String? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        if let path {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        } else {
            process.standardOutput = out
        }
        process.standardError = err
        try process.run()
        let data = path == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ImageCodecError(.corrupt, "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: errData, as: UTF8.self))")
        }
        return data
    }

    /// Decodes a JPEG file with djpeg (ISLOW, fancy upsampling: its defaults).
    static func djpeg(_ jpegPath: String) throws -> Bitmap {
        let out = jpegPath + ".djpeg.pnm"
        try run("/usr/bin/djpeg", ["-outfile", out, jpegPath])
        return try readPNM(out)
    }

    /// Decodes any image file with Pillow, as RGB or L.
    static func pillowDecode(_ path: String) throws -> Bitmap {
        let out = path + ".pil.pnm"
        try run("/usr/bin/python3", ["-c", """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1]); im.load()
            im = im.convert('L' if im.mode in ('L', 'LA') else 'RGB')
            im.save(sys.argv[2], format='PPM')
            """, path, out])
        return try readPNM(out)
    }

    /// Peak signal-to-noise ratio over all samples, in dB (infinity when identical).
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.layout == b.layout, "PSNR of different shapes")
        var sum = 0.0
        for i in 0..<a.pixels.count {
            let d = Double(Int(a.pixels[i]) - Int(b.pixels[i]))
            sum += d * d
        }
        if sum == 0 { return .infinity }
        let mse = sum / Double(a.pixels.count)
        return 10 * log10(255 * 255 / mse)
    }

    static func f1(_ v: Double) -> String { String(format: "%.2f", v) }
}
