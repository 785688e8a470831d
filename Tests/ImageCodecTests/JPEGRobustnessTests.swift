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

    @Test("a progressive file cut short still renders what its scans reached")
    func truncatedProgressive() throws {
        let bytes = try JPEGFixtures.bytes("generated/stream_420_q80_prog.jpg")
        let image = try JPEGDecoder.decode(Array(bytes.prefix(bytes.count / 2)), scale: 8, limits: .default)
        #expect(image.bitmap.width == 300 && image.bitmap.height == 200)
        #expect(!image.warnings.isEmpty)
    }
}
