import Foundation
import Testing
@testable import ImageCodec

/// Hostile and damaged input: truncation, flipped bytes (with and without repaired CRCs),
/// zlib bombs, absurd sizes, bad chunks. None may crash; each must fail with an
/// `ImageCodecError` or decode exactly what the intact file decodes to.
@Suite struct PNGRobustnessTests {
    static let samples = ["basn2c08", "basi6a16", "basn3p02", "tbbn0g04", "basi0g01", "s09i3p02", "PngSuite", "z09n2c08"]

    @Test func everyTruncationFailsCleanlyOrDecodesTheWholeImage() throws {
        for name in Self.samples {
            let bytes = try PNGFixtures.bytes("pngsuite/\(name).png")
            let full = try PNGDecoder.decode(bytes, reduction: 1, limits: .default).bitmap
            var failures = 0
            for length in 0..<bytes.count {
                do {
                    let decoded = try PNGDecoder.decode(Array(bytes[0..<length]), reduction: 1, limits: .default)
                    #expect(decoded.bitmap == full, "\(name) cut at \(length) decoded differently")
                    #expect(!decoded.warnings.isEmpty, "\(name) cut at \(length): no warning")
                } catch is ImageCodecError {
                    failures += 1
                }
                _ = try? PNGDecoder.probe(Array(bytes[0..<length]), limits: .default)
            }
            #expect(failures > bytes.count - 40, "\(name): only \(failures) truncations failed")
        }
    }

    @Test func flippedBytesNeverCrash() throws {
        var rng = SplitMix64(seed: 0x5EED)
        var outcomes = (decoded: 0, failed: 0)
        for entry in PNGFixtures.entries {
            let bytes = try PNGFixtures.bytes(entry.name)
            for round in 0..<60 {
                var damaged = bytes
                for _ in 0..<(1 + round % 4) {
                    let index = Int(rng.next() % UInt64(damaged.count))
                    damaged[index] ^= UInt8(truncatingIfNeeded: rng.next() % 255 + 1)
                }
                if round % 7 == 3 { damaged = Array(damaged.prefix(Int(rng.next() % UInt64(damaged.count)))) }
                // 1-4 flipped bytes, sometimes also cut short; half the time repair the CRC so the damage reaches inflate and the unfilter.
                if round % 2 == 1 { Self.repairCRCs(&damaged) }
                for reduction in [1, 4] {
                    do {
                        let d = try PNGDecoder.decode(damaged, reduction: reduction, limits: .default)
                        #expect(d.bitmap.pixels.count == d.bitmap.width * d.bitmap.height * d.bitmap.channels)
                        outcomes.decoded += 1
                    } catch is ImageCodecError {
                        outcomes.failed += 1
                    }
                }
            }
        }
        print("PNG flipped bytes: \(outcomes.decoded) decodes, \(outcomes.failed) clean failures")
        #expect(outcomes.failed > 0 && outcomes.decoded > 0)
    }

    @Test func zlibBombInImageDataFailsFast() throws {
        // 4 M back-references of 258 bytes: 1 GiB of zeros from about 6.5 MB of IDAT.
        let bomb = Self.zeroBomb(repeats: 4 << 20)
        let png = PNGFixtures.png([("IHDR", PNGFixtures.ihdr(width: 64, height: 64, colorType: 0)), ("IDAT", bomb), ("IEND", [])])
        let start = Date()
        expectFailure(.corrupt) { try PNGDecoder.decode(png, reduction: 1, limits: .default) }
        let seconds = Date().timeIntervalSince(start)
        // Memory is bounded by construction (64 KiB staging past the expected 4,160 bytes); the
        // process's peak RSS is shared with the suites running in parallel, so it is not asserted.
        print(String(format: "PNG zlib bomb (1 GiB claimed): rejected in %.1f ms", seconds * 1000))
    }

    @Test func zlibBombInICCProfileIsDroppedAtTheCap() throws {
        let bomb = Self.zeroBomb(repeats: 1 << 18)  // 64 MiB
        let base = try PNGFixtures.bytes("pngsuite/basn0g08.png")
        let png = Self.insert([("iCCP", Array("bomb".utf8) + [0, 0] + bomb)], after: "IHDR", in: base)
        let decoded = try PNGDecoder.decode(png, reduction: 1, limits: .default)
        #expect(decoded.info.iccProfile == nil)
        #expect(decoded.warnings.contains { $0.contains("iCCP") })
    }

    @Test func hugeHeaderIsRejectedBeforeAllocation() throws {
        let png = PNGFixtures.png([("IHDR", PNGFixtures.ihdr(width: 65000, height: 65000, colorType: 6)),
                                   ("IDAT", Self.storedZlib([0])), ("IEND", [])])
        for call in [{ _ = try PNGDecoder.decode(png, reduction: 1, limits: .default) },
                     { _ = try PNGDecoder.decode(png, reduction: 8, limits: .default) },
                     { _ = try PNGDecoder.probe(png, limits: .default) }] {
            expectFailure(.limitExceeded) { try call() }
        }
    }

