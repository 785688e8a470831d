import Foundation
import Testing
@testable import ImageCodec

/// The WebP encoder against libwebp's `dwebp` (Debian `webp`): every output must decode, with
/// the loop filter off the decoder must show exactly our reconstruction (no drift between
/// our predictions and the decoder's), and PSNR against the source is printed per case.
@Suite("WebPEncoderTests")
struct WebPEncoderTests {
    static let dwebp = "/usr/bin/dwebp"
    static let hasDwebp = FileManager.default.isExecutableFile(atPath: dwebp)

    /// A photo-like test image: smooth colour waves, an edge, and seeded noise.
    static func synthetic(width: Int, height: Int, layout: Bitmap.Layout, noise: Int = 12, seed: UInt64 = 1) -> Bitmap {
        var rng = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * layout.channels)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(max(width, 1)), fy = Double(y) / Double(max(height, 1))
                var rgb = [128 + 90 * fx - 40 * fy, 60 + 120 * fy * fx, 200 - 150 * fx * fx]
                if x > width / 2 && y < height / 3 { rgb[0] -= 80; rgb[2] += 40 }
                let i = (y * width + x) * layout.channels
                let n = noise > 0 ? Double(rng.int(-noise...noise)) : 0
                let c = rgb.map { UInt8(clamping: Int(($0 + n).rounded())) }
                switch layout {
                case .gray: pixels[i] = c[1]
                case .grayAlpha: pixels[i] = c[1]; pixels[i + 1] = UInt8(truncatingIfNeeded: x * 255 / max(width - 1, 1))
                case .rgb: pixels[i] = c[0]; pixels[i + 1] = c[1]; pixels[i + 2] = c[2]
                case .rgba:
                    pixels[i] = c[0]; pixels[i + 1] = c[1]; pixels[i + 2] = c[2]
                    pixels[i + 3] = (x + y) % 7 == 0 ? 0 : UInt8(clamping: 255 - y * 3)
                }
            }
        }
        return try! Bitmap(width: width, height: height, layout: layout, pixels: pixels)
    }

    static func scratch(_ name: String) -> String {
        NSTemporaryDirectory() + "webpenc-\(getpid())-\(name)"
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ImageCodecError(.corrupt, "\(tool) exited \(process.terminationStatus): \(String(decoding: errData, as: UTF8.self))")
        }
    }

    /// Decodes with dwebp to RGBA (PAM).
    static func decode(_ file: [UInt8], name: String) throws -> Bitmap {
        let input = scratch(name + ".webp"), output = scratch(name + ".pam")
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
        try Data(file).write(to: URL(fileURLWithPath: input))
        try run(dwebp, [input, "-pam", "-o", output])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        // PAM header: lines up to ENDHDR.
        guard let end = data.firstRange(of: Array("ENDHDR\n".utf8)) else { throw ImageCodecError(.corrupt, "no PAM header") }
        let header = String(decoding: data[..<end.lowerBound], as: UTF8.self)
        func field(_ name: String) -> Int {
            header.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        }
        return try Bitmap(width: field("WIDTH"), height: field("HEIGHT"), layout: .rgba, pixels: Array(data[end.upperBound...]))
    }

    /// Decodes with dwebp to its raw Y, U, V planes (no colour conversion).
    static func decodeYUV(_ file: [UInt8], name: String) throws -> [UInt8] {
        let input = scratch(name + ".webp"), output = scratch(name + ".yuv")
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
        try Data(file).write(to: URL(fileURLWithPath: input))
        try run(dwebp, [input, "-yuv", "-o", output])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// PSNR of the colour (or gray) samples of `decoded` (RGBA) against `source`, in dB.
    static func psnr(_ source: Bitmap, _ decoded: Bitmap) -> Double {
        let rgba = source.converted(to: .rgba)
        var sse = 0.0, n = 0.0
        for i in 0..<(source.width * source.height) {
            for c in 0..<3 {
                let d = Double(rgba.pixels[i * 4 + c]) - Double(decoded.pixels[i * 4 + c])
                sse += d * d
                n += 1
            }
        }
        return sse == 0 ? 99 : 10 * log10(255 * 255 * n / sse)
    }

    @Test("dwebp decodes our output at every size and layout", .enabled(if: hasDwebp),
          arguments: [(1, 1), (15, 17), (16, 16), (33, 47), (64, 64), (127, 65)])
    func decodes(size: (Int, Int)) throws {
        for layout in Bitmap.Layout.allCases {
            let source = Self.synthetic(width: size.0, height: size.1, layout: layout)
            let file = try WebPEncoder.encode(source, quality: 75)
            let decoded = try Self.decode(file, name: "\(size.0)x\(size.1)-\(layout)")
            #expect(decoded.width == size.0 && decoded.height == size.1)
            let quality = Self.psnr(source, decoded)
            print("WebP \(size.0)x\(size.1) \(layout) q75: \(file.count) bytes, PSNR \(String(format: "%.2f", quality)) dB")
            #expect(quality > 28)
            if source.hasTransparency {
                let alpha = source.converted(to: .rgba)
                var maxDiff = 0
                for i in 0..<(size.0 * size.1) { maxDiff = max(maxDiff, abs(Int(alpha.pixels[i * 4 + 3]) - Int(decoded.pixels[i * 4 + 3]))) }
                #expect(maxDiff == 0, "alpha must be lossless")
            }
        }
    }

    @Test("with the loop filter off, dwebp shows exactly our reconstruction", .enabled(if: hasDwebp),
          arguments: [10, 50, 75, 90, 100])
    func noDrift(quality: Int) throws {
        // 400×260 has 425 macroblocks: its token costs are refreshed from the frame's counts
        // (every 96 macroblocks), which the smaller ones never reach.
        for (w, h, noise) in [(61, 37, 20), (96, 80, 4), (17, 33, 60), (400, 260, 12)] {
            let source = Self.synthetic(width: w, height: h, layout: .rgb, noise: noise, seed: UInt64(quality))
            let lossy = try WebPEncoder.encodeVP8(source, quality: quality, segments: 4, snsStrength: 50, filterStrength: 0,
                                                  keepReconstruction: true)
            let file = RIFFWriter.file(width: w, height: h, vp8: lossy.vp8, alpha: nil)
            let planes = try Self.decodeYUV(file, name: "drift-\(quality)-\(w)")
            #expect(planes == lossy.y + lossy.u + lossy.v, "q\(quality) \(w)x\(h): decoder differs from the encoder's reconstruction")
        }
    }

    @Test("flat and noisy extremes", .enabled(if: hasDwebp))
    func extremes() throws {
        let flat = try Bitmap(width: 40, height: 24, layout: .rgb, pixels: [UInt8](repeating: 77, count: 40 * 24 * 3))
        var rng = SplitMix64(seed: 9)
        let noisy = try Bitmap(width: 48, height: 32, layout: .rgb, pixels: (0..<(48 * 32 * 3)).map { _ in rng.byte() })
        for (name, bitmap) in [("flat", flat), ("noise", noisy)] {
            for q in [0, 75, 100] {
                let file = try WebPEncoder.encode(bitmap, quality: q)
                let decoded = try Self.decode(file, name: "\(name)-\(q)")
                print("WebP \(name) q\(q): \(file.count) bytes, PSNR \(String(format: "%.2f", Self.psnr(bitmap, decoded))) dB")
            }
        }
    }

    @Test("an ICC profile goes into VP8X + ICCP, before ALPH, and reads back; dwebp shows the same pixels",
          .enabled(if: hasDwebp))
    func embedsICCProfile() throws {
        let profile = ColourTransform.displayP3Profile
        for layout in [Bitmap.Layout.rgb, .rgba] {
            var bitmap = Self.synthetic(width: 37, height: 21, layout: layout)
            if layout == .rgba { for i in stride(from: 3, to: bitmap.pixels.count, by: 8) { bitmap.pixels[i] = 90 } }
            let plain = try WebPEncoder.encode(bitmap, quality: 80)
            let tagged = try WebPEncoder.encode(bitmap, quality: 80, iccProfile: profile)
            #expect(Array(tagged[12..<16]) == Array("VP8X".utf8))
            #expect(tagged[20] & 0x20 != 0, "ICC flag")
            #expect((tagged[20] & 0x10 != 0) == (layout == .rgba), "alpha flag")
            #expect(Array(tagged[30..<34]) == Array("ICCP".utf8), "ICCP must follow VP8X")
            #expect(try ImageCodec.probe(tagged).iccProfile == profile)
            #expect(try ImageCodec.probe(plain).iccProfile == nil)
            #expect(try Self.decode(tagged, name: "icc-\(layout)").pixels == Self.decode(plain, name: "plain-\(layout)").pixels)
        }
    }

    /// FNV-1a of the files the encoder writes. Recorded after the SIMD quantiser and the
    /// shared predictors, whose output matched the scalar encoder's byte count and PSNR on
    /// every bench encode; a change here must be a deliberate, measured trade.
    static let stableOutputs: [String: UInt64] = [
        "160x120-rgb-q10": 0xb665dd57738ee132,
        "97x53-rgba-q10": 0xf302971adffc19b0,
        "64x48-gray-q10": 0x27f8959bcec4e78c,
        "160x120-rgb-q50": 0x1299db452ff58165,
        "97x53-rgba-q50": 0x2a643afc8312692b,
        "64x48-gray-q50": 0x139445c5223a29dd,
        "160x120-rgb-q82": 0x9ff5bede7eafa9e4,
        "97x53-rgba-q82": 0xf2f93c34e3ff236c,
        "64x48-gray-q82": 0xc74a4659cf1e14f3,
        "160x120-rgb-q95": 0x97c94bec3df426f3,
        "97x53-rgba-q95": 0x8b4b549ed30ada3f,
        "64x48-gray-q95": 0x7dbc68d71c3274fe,
    ]

    @Test("speed work keeps the output byte-identical", arguments: [10, 50, 82, 95])
    func stableOutput(quality: Int) throws {
        for (w, h, noise, layout) in [(160, 120, 12, Bitmap.Layout.rgb), (97, 53, 40, .rgba), (64, 48, 2, .gray)] {
            let source = Self.synthetic(width: w, height: h, layout: layout, noise: noise, seed: UInt64(quality))
            let file = try WebPEncoder.encode(source, quality: quality)
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in file { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            let key = "\(w)x\(h)-\(layout)-q\(quality)"
            print("WebP stable \(key): \(file.count) bytes, fnv 0x\(String(hash, radix: 16))")
            #expect(Self.stableOutputs[key] == hash, "\(key) changed")
        }
    }

    @Test("rejects sizes VP8 cannot hold and bad parameters")
    func rejects() throws {
        let wide = try Bitmap(width: 16384, height: 1, layout: .gray)
        #expect(throws: ImageCodecError.self) { try WebPEncoder.encode(wide) }
        let small = try Bitmap(width: 2, height: 2, layout: .gray)
        #expect(throws: ImageCodecError.self) { try WebPEncoder.encode(small, quality: 101) }
        #expect(throws: ImageCodecError.self) { try WebPEncoder.encode(small, segments: 0) }
    }
}
