import Testing
@testable import ImageCodec

/// Header parsing edge cases and limits, on small hand-made files.
@Suite struct JPEGMarkerTests {
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count + 2
        return [0xFF, marker, UInt8(n >> 8), UInt8(n & 255)] + payload
    }

    static func sof(_ marker: UInt8 = 0xC0, precision: UInt8 = 8, width: Int, height: Int, comps: [(UInt8, UInt8, UInt8)]) -> [UInt8] {
        var p: [UInt8] = [precision, UInt8(height >> 8), UInt8(height & 255), UInt8(width >> 8), UInt8(width & 255), UInt8(comps.count)]
        for c in comps { p += [c.0, c.1, c.2] }
        return segment(marker, p)
    }

    static let dqt = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
    static let soi: [UInt8] = [0xFF, 0xD8]

    /// A valid 8×8 gray image with the Annex K tables (no DHT): DC diff 0, EOB.
    static func tinyGray(extra: [UInt8] = []) -> [UInt8] {
        // DC luma code for size 0 is "00"; AC luma EOB is "1010": bits 00 1010 + 1-padding.
        soi + extra + dqt + sof(width: 8, height: 8, comps: [(1, 0x11, 0)])
            + segment(0xDA, [1, 1, 0x00, 0, 63, 0]) + [0x2B, 0xFF, 0xD9]
    }

    @Test func decodesWithoutDHTUsingAnnexKTables() throws {
        let image = try JPEGDecoder.decode(Self.tinyGray(), scale: 8, limits: .default)
        #expect(image.bitmap.layout == .gray)
        #expect(image.bitmap.pixels == [UInt8](repeating: 128, count: 64))
        #expect(image.warnings.isEmpty)
    }

    @Test func toleratesStrayBytesFillBytesAndAPPnAndCOM() throws {
        let app = Self.segment(0xE5, [1, 2, 3]) + Self.segment(0xFE, Array("hello".utf8))
        var bytes = Self.soi + [0xFF, 0xFF, 0xFF] + app + [0x12, 0x34] + Array(Self.tinyGray().dropFirst(2))
        let image = try JPEGDecoder.decode(bytes, scale: 8, limits: .default)
        #expect(image.bitmap.pixels.allSatisfy { $0 == 128 })
        #expect(image.warnings.contains { $0.contains("extraneous") })
        bytes.removeLast(2)
        _ = try JPEGDecoder.decode(bytes, scale: 1, limits: .default)
    }

    @Test func hugeHeaderFailsFastWithLimitExceeded() throws {
        let bytes = Self.soi + Self.dqt + Self.sof(width: 65000, height: 65000, comps: [(1, 0x11, 0), (2, 0x11, 0), (3, 0x11, 0)])
            + Self.segment(0xDA, [1, 1, 0x00, 0, 63, 0]) + [0x00, 0xFF, 0xD9]
        #expect(throws: ImageCodecError(.limitExceeded, "image size 65000x65000 exceeds the 256000000 pixel limit")) {
            _ = try JPEGDecoder.decode(bytes, scale: 1, limits: .default)
        }
        var small = DecodeLimits()
        small.maxPixels = 63
        do {
            _ = try JPEGDecoder.probe(Self.tinyGray(), limits: small)
            Issue.record("8x8 accepted with a 63-pixel limit")
        } catch let e as ImageCodecError {
            #expect(e.kind == .limitExceeded)
        }
    }

    @Test func scanLimit() throws {
        let bytes = try JPEGFixtures.bytes("generated/stream_420_q80_prog.jpg")
        var limits = DecodeLimits()
        limits.maxScans = 3
        do {
            _ = try JPEGDecoder.decode(bytes, scale: 1, limits: limits)
            Issue.record("scan limit ignored")
        } catch let e as ImageCodecError {
            #expect(e.kind == .limitExceeded)
        }
    }

    static func kind(_ bytes: [UInt8]) -> ImageCodecError.Kind? {
        do {
            _ = try JPEGDecoder.decode(bytes, scale: 8, limits: .default)
            return nil
        } catch let e as ImageCodecError {
            return e.kind
        } catch {
            return nil
        }
    }

    @Test func rejectsBadHeaders() throws {
        let scan = Self.segment(0xDA, [1, 1, 0x00, 0, 63, 0]) + [0x2B, 0xFF, 0xD9]
        let gray: [(UInt8, UInt8, UInt8)] = [(1, 0x11, 0)]
        // Not a JPEG, empty, lossless, arithmetic, 12-bit, 2 components, bad sampling, bad table slot.
        #expect(Self.kind([0x89, 0x50]) == .notAnImage)
        #expect(Self.kind(Self.soi) == .truncated)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(0xC3, width: 8, height: 8, comps: gray) + scan) == .unsupported)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(0xC9, width: 8, height: 8, comps: gray) + scan) == .unsupported)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(0xC1, precision: 12, width: 8, height: 8, comps: gray) + scan) == .unsupported)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(width: 8, height: 8, comps: [(1, 0x11, 0), (2, 0x11, 0)]) + scan) == .unsupported)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(width: 8, height: 8, comps: [(1, 0x51, 0)]) + scan) == .corrupt)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(width: 8, height: 8, comps: [(1, 0x11, 4)]) + scan) == .corrupt)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(width: 0, height: 8, comps: gray) + scan) == .corrupt)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(width: 65501, height: 8, comps: gray) + scan) == .limitExceeded)
        // Quant table never defined; SOS naming a missing component; SOS before SOF.
        #expect(Self.kind(Self.soi + Self.sof(width: 8, height: 8, comps: gray) + scan) == .corrupt)
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(width: 8, height: 8, comps: gray)
                          + Self.segment(0xDA, [1, 9, 0x00, 0, 63, 0]) + [0xFF, 0xD9]) == .corrupt)
        #expect(Self.kind(Self.soi + Self.dqt + scan) == .corrupt)
        // Undefined Huffman slot 2; truncated segment; segment length < 2.
        #expect(Self.kind(Self.soi + Self.dqt + Self.sof(width: 8, height: 8, comps: gray)
                          + Self.segment(0xDA, [1, 1, 0x22, 0, 63, 0]) + [0xFF, 0xD9]) == .corrupt)
        #expect(Self.kind(Self.soi + [0xFF, 0xDB, 0x00, 0x43, 0x00]) == .truncated)
        #expect(Self.kind(Self.soi + [0xFF, 0xFE, 0x00, 0x01]) == .corrupt)
    }

    @Test func rejectsBogusHuffmanTables() throws {
        // Three 1-bit codes cannot exist; 257 symbols; a DC symbol of 16.
        let three = Self.segment(0xC4, [0x00, 3] + [UInt8](repeating: 0, count: 15) + [0, 1, 2])
        #expect(Self.kind(Self.tinyGray(extra: three)) == .corrupt)
        let allOnes = Self.segment(0xC4, [0x10, 2] + [UInt8](repeating: 0, count: 15) + [0, 1])
        #expect(Self.kind(Self.tinyGray(extra: allOnes)) == .corrupt)
        let dc16 = Self.segment(0xC4, [0x00, 0, 1] + [UInt8](repeating: 0, count: 14) + [16])
        #expect(Self.kind(Self.tinyGray(extra: dc16)) == .corrupt)
        let badClass = Self.segment(0xC4, [0x20, 0, 1] + [UInt8](repeating: 0, count: 14) + [1])
        #expect(Self.kind(Self.tinyGray(extra: badClass)) == .corrupt)
    }

    @Test func progressiveParametersAreValidated() throws {
        let prog = Self.soi + Self.dqt + Self.sof(0xC2, width: 8, height: 8, comps: [(1, 0x11, 0), (2, 0x11, 0), (3, 0x11, 0)])
        // AC scan with two components; DC scan with Se != 0; Al > 13; Ah without Al = Ah - 1.
        let bad: [[UInt8]] = [
            [2, 1, 0, 2, 0, 1, 5, 0],
            [1, 1, 0, 0, 5, 0],
            [1, 1, 0, 0, 0, 14],
            [1, 1, 0, 1, 5, 0x30],
        ]
        for p in bad {
            #expect(Self.kind(prog + Self.segment(0xDA, p) + [0xFF, 0xD9]) == .corrupt, "\(p)")
        }
    }

    @Test func probeReadsColourSpaceAndExif() throws {
        let rgbIDs = Self.soi + Self.dqt + Self.sof(width: 16, height: 8, comps: [(0x52, 0x11, 0), (0x47, 0x11, 0), (0x42, 0x11, 0)])
            + Self.segment(0xDA, [1, 0x52, 0, 0, 63, 0])
        #expect(try JPEGDecoder.probe(rgbIDs, limits: .default).colorSpace == "RGB")
        let adobe = Self.segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1])
        let ycc = Self.soi + adobe + Array(rgbIDs.dropFirst(2))
        #expect(try JPEGDecoder.probe(ycc, limits: .default).colorSpace == "YCbCr")
        let info = try JPEGDecoder.probe(try JPEGFixtures.bytes("generated/orient_6.jpg"), limits: .default)
        #expect(info.orientation == .rotatedClockwise)
        #expect(info.sampling == ["2x2", "1x1", "1x1"])
        #expect(info.colorSpace == "YCbCr")
    }
}