    @Test func sizesThatOverflowAreLimitErrorsEvenWithoutLimits() throws {
        let unlimited = DecodeLimits(maxPixels: .max, maxDimension: .max, maxScans: .max, maxInputBytes: .max, maxMetadataBytes: .max,
                                     maxMemoryBytes: .max)
        let png = PNGFixtures.png([("IHDR", PNGFixtures.ihdr(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, depth: 16, colorType: 6)),
                                   ("IDAT", Self.storedZlib([0])), ("IEND", [])])
        expectFailure(.limitExceeded) { try PNGDecoder.probe(png, limits: unlimited) }
        expectFailure(.limitExceeded) { try PNGDecoder.decode(png, reduction: 8, limits: unlimited) }
    }

    @Test func transparencyKeyIgnoresBitsAboveTheDepth() throws {
        // 2-bit gray, key 0x0102: only its low two bits (2) count, as in libpng.
        let png = PNGFixtures.png([("IHDR", PNGFixtures.ihdr(width: 4, height: 1, depth: 2, colorType: 0)), ("tRNS", [1, 2]),
                                   ("IDAT", Self.storedZlib([0, 0b00_01_10_11])), ("IEND", [])])
        let decoded = try PNGDecoder.decode(png, reduction: 1, limits: .default)
        #expect(decoded.bitmap.layout == .grayAlpha)
        #expect(decoded.bitmap.pixels == [0, 255, 85, 255, 170, 0, 255, 255])
    }

    @Test func chunkLengthOver2GiBIsCorrupt() throws {
        var png = try PNGFixtures.bytes("pngsuite/basn0g08.png")
        png[33] = 0x80  // the length of the chunk after IHDR
        expectFailure(.corrupt) { try PNGDecoder.decode(png, reduction: 1, limits: .default) }
    }

    @Test func badAncillaryCRCIsSkippedWithAWarning() throws {
        let base = try PNGFixtures.bytes("pngsuite/basn0g08.png")
        var png = Self.insert([("tEXt", Array("Comment\0hello".utf8)), ("gAMA", [0, 0, 0xB1, 0x8F])], after: "IHDR", in: base)
        png[33 + 8 + 13] ^= 0xFF  // the tEXt CRC
        let decoded = try PNGDecoder.decode(png, reduction: 1, limits: .default)
        #expect(decoded.bitmap == (try PNGDecoder.decode(base, reduction: 1, limits: .default)).bitmap)
        #expect(decoded.warnings.contains { $0.contains("tEXt") })
        #expect(decoded.info.gamma == 0.45455)
    }

    @Test func unknownChunksFollowTheirCriticalBit() throws {
        let base = try PNGFixtures.bytes("pngsuite/basn0g08.png")
        _ = try PNGDecoder.decode(Self.insert([("teST", [1, 2, 3])], after: "IHDR", in: base), reduction: 1, limits: .default)
        expectFailure(.unsupported) { try PNGDecoder.decode(Self.insert([("TEST", [1])], after: "IHDR", in: base), reduction: 1, limits: .default) }
    }

    @Test func paletteIndexPastPLTEIsCorrupt() throws {
        let png = PNGFixtures.png([("IHDR", PNGFixtures.ihdr(width: 2, height: 1, colorType: 3)), ("PLTE", [255, 0, 0]),
                                   ("IDAT", Self.storedZlib([0, 0, 1])), ("IEND", [])])
        expectFailure(.corrupt) { try PNGDecoder.decode(png, reduction: 1, limits: .default) }
    }

    @Test func imageDataLengthMustBeExact() throws {
        let header = PNGFixtures.ihdr(width: 2, height: 2, colorType: 0)
        let short = PNGFixtures.png([("IHDR", header), ("IDAT", Self.storedZlib([0, 1, 2, 0, 3])), ("IEND", [])])
        let long = PNGFixtures.png([("IHDR", header), ("IDAT", Self.storedZlib([0, 1, 2, 0, 3, 4, 0])), ("IEND", [])])
        let exact = PNGFixtures.png([("IHDR", header), ("IDAT", Self.storedZlib([0, 1, 2, 1, 3, 4])), ("IEND", [])])
        expectFailure(.truncated) { try PNGDecoder.decode(short, reduction: 1, limits: .default) }
        expectFailure(.corrupt) { try PNGDecoder.decode(long, reduction: 1, limits: .default) }
        #expect(try PNGDecoder.decode(exact, reduction: 1, limits: .default).bitmap.pixels == [1, 2, 3, 7])
    }

