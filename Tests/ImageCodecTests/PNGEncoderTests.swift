import Foundation
import Testing
@testable import ImageCodec

/// The encoder: lossless round trips through our decoder for every layout, valid files by
/// pngcheck's judgement, and argument checking.
@Suite struct PNGEncoderTests {
    @Test func everyReferenceRoundTripsInEveryLayout() throws {
        var count = 0
        for entry in PNGFixtures.entries where !entry.mustReject {
            let rgba = try PNGFixtures.pam(try #require(entry.reference))
            for layout in Bitmap.Layout.allCases {
                let image = rgba.converted(to: layout)
                let png = try PNGEncoder.encode(image)
                let decoded = try ImageCodec.decode(png)
                #expect(decoded.bitmap == image, "\(entry.name) as \(layout)")
                #expect(decoded.warnings.isEmpty)
                count += 1
            }
        }
        #expect(count == 161 * 4)
    }

    @Test func everyLevelRoundTripsAndHigherLevelsAreNotLarger() throws {
        let image = Self.photoLike(width: 640, height: 300)
        var sizes: [Int: Int] = [:]
        for level in 0...9 {
            let png = try PNGEncoder.encode(image, compressionLevel: level)
            #expect(try ImageCodec.decode(png).bitmap == image, "level \(level)")
            sizes[level] = png.count
        }
        // Level 0 stores (larger than the raw pixels); level 9 compresses at least as well as 1.
        #expect(sizes[0]! > image.pixels.count)
        #expect(sizes[9]! <= sizes[1]!)
        print("PNG encode 640x300 RGB sizes by level: \(sizes.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" })")
    }

    @Test func largeImagesSpanSeveralIDATChunks() throws {
        let image = Self.photoLike(width: 700, height: 500)
        let png = try PNGEncoder.encode(image, compressionLevel: 1)
        let idats = Self.chunkTypes(png).filter { $0 == "IDAT" }.count
        #expect(idats > 1)
        #expect(Self.chunkTypes(png).first == "IHDR" && Self.chunkTypes(png).last == "IEND")
        #expect(try ImageCodec.decode(png).bitmap == image)
    }

    @Test func pngcheckAcceptsTheOutput() throws {
        let tool = "/usr/bin/pngcheck"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            print("pngcheck not installed: assertion skipped")
            return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("png-encoder-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var images = Bitmap.Layout.allCases.map { Self.photoLike(width: 333, height: 211).converted(to: $0) }
        images.append(try PNGFixtures.pam("reference/basn6a08.rgba8.pam"))
        images.append(try Bitmap(width: 1, height: 1, layout: .gray, pixels: [7]))
        for (i, image) in images.enumerated() {
            for level in [0, 6, 9] {
                let path = dir.appendingPathComponent("out-\(i)-\(level).png").path
                try Data(try PNGEncoder.encode(image, compressionLevel: level)).write(to: URL(fileURLWithPath: path))
                let process = Process()
                process.executableURL = URL(fileURLWithPath: tool)
                process.arguments = ["-q", path]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                process.waitUntilExit()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(process.terminationStatus == 0, "pngcheck rejected \(image.layout) level \(level): \(output)")
            }
        }
    }

    @Test func levelOutsideZeroToNineIsRejected() throws {
        let image = try Bitmap(width: 2, height: 2, layout: .rgb)
        for level in [-1, 10] {
            #expect(throws: ImageCodecError(.invalidArgument, "PNG compression level \(level) is not in 0...9")) {
                try PNGEncoder.encode(image, compressionLevel: level)
            }
        }
    }

    /// Smooth gradients with texture: something the filters and deflate both have work on.
    static func photoLike(width: Int, height: Int) -> Bitmap {
        var rng = SplitMix64(seed: UInt64(width * 31 + height))
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                let noise = Int(rng.next() % 9)
                pixels[i] = UInt8((x * 255 / width + noise) & 0xFF)
                pixels[i + 1] = UInt8((y * 255 / height + noise) & 0xFF)
                pixels[i + 2] = UInt8(((x + y) / 3 + noise * 2) & 0xFF)
            }
        }
        // Width and height are positive and small.
        return try! Bitmap(width: width, height: height, layout: .rgb, pixels: pixels)
    }

    static func chunkTypes(_ png: [UInt8]) -> [String] {
        var types: [String] = []
        var pos = 8
        while pos + 12 <= png.count {
            let length = Int(png[pos]) << 24 | Int(png[pos + 1]) << 16 | Int(png[pos + 2]) << 8 | Int(png[pos + 3])
            types.append(String(decoding: png[(pos + 4)..<(pos + 8)], as: UTF8.self))
            pos += 12 + length
        }
        return types
    }
}
