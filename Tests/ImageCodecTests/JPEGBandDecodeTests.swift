import Testing
@testable import ImageCodec

/// Band-by-band progressive decoding (`ProgressiveBandDecoder`) against the whole-image store:
/// the conformance suite proves the well-formed fixtures bit-exact with djpeg; here damaged
/// copies whose headers still read cleanly (flipped bytes in the entropy data: bad codes, stray
/// markers, runs past the block) must give the same pixels and warnings both ways, except that
/// a scan the scaled IDCT cannot see (every AC scan at 1/8) is skipped by bands, so warnings about
/// its data are missing there.
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
        var banded = 0, compared = 0, fewerWarnings = 0
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
            for m in [8, 2, 1] {
                let whole = Result { try JPEGDecoder.decode(b, scale: m, limits: .default, bands: false) }
                let bands = Result { try JPEGDecoder.decode(b, scale: m, limits: .default) }
                compared += 1
                switch (whole, bands) {
                case let (.success(w), .success(s)):
                    #expect(w.bitmap == s.bitmap, "\(file) round \(round) at \(m)/8: pixels differ")
                    if try Self.skipsScans(b, scale: m) {
                        if s.warnings.count < w.warnings.count { fewerWarnings += 1 }
                        // The warnings of the scans read, in the same order.
                        var rest = w.warnings[...]
                        for x in s.warnings {
                            guard let at = rest.firstIndex(of: x) else {
                                Issue.record("\(file) round \(round) at \(m)/8: \(x) not in \(w.warnings)")
                                break
                            }
                            rest = rest[(at + 1)...]
                        }
                    } else {
                        #expect(w.warnings == s.warnings, "\(file) round \(round) at \(m)/8: \(w.warnings) vs \(s.warnings)")
                    }
                case let (.failure(w as ImageCodecError), .failure(s as ImageCodecError)):
                    #expect(w.kind == s.kind && w.message == s.message, "\(file) round \(round) at \(m)/8")
                default:
                    let outcome = { (r: Result<DecodedImage, any Error>) in (try? r.get()) == nil ? "error" : "image" }
                    Issue.record("\(file) round \(round) at \(m)/8: \(outcome(whole)) whole-image, \(outcome(bands)) by bands")
                }
            }
        }
        print("JPEG band decode \(file): \(banded)/16 damaged copies decoded band by band, \(compared) decodes compared, "
              + "\(fewerWarnings) without the warnings of skipped scans")
    }

    /// The keep mask of each component at `scale`/8 (`CoefficientStore.Plane.keptMask`).
    static func keptMasks(_ frame: JPEGFrame, scale: Int) throws -> [UInt64] {
        let plan = try DecodePlan(frame: frame, scale: scale, colorSpace: .ycbcr)
        return try CoefficientStore(plan: plan, band: true).planes.map(\.keptMask)
    }

    /// Whether a band decode of `bytes` at `scale`/8 skips any scan (false without a layout).
    static func skipsScans(_ bytes: [UInt8], scale: Int) throws -> Bool {
        try bytes.withUnsafeBufferPointer { buf in
            var warnings: [String] = []
            let h = try JPEGDecoder.readHeaders(buf, limits: .default, warnings: &warnings)
            guard let layout = ProgressiveScanLayout(h, limits: .default) else { return false }
            let needed = ProgressiveScanLayout.scansNeeded(layout.entries.map(\.scan), kept: try keptMasks(h.frame, scale: scale))
            return needed.contains(false)
        }
    }

    @Test("at 1/8 only the DC scans of 1×1-IDCT components are decoded; at 8/8 every scan", arguments: progressive)
    func scansSkippedPerScale(_ file: String) throws {
        let bytes = try JPEGFixtures.bytes(file)
        try bytes.withUnsafeBufferPointer { buf in
            var warnings: [String] = []
            let h = try JPEGDecoder.readHeaders(buf, limits: .default, warnings: &warnings)
            let layout = try #require(ProgressiveScanLayout(h, limits: .default))
            let scans = layout.entries.map(\.scan)
            let plan = try DecodePlan(frame: h.frame, scale: 1, colorSpace: .ycbcr)
            let atEighth = ProgressiveScanLayout.scansNeeded(scans, kept: try Self.keptMasks(h.frame, scale: 1))
            for (scan, needed) in zip(scans, atEighth) {
                #expect(needed == (scan.ss == 0 || plan.components[scan.components[0]].idctSize > 1), "\(file)")
            }
            #expect(atEighth.contains(false), "\(file): no scan skipped at 1/8")
            #expect(!ProgressiveScanLayout.scansNeeded(scans, kept: try Self.keptMasks(h.frame, scale: 8)).contains(false))
        }
    }

    @Test("a scan is skipped only when it can write no kept position and no later scan read reads its band")
    func scanSkipRules() throws {
        let bytes = try JPEGFixtures.bytes("generated/odd_1001x667_422_prog.jpg")
        try bytes.withUnsafeBufferPointer { buf in
            var warnings: [String] = []
            let frame = try JPEGDecoder.readHeaders(buf, limits: .default, warnings: &warnings).frame
            func ac(_ c: Int, _ ss: Int, _ se: Int, refine: Bool = false) throws -> JPEGScanHeader {
                try JPEGScanHeader(payload: [1, frame.components[c].id, 0, UInt8(ss), UInt8(se), refine ? 0x10 : 0x01][...], frame: frame)
            }
            let dc = try JPEGScanHeader(payload: [3, frame.components[0].id, 0, frame.components[1].id, 0,
                                                  frame.components[2].id, 0, 0, 0, 0x01][...], frame: frame)
            let eighth = try Self.keptMasks(frame, scale: 1)
            let quarter = try Self.keptMasks(frame, scale: 2)
            // Luma at 2/8 keeps rows and columns 0, 1, 3, 5, 7: zigzag 16...19 are all outside.
            #expect(quarter[0] & ProgressiveScanLayout.positions(16, 19) == 0)
            let same = { (scans: [JPEGScanHeader], kept: [UInt64]) in ProgressiveScanLayout.scansNeeded(scans, kept: kept) }
            #expect(same([dc, try ac(0, 1, 5), try ac(0, 6, 63), try ac(0, 1, 63, refine: true)], eighth) == [true, false, false, false])
            // A refinement reaches Se + 1 (its new value there with corrupt runs).
            #expect(same([try ac(0, 16, 18, refine: true)], quarter) == [false])
            #expect(same([try ac(0, 16, 19, refine: true)], quarter) == [true])
            // A first scan's run can carry it 15 positions past Se.
            #expect(same([try ac(0, 16, 18)], quarter) == [true])
            // A later scan read needs the earlier scans over its band; an earlier one does not.
            #expect(same([try ac(0, 16, 18, refine: true), try ac(0, 1, 63, refine: true)], quarter) == [true, true])
            #expect(same([try ac(0, 1, 63, refine: true), try ac(0, 16, 18, refine: true)], quarter) == [true, false])
            // Per component: a luma scan read does not pull in a chroma scan.
            #expect(same([try ac(1, 16, 18, refine: true), try ac(0, 1, 63, refine: true)], quarter) == [false, true])
        }
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