    @Test func metadataIsReportedNotApplied() throws {
        let base = try PNGFixtures.bytes("pngsuite/basn2c08.png")
        let profile = (0..<300).map { UInt8($0 % 251) }
        // eXIf after the image data: orientation 6 in a big-endian TIFF.
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        var png = Self.insert([("sRGB", [1]), ("iCCP", Array("sRGB test".utf8) + [0, 0] + Self.storedZlib(profile))],
                              after: "IHDR", in: base)
        png = Self.insert([("eXIf", tiff)], after: "IDAT", in: png)
        let info = try PNGDecoder.probe(png, limits: .default)
        #expect(info.srgbIntent == 1)
        #expect(info.iccProfile == profile)
        #expect(info.orientation == .rotatedClockwise)
        let decoded = try PNGDecoder.decode(png, reduction: 1, limits: .default)
        #expect(decoded.info == info)
        #expect(decoded.bitmap == (try PNGDecoder.decode(base, reduction: 1, limits: .default)).bitmap)
        var small = DecodeLimits.default
        small.maxMetadataBytes = 299
        #expect(try PNGDecoder.probe(png, limits: small).iccProfile == nil)
    }

    @Test func animatedPNGDecodesItsDefaultImage() throws {
        let base = try PNGFixtures.bytes("pngsuite/basn6a08.png")
        let fctl = [UInt8](repeating: 0, count: 4) + [0, 0, 0, 32, 0, 0, 0, 32] + [UInt8](repeating: 0, count: 14)
        var png = Self.insert([("acTL", [0, 0, 0, 2, 0, 0, 0, 0]), ("fcTL", fctl)], after: "IHDR", in: base)
        png = Self.insert([("fcTL", fctl), ("fdAT", [0, 0, 0, 2] + Self.storedZlib([1, 2, 3]))], after: "IDAT", in: png)
        let decoded = try PNGDecoder.decode(png, reduction: 1, limits: .default)
        #expect(decoded.bitmap == (try PNGDecoder.decode(base, reduction: 1, limits: .default)).bitmap)
    }

    /// The spec requires the IDAT chunks to be consecutive and libpng refuses a file whose
    /// image data resumes after another chunk; so do we, while a split run still decodes.
    @Test func imageDataMustBeOneRunOfIDATChunks() throws {
        for name in ["basn2c08", "basi0g01", "basn3p02"] {
            let base = try PNGFixtures.bytes("pngsuite/\(name).png")
            let full = try PNGDecoder.decode(base, reduction: 1, limits: .default).bitmap

            let split = Self.splitImageData(base, between: [])
            #expect(Self.chunkTypes(split).filter { $0 == "IDAT" }.count == 2)
            #expect(try PNGDecoder.decode(split, reduction: 1, limits: .default).bitmap == full, "\(name)")

            let intruders: [[(String, [UInt8])]] = [[("tEXt", Array("Comment\u{0}between the IDATs".utf8))],
                                                    [("zzZz", [1, 2])]]  // an unknown ancillary chunk
            for between in intruders {
                let broken = Self.splitImageData(base, between: between)
                for reduction in [1, 4] {
                    expectFailure(.corrupt) { try PNGDecoder.decode(broken, reduction: reduction, limits: .default) }
                }
                #expect(throws: ImageCodecError.self) { try ImageCodec.decode(broken) }
                // The header is still readable: a probe stops at the image data.
                #expect(try PNGDecoder.probe(broken, limits: .default).width == full.width)
            }
        }
    }

