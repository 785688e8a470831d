import Testing
@testable import ImageCodec

/// Band-by-band progressive decoding (`ProgressiveBandDecoder`) against the whole-image store:
/// the conformance suite proves the well-formed fixtures bit-exact with djpeg; here damaged
/// copies whose headers still read cleanly (flipped bytes in the entropy data: bad codes, stray
/// markers, runs past the block) must give the same pixels and warnings both ways.
@Suite struct JPEGBandDecodeTests {
    static let progressive = JPEGConformanceTests.decodable.filter { $0.file.contains("prog") }.map(\.file)

    @Test("damaged progressive data decodes the same band by band as whole-image", arguments: progressive)
    func damagedDataMatchesWholeImage(_ file: String) throws {
        let bytes = try JPEGFixtures.bytes(file)
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D ^ UInt64(bytes.count)
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        var banded = 0, compared = 0
        for round in 0..<16 {
            var b = bytes
            // Past the first quarter: mostly entropy data, so most copies keep a clean layout.
            for _ in 0..<(round < 8 ? 1 : 6) {
                let at = b.count / 4 + next() % (b.count - b.count / 4)
                b[at] = round % 4 == 0 ? 0xFF : b[at] ^ UInt8(truncatingIfNeeded: 1 | next())
            }
            if (try? b.withUnsafeBufferPointer { buf -> Bool in
                var warnings: [String] = []
                let h = try JPEGDecoder.readHeaders(buf, limits: .default, warnings: &warnings)
                return ProgressiveScanLayout(h, limits: .default) != nil
            }) == true { banded += 1 }
            for m in [8, 2] {
                let whole = Result { try JPEGDecoder.decode(b, scale: m, limits: .default, bands: false) }
                let bands = Result { try JPEGDecoder.decode(b, scale: m, limits: .default) }
                compared += 1
                switch (whole, bands) {
                case let (.success(w), .success(s)):
                    #expect(w.bitmap == s.bitmap, "\(file) round \(round) at \(m)/8: pixels differ")
                    #expect(w.warnings == s.warnings, "\(file) round \(round) at \(m)/8: \(w.warnings) vs \(s.warnings)")
                case let (.failure(w as ImageCodecError), .failure(s as ImageCodecError)):
                    #expect(w.kind == s.kind && w.message == s.message, "\(file) round \(round) at \(m)/8")
                default:
                    let outcome = { (r: Result<DecodedImage, any Error>) in (try? r.get()) == nil ? "error" : "image" }
                    Issue.record("\(file) round \(round) at \(m)/8: \(outcome(whole)) whole-image, \(outcome(bands)) by bands")
                }
            }
        }
        print("JPEG band decode \(file): \(banded)/16 damaged copies decoded band by band, \(compared) decodes compared")
    }

    @Test("a well-formed progressive file keeps one iMCU row of coefficients, a cut one the whole image")
    func storeSize() throws {
        let bytes = try JPEGFixtures.bytes("generated/odd_1001x667_422_prog.jpg")
        let whole = try JPEGDecoder.memoryEstimate(Array(bytes.prefix(bytes.count * 9 / 10)), scale: 2, limits: .default)
        let bands = try JPEGDecoder.memoryEstimate(bytes, scale: 2, limits: .default)
        let coefficients = { (e: DecodeMemoryEstimate) in e.parts.first { $0.name.hasPrefix("coefficients") } }
        // 1001×667 4:2:2 at 2/8: 126 × 84 luma blocks and 63 × 84 per chroma plane, 58 bytes each.
        #expect(coefficients(whole)?.bytes == (126 * 84 + 2 * 63 * 84) * 58)
        #expect(coefficients(bands)?.bytes == (126 + 2 * 63) * 58)
        #expect(coefficients(bands)?.name == "coefficients (one band)")
    }
}
