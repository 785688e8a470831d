import Foundation
import Testing
@testable import ImageCodec

/// `ImageCodec.decodeRows` (`JPEGDecoder.decodeRows`): the rows handed to a sink band by band
/// are the bitmap `decode` returns, byte for byte, with the same warnings and errors, for every
/// JPEG fixture in the repository at every scale and with both kernel sets; damaged copies
/// too. The sink sees one `begin`, then groups of rows top to bottom that tile the image.
@Suite struct JPEGRowStreamTests {
    /// Every JPEG under Tests/Fixtures (the conformance set, metadata, colour, motion photos).
    static let files: [String] = {
        let fixtures = JPEGFixtures.root.deletingLastPathComponent()
        guard let walk = FileManager.default.enumerator(atPath: fixtures.path) else { return [] }
        return walk.compactMap { $0 as? String }
            .filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
    }()

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: JPEGFixtures.root.deletingLastPathComponent().appendingPathComponent(file)))
    }

    /// Collects the streamed rows into a bitmap-sized buffer and checks the order of bands.
    final class Collector: DecodedRowSink {
        var width = 0, height = 0, layout = Bitmap.Layout.rgb
        var pixels: [UInt8] = []
        var begins = 0, bands = 0, nextRow = 0, largestBand = 0
        var problems: [String] = []
        /// Throw from `write` at this band (a sink's failure must end the decode).
        var failAtBand: Int?

        func begin(width: Int, height: Int, layout: Bitmap.Layout) throws {
            begins += 1
            (self.width, self.height, self.layout) = (width, height, layout)
            pixels = [UInt8](repeating: 0, count: width * height * layout.channels)
        }

        func write(_ rows: UnsafeBufferPointer<UInt8>, first: Int, count: Int) throws {
            if let failAtBand, bands == failAtBand { throw ImageCodecError(.invalidArgument, "sink refused band \(bands)") }
            bands += 1
            largestBand = max(largestBand, count)
            let rowBytes = width * layout.channels
            if first != nextRow { problems.append("band at row \(first), expected \(nextRow)") }
            guard count > 0, first >= 0, first + count <= height, rows.count == count * rowBytes else {
                problems.append("band \(first)+\(count) of \(rows.count) bytes in \(width)x\(height)")
                return
            }
            pixels.withUnsafeMutableBufferPointer { p in
                let start = first * rowBytes
                _ = UnsafeMutableBufferPointer(rebasing: p[start..<(start + rows.count)]).update(fromContentsOf: rows)
            }
            nextRow = first + count
        }
    }

    /// Compares the streamed decode with the bitmap decode of `bytes`; returns false when
    /// both failed (the same way).
    @discardableResult
    static func expectSame(_ bytes: [UInt8], scale: Int, kernels: KernelDispatch, _ label: String) -> Bool {
        let whole = Result { try JPEGDecoder.decode(bytes, scale: scale, limits: .default, kernels: kernels) }
        let sink = Collector()
        let streamed = Result { try JPEGDecoder.decodeRows(bytes, scale: scale, limits: .default, kernels: kernels, into: sink) }
        switch (whole, streamed) {
        case let (.success(w), .success(s)):
            #expect(sink.begins == 1, "\(label): \(sink.begins) begins")
            #expect(sink.problems.isEmpty, "\(label): \(sink.problems)")
            #expect(sink.nextRow == w.bitmap.height, "\(label): rows end at \(sink.nextRow) of \(w.bitmap.height)")
            #expect(sink.width == w.bitmap.width && sink.height == w.bitmap.height && sink.layout == w.bitmap.layout,
                    "\(label): size or layout")
            #expect(sink.pixels == w.bitmap.pixels, "\(label): pixels differ")
            #expect(s.warnings == w.warnings, "\(label): warnings \(s.warnings) vs \(w.warnings)")
            #expect(s.info == w.info, "\(label): info differs")
            return true
        case let (.failure(w as ImageCodecError), .failure(s as ImageCodecError)):
            #expect(w.kind == s.kind && w.message == s.message, "\(label): \(w) vs \(s)")
        default:
            let outcome = { (ok: Bool) in ok ? "image" : "error" }
            Issue.record("\(label): \(outcome((try? whole.get()) != nil)) as a bitmap, \(outcome((try? streamed.get()) != nil)) streamed")
        }
        return false
    }

    static var kernelSets: [KernelDispatch] { [KernelDispatch.portable] + (KernelDispatch.avx2.map { [$0] } ?? []) }

    @Test("streamed rows are the bitmap's, every fixture, scale and kernel set", arguments: files)
    func sameAsBitmap(_ file: String) throws {
        let bytes = try Self.bytes(file)
        for kernels in Self.kernelSets {
            for m in [8, 4, 2, 1] {
                Self.expectSame(bytes, scale: m, kernels: kernels, "\(file) \(m)/8 \(kernels.name)")
            }
        }
    }

    @Test("damaged copies stream like their bitmap decode")
    func damagedCopies() throws {
        let picks = Self.files.filter { $0.hasPrefix("jpeg/") && ($0.contains("prog") || $0.contains("422") || $0.contains("rst")) }
        #expect(picks.count >= 4)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        var decoded = 0
        for file in picks {
            let bytes = try Self.bytes(file)
            for round in 0..<6 {
                var b = bytes
                for _ in 0..<(round < 3 ? 1 : 5) {
                    let at = b.count / 4 + next() % (b.count - b.count / 4)
                    b[at] = round % 3 == 0 ? 0xFF : b[at] ^ UInt8(truncatingIfNeeded: 1 | next())
                }
                if round % 2 == 0 { b.removeLast(b.count / 3) }
                for m in [8, 1] where Self.expectSame(b, scale: m, kernels: .selected, "\(file) round \(round) \(m)/8") {
                    decoded += 1
                }
            }
        }
        #expect(decoded > 0)
    }

    @Test("rows come in groups of up to 128 KB, and the group is all the output memory counted")
    func groupSizeAndLimit() throws {
        let bytes = try JPEGFixtures.bytes("generated/odd_1001x667_420.jpg")
        let sink = Collector()
        _ = try JPEGDecoder.decodeRows(bytes, scale: 8, limits: .default, into: sink)
        let rowBytes = sink.width * 3
        let group = min(sink.height, (128 << 10) / rowBytes)
        #expect(sink.largestBand == group && sink.bands == (sink.height + group - 1) / group)
        // A limit the bitmap does not fit in but the group does.
        let whole = try JPEGDecoder.memoryEstimate(bytes, scale: 8, limits: .default)
        let tight = DecodeLimits(maxMemoryBytes: try #require(whole.total) - sink.height * rowBytes + group * rowBytes)
        #expect(throws: ImageCodecError.self) { try JPEGDecoder.decode(bytes, scale: 8, limits: tight) }
        let streamed = Collector()
        _ = try ImageCodec.decodeRows(bytes, limits: tight, into: streamed)
        #expect(streamed.pixels == sink.pixels)
        // Refused before anything is handed over when even the group does not fit.
        let tiny = DecodeLimits(maxMemoryBytes: 1024)
        let refused = Collector()
        #expect(throws: ImageCodecError.self) { try ImageCodec.decodeRows(bytes, limits: tiny, into: refused) }
        #expect(refused.begins == 0)
    }

    @Test("a wide image is handed over a few rows at a time, not iMCU row by iMCU row")
    func wideImageGroups() throws {
        // 1/8 of a 4:2:0 file: two output rows per iMCU row, all 84 in one group.
        let bytes = try JPEGFixtures.bytes("generated/odd_1001x667_420.jpg")
        let sink = Collector()
        _ = try JPEGDecoder.decodeRows(bytes, scale: 1, limits: .default, into: sink)
        #expect(sink.bands == 1 && sink.largestBand == sink.height)
    }

    @Test("a sink's error ends the decode")
    func sinkErrorStops() throws {
        for file in ["generated/odd_1001x667_420.jpg", "generated/odd_1001x667_422_prog.jpg"] {
            let sink = Collector()
            sink.failAtBand = 2
            #expect(throws: ImageCodecError(.invalidArgument, "sink refused band 2")) {
                try ImageCodec.decodeRows(try JPEGFixtures.bytes(file), into: sink)
            }
            #expect(sink.bands == 2)
        }
    }

    @Test("other formats are handed over as one band")
    func otherFormats() throws {
        let bitmap = try Bitmap(width: 5, height: 3, layout: .rgb, pixels: (0..<45).map { UInt8($0 * 5) })
        let png = try PNGEncoder.encode(bitmap)
        let sink = Collector()
        let result = try ImageCodec.decodeRows(png, into: sink)
        #expect(result.info.format == .png && sink.bands == 1 && sink.pixels == bitmap.pixels)
    }
}
