import Testing
@testable import ImageCodec

/// Damaged input: libjpeg's recovery (grey after a premature end, restart resynchronisation)
/// reproduced bit for bit where djpeg's output is known, and never a trap anywhere else.
@Suite struct JPEGRobustnessTests {
    /// Variants of stream_420_q80 made as in the test below, with the CRC-32 of the PNM that
    /// `djpeg -dct int -scale M/8` 2.1.5 wrote for them (it exits with status 2 and a warning).
    static let djpegCRCs: [(name: String, scale: Int, crc: UInt32)] = [
        ("cut50", 8, 987065663), ("cut50", 1, 3068468516),
        ("cut90", 8, 1123920638), ("cut90", 1, 3429828906),
        ("noRST2", 8, 4073018239), ("noRST2", 1, 4162929020),
        ("RST3as5", 8, 439144442), ("RST3as5", 1, 2080055667),
        ("flipped", 8, 2728979712), ("flipped", 1, 1215653830),
    ]

    static func variant(_ name: String) throws -> [UInt8] {
        let plain = try JPEGFixtures.bytes("generated/stream_420_q80.jpg")
        let rst = try JPEGFixtures.bytes("generated/stream_420_q80_rst1row.jpg")
        func find(_ b: [UInt8], _ m: UInt8) -> Int? { (0..<(b.count - 1)).first { b[$0] == 0xFF && b[$0 + 1] == m } }
        switch name {
        case "cut50": return Array(plain.prefix(plain.count / 2))
        case "cut90": return Array(plain.prefix(plain.count * 9 / 10))
        case "noRST2":
            let i = try #require(find(rst, 0xD2))
            return Array(rst[..<i] + rst[(i + 2)...])
        case "RST3as5":
            var b = rst
            b[try #require(find(rst, 0xD3)) + 1] = 0xD5
            return b
        default:
            var b = plain
            for k in 0..<5 { b[b.count / 3 + k * 997] ^= 0x55 }
            return b
        }
    }

    @Test("truncated and corrupted sequential data decode exactly as djpeg", arguments: 0..<10)
    func matchesDjpegRecovery(_ i: Int) throws {
        let c = Self.djpegCRCs[i]
        let image = try JPEGDecoder.decode(try Self.variant(c.name), scale: c.scale, limits: .default)
        #expect(JPEGFixtures.crc32(JPEGFixtures.pnm(image.bitmap)) == c.crc, "\(c.name) at \(c.scale)/8")
        if c.name != "flipped" { #expect(!image.warnings.isEmpty, "\(c.name) should warn") }
    }

    /// Cut at 10/50/90 %, single and burst byte flips, on every decodable fixture at 8/8 and 1/8:
    /// an error of a declared kind or an image of the right size, never a trap.
    @Test("damaged files give an error or an image, never a crash", arguments: JPEGConformanceTests.decodable)
    func neverCrashes(_ entry: JPEGFixtures.Entry) throws {
        let bytes = try JPEGFixtures.bytes(entry.file)
        var variants: [[UInt8]] = [10, 50, 90].map { Array(bytes.prefix(bytes.count * $0 / 100)) }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        for round in 0..<12 {
            var b = bytes
            let flips = round < 6 ? 1 : 8
            for _ in 0..<flips {
                let at = next() % b.count
                b[at] = round % 3 == 0 ? 0xFF : b[at] ^ UInt8(truncatingIfNeeded: 1 | next())
            }
            variants.append(b)
        }
        for v in variants {
            for m in [8, 1] {
                do {
                    let image = try JPEGDecoder.decode(v, scale: m, limits: .default)
                    #expect(image.bitmap.pixels.count == image.bitmap.width * image.bitmap.height * image.bitmap.channels)
                } catch is ImageCodecError {
                    // A clean rejection is fine.
                }
            }
        }
    }

    /// Progressive files cut at a percentage of their bytes, with the CRC-32 of djpeg's PNM:
    /// libjpeg smooths blocks whose low AC coefficients are still incomplete.
    static let truncatedProgressive: [(file: String, percent: Int, scale: Int, crc: UInt32)] = [
        ("stream_420_q80_prog", 15, 8, 1848187621),
        ("stream_420_q80_prog", 15, 4, 1726965675),
        ("stream_420_q80_prog", 15, 2, 3274836577),
        ("stream_420_q80_prog", 15, 1, 1205941841),
        ("stream_420_q80_prog", 30, 8, 3879337615),
        ("stream_420_q80_prog", 30, 4, 2257320292),
        ("stream_420_q80_prog", 30, 2, 61857497),
        ("stream_420_q80_prog", 30, 1, 2758101488),
        ("stream_420_q80_prog", 50, 8, 2014437947),
        ("stream_420_q80_prog", 50, 4, 1561631144),
        ("stream_420_q80_prog", 50, 2, 2496325024),
        ("stream_420_q80_prog", 50, 1, 2377329584),
        ("stream_420_q80_prog_customscans", 30, 8, 3740665318),
        ("stream_420_q80_prog_customscans", 30, 4, 2115887964),
        ("stream_420_q80_prog_customscans", 30, 2, 3677899927),
        ("stream_420_q80_prog_customscans", 30, 1, 808606130),
        ("stream_444_q80_prog", 50, 8, 1902172024),
        ("stream_444_q80_prog", 50, 4, 1444437636),
        ("stream_444_q80_prog", 50, 2, 2758493897),
        ("stream_444_q80_prog", 50, 1, 1335488735),
        ("stream_411_q80_prog", 30, 8, 943750891),
        ("stream_411_q80_prog", 30, 4, 2389802219),
        ("stream_411_q80_prog", 30, 2, 180573353),
        ("stream_411_q80_prog", 30, 1, 1449795314),
        ("stream_gray_q80_prog", 30, 8, 2293814898),
        ("stream_gray_q80_prog", 30, 4, 905082173),
        ("stream_gray_q80_prog", 30, 2, 2408045570),
        ("stream_gray_q80_prog", 30, 1, 3686259216),
    ]

    @Test("truncated progressive files decode exactly as djpeg (block smoothing)", arguments: 0..<28)
    func truncatedProgressive(_ i: Int) throws {
        let c = Self.truncatedProgressive[i]
        let bytes = try JPEGFixtures.bytes("generated/\(c.file).jpg")
        let image = try JPEGDecoder.decode(Array(bytes.prefix(bytes.count * c.percent / 100)), scale: c.scale, limits: .default)
        #expect(!image.warnings.isEmpty)
        #expect(JPEGFixtures.crc32(JPEGFixtures.pnm(image.bitmap)) == c.crc, "\(c.file) cut at \(c.percent) % at \(c.scale)/8")
    }

    @Test("concurrent decodes share no mutable state")
    func concurrentDecodes() async throws {
        let files = ["generated/stream_420_q80_prog.jpg", "generated/stream_420_q80_rst5B.jpg", "libjpeg-turbo/testorig.jpg"]
        let inputs = try files.map { try JPEGFixtures.bytes($0) }
        let expected = try inputs.map { try JPEGDecoder.decode($0, scale: 8, limits: .default).bitmap }
        let results = try await withThrowingTaskGroup(of: (Int, Bitmap).self) { group in
            for round in 0..<24 {
                let i = round % inputs.count
                let bytes = inputs[i]
                group.addTask { (i, try JPEGDecoder.decode(bytes, scale: 8, limits: .default).bitmap) }
            }
            var out: [(Int, Bitmap)] = []
            for try await r in group { out.append(r) }
            return out
        }
        #expect(results.count == 24)
        for (i, bitmap) in results { #expect(bitmap == expected[i], "\(files[i])") }
    }
}