    @Test func reducedDecodeOfALargerImageWithAlpha() throws {
        var rng = SplitMix64(seed: 7)
        for layout in Bitmap.Layout.allCases {
            let (w, h) = (301, 157)
            var pixels = [UInt8](repeating: 0, count: w * h * layout.channels)
            for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: (i / 7 + Int(rng.next() % 40)) & 0xFF) }
            let image = try Bitmap(width: w, height: h, layout: layout, pixels: pixels)
            let png = try PNGEncoder.encode(image)
            for f in [2, 4, 8] {
                let reduced = try PNGDecoder.decode(png, reduction: f, limits: .default).bitmap
                #expect(reduced == (try PNGFixtures.boxAverage(image, factor: f)), "\(layout) 1/\(f)")
            }
        }
    }

    // MARK: - Helpers

    func expectFailure<T>(_ kind: ImageCodecError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () throws -> T) {
        do {
            _ = try body()
            Issue.record("expected a \(kind) error", sourceLocation: sourceLocation)
        } catch let error as ImageCodecError {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A zlib stream (fixed Huffman) inflating to one zero byte plus `repeats` × 258 more.
    static func zeroBomb(repeats: Int) -> [UInt8] {
        var w = DeflateBitWriter()
        w.bytes = [0x78, 0x01]
        w.put(1, 1); w.put(1, 2)          // final block, fixed Huffman
        w.putCode(0x30, 8)                 // literal 0
        for _ in 0..<repeats {
            w.putCode(0xC5, 8)             // length code 285 (258)
            w.putCode(0, 5)                // distance code 0 (1)
        }
        w.putCode(0, 7)                    // end of block
        w.flush()
        return w.bytes + [0, 0, 0, 0]      // wrong Adler-32: never reached
    }

    /// `data` as a zlib stream of stored blocks.
    static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let n = min(65535, data.count - start)
            let last: UInt8 = start + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[start..<(start + n)]
            start += n
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let adler = b << 16 | a
        return out + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
    }

    /// Inserts chunks after the first chunk of type `anchor` (after the last, for IDAT).
    static func insert(_ chunks: [(String, [UInt8])], after anchor: String, in png: [UInt8]) -> [UInt8] {
        var pos = 8, insertAt = 8
        while pos + 12 <= png.count {
            let length = Int(png[pos]) << 24 | Int(png[pos + 1]) << 16 | Int(png[pos + 2]) << 8 | Int(png[pos + 3])
            let type = String(decoding: png[(pos + 4)..<(pos + 8)], as: UTF8.self)
            pos += 12 + length
            if type == anchor { insertAt = pos; if anchor != "IDAT" { break } }
        }
        var writer = PNGChunkWriter()
        for (type, data) in chunks { writer.chunk(type, data) }
        return Array(png[0..<insertAt]) + writer.bytes + Array(png[insertAt...])
    }

    /// The file's chunk types in order.
    static func chunkTypes(_ png: [UInt8]) -> [String] {
        var pos = 8, types: [String] = []
        while pos + 12 <= png.count {
            let length = Int(png[pos]) << 24 | Int(png[pos + 1]) << 16 | Int(png[pos + 2]) << 8 | Int(png[pos + 3])
            types.append(String(decoding: png[(pos + 4)..<(pos + 8)], as: UTF8.self))
            pos += 12 + length
        }
        return types
    }

    /// `png` with its image data rewritten as two IDAT chunks (the data cut in half) and
    /// `between` placed between them; every other chunk stays where it was.
    static func splitImageData(_ png: [UInt8], between: [(String, [UInt8])]) -> [UInt8] {
        var chunks: [(String, [UInt8])] = [], data: [UInt8] = [], idatAt: Int?
        var pos = 8
        while pos + 12 <= png.count {
            let length = Int(png[pos]) << 24 | Int(png[pos + 1]) << 16 | Int(png[pos + 2]) << 8 | Int(png[pos + 3])
            let type = String(decoding: png[(pos + 4)..<(pos + 8)], as: UTF8.self)
            if type == "IDAT" {
                if idatAt == nil { idatAt = chunks.count }
                data += png[(pos + 8)..<(pos + 8 + length)]
            } else {
                chunks.append((type, Array(png[(pos + 8)..<(pos + 8 + length)])))
            }
            pos += 12 + length
        }
        let half = data.count / 2
        chunks.insert(contentsOf: [("IDAT", Array(data[..<half]))] + between + [("IDAT", Array(data[half...]))],
                      at: idatAt ?? chunks.count)
        return PNGFixtures.png(chunks)
    }

    /// Rewrites every complete chunk's CRC to match its (possibly damaged) contents.
    static func repairCRCs(_ png: inout [UInt8]) {
        var pos = 8
        while pos + 12 <= png.count {
            let length = Int(png[pos]) << 24 | Int(png[pos + 1]) << 16 | Int(png[pos + 2]) << 8 | Int(png[pos + 3])
            guard length <= png.count - pos - 12 else { return }
            let crc = png.withUnsafeBufferPointer { PNGChunkReader.crc($0.baseAddress! + pos + 4, count: length + 4) }
            let at = pos + 8 + length
            png[at] = UInt8(crc >> 24); png[at + 1] = UInt8((crc >> 16) & 0xFF)
            png[at + 2] = UInt8((crc >> 8) & 0xFF); png[at + 3] = UInt8(crc & 0xFF)
            pos = at + 4
        }
    }
}

/// Deflate's bit order: values LSB first, Huffman codes MSB first.
struct DeflateBitWriter {
    var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    mutating func put(_ value: UInt64, _ bits: Int) {
        buffer |= value << UInt64(count)
        count += bits
        while count >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            count -= 8
        }
    }

    mutating func putCode(_ code: UInt64, _ bits: Int) {
        var reversed: UInt64 = 0
        for i in 0..<bits where code & (1 << UInt64(i)) != 0 { reversed |= 1 << UInt64(bits - 1 - i) }
        put(reversed, bits)
    }

    mutating func flush() {
        if count > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        buffer = 0
        count = 0
    }
}

