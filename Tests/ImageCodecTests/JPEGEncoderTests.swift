import Foundation
import Testing
@testable import ImageCodec

/// The encoder against cjpeg 2.1.5 (sizes, and bytes where both use the same settings) and
/// against two decoders (djpeg and Pillow) for quality and odd sizes.
@Suite struct JPEGEncoderTests {
    typealias S = EncoderTestSupport

    static let cjpeg = "/usr/bin/cjpeg"
    static let djpeg = "/usr/bin/djpeg"

    @Test func qualityScalingMatchesLibjpeg() {
        #expect(QuantTables(quality: 50).luma == QuantTables.annexKLuma)
        #expect(QuantTables(quality: 50).chroma == QuantTables.annexKChroma)
        #expect(QuantTables(quality: 100).luma.allSatisfy { $0 == 1 })
        // Q75 → scale 50: (16·50 + 50) / 100 = 8.
        #expect(QuantTables(quality: 75).luma[0] == 8)
        // Q10 → scale 500: 16·5 = 80; 121·5 = 605 is clamped to 255 (baseline).
        let q10 = QuantTables(quality: 10)
        #expect(q10.luma[0] == 80)
        #expect(q10.luma.max() == 255)
        #expect(QuantTables(quality: 1).chroma.allSatisfy { $0 == 255 })
    }

    @Test func optimalTablesAreValidPrefixCodes() throws {
        // Skewed counts force lengths past 16 before adjustment.
        var counts = [Int](repeating: 0, count: 257)
        var f = 1
        for s in 0..<40 { counts[s] = f; f = min(f * 2, 1 << 40) }
        for spec in [HuffmanSpec.optimal(counts: counts), .optimal(counts: [5] + Array(repeating: 0, count: 256))] {
            #expect(spec.bits.count == 16)
            #expect(spec.values.count == spec.bits.reduce(0) { $0 + Int($1) })
            // Kraft sum strictly below 1: no code is all 1-bits.
            let kraft = spec.bits.enumerated().reduce(0.0) { $0 + Double($1.element) / pow(2, Double($1.offset + 1)) }
            #expect(kraft < 1)
            _ = try HuffmanCodes(spec)
        }
    }

    @Test func rejectsBadArguments() throws {
        let b = try Bitmap(width: 8, height: 8, layout: .rgb)
        #expect(throws: ImageCodecError.self) { try JPEGEncoder.encode(b, quality: 0) }
        #expect(throws: ImageCodecError.self) { try JPEGEncoder.encode(b, quality: 101) }
        let wide = try Bitmap(width: 65_501, height: 1, layout: .gray)
        #expect(throws: ImageCodecError.self) { try JPEGEncoder.encode(wide) }
    }

    /// Sizes against cjpeg at the same settings: must be within 5%; we also report whether the
    /// files are byte-identical (they are when our model matches cjpeg's exactly).
    @Test(.enabled(if: S.toolExists(Self.cjpeg)), arguments: [false, true])
    func sizeMatchesCjpeg(optimize: Bool) throws {
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var worst = 0.0
        var identical = 0, total = 0
        for name in S.photos {
            let bitmap = try S.photo(name)
            let src = S.fixture("jpeg/sources/\(name).ppm")
            for quality in [50, 75, 90] {
                for sub in [JPEGEncoder.Subsampling.s420, .s444] {
                    let ours = try JPEGEncoder.encode(bitmap, quality: quality, subsampling: sub, optimizeHuffman: optimize)
                    var args = ["-quality", "\(quality)", "-sample", sub == .s420 ? "2x2" : "1x1"]
                    if optimize { args.append("-optimize") }
                    let theirs = [UInt8](try S.run(Self.cjpeg, args + [src]))
                    let diff = Double(ours.count - theirs.count) / Double(theirs.count)
                    worst = max(worst, abs(diff))
                    total += 1
                    if ours == theirs { identical += 1 }
                    print("encode \(name) q\(quality) \(sub.rawValue)\(optimize ? " optimize" : ""): ours \(ours.count) B, cjpeg \(theirs.count) B, \(String(format: "%+.2f", diff * 100))%\(ours == theirs ? ", byte-identical" : "")")
                    #expect(abs(diff) <= 0.05, "\(name) q\(quality) \(sub): \(ours.count) vs \(theirs.count)")
                }
            }
        }
        print("encode vs cjpeg\(optimize ? " -optimize" : ""): worst size difference \(S.f1(worst * 100))%, \(identical)/\(total) byte-identical")
    }

    /// Round trip at quality 90 through djpeg and Pillow, beside cjpeg's file for the same
    /// settings. The issue asked for PSNR ≥ 38 dB, but these detailed photos do not reach that
    /// at q90 even through cjpeg (stream 4:2:0: 31.6 dB, statue 4:2:0: 37.4 dB, measured with
    /// libjpeg-turbo 2.1.5), so we assert that we lose nothing against cjpeg (within 0.05 dB)
    /// and a 30 dB floor, and print every figure.
    @Test(.enabled(if: S.toolExists(Self.djpeg) && S.toolExists(Self.cjpeg)), arguments: [JPEGEncoder.Subsampling.s420, .s444])
    func roundTripPSNR(subsampling: JPEGEncoder.Subsampling) throws {
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var worst = Double.infinity
        for name in S.photos {
            let bitmap = try S.photo(name)
            let path = dir + "/\(name).jpg"
            let reference = dir + "/\(name).cjpeg.jpg"
            try Data(try JPEGEncoder.encode(bitmap, quality: 90, subsampling: subsampling)).write(to: URL(fileURLWithPath: path))
            try S.run(Self.cjpeg, ["-quality", "90", "-sample", subsampling == .s420 ? "2x2" : "1x1",
                                   "-outfile", reference, S.fixture("jpeg/sources/\(name).ppm")])
            let cjpegPSNR = S.psnr(bitmap, try S.djpeg(reference))
            var decoded = [("djpeg", try S.djpeg(path))]
            if S.pillowAvailable { decoded.append(("Pillow", try S.pillowDecode(path))) }
            for (tool, image) in decoded {
                let p = S.psnr(bitmap, image)
                worst = min(worst, p)
                print("round trip \(name) q90 \(subsampling.rawValue) via \(tool): PSNR \(S.f1(p)) dB (cjpeg's file via djpeg: \(S.f1(cjpegPSNR)) dB)")
                #expect(p >= cjpegPSNR - 0.05, "\(name) \(subsampling) \(tool): \(p) dB vs cjpeg \(cjpegPSNR) dB")
                #expect(p >= 30, "\(name) \(subsampling) \(tool): \(p) dB")
            }
        }
        if !S.pillowAvailable { print("NOTE roundTripPSNR: Pillow is missing, djpeg only") }
        print("round trip q90 \(subsampling.rawValue): worst PSNR \(S.f1(worst)) dB")
    }

    /// A smooth synthetic image (gradients and a soft disc) does reach 38 dB at quality 90.
    @Test(.enabled(if: S.toolExists(Self.djpeg))) func smoothImageRoundTripAbove38dB() throws {
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = 257, h = 131
        var pixels = [UInt8]()
        for y in 0..<h {
            for x in 0..<w {
                let d = hypot(Double(x - 120), Double(y - 60)) / 50
                let disc = 1 / (1 + exp(4 * (d - 1)))
                pixels += [UInt8(Double(x) / Double(w) * 200 + 40 * disc), UInt8(Double(y) / Double(h) * 180 + 60 * disc), UInt8(90 + 100 * disc)]
            }
        }
        let bitmap = try Bitmap(width: w, height: h, layout: .rgb, pixels: pixels)
        for sub in [JPEGEncoder.Subsampling.s420, .s444] {
            let path = dir + "/smooth.jpg"
            try Data(try JPEGEncoder.encode(bitmap, quality: 90, subsampling: sub)).write(to: URL(fileURLWithPath: path))
            let p = S.psnr(bitmap, try S.djpeg(path))
            print("round trip smooth 257x131 q90 \(sub.rawValue) via djpeg: PSNR \(S.f1(p)) dB")
            #expect(p >= 38)
        }
    }

    /// Sizes that leave partial blocks and MCUs, and every layout: decodable, right size, close.
    @Test(.enabled(if: S.toolExists(Self.djpeg))) func oddSizesAndLayoutsDecode() throws {
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stream = try S.photo("stream_300x200")
        for (w, h) in [(1, 1), (7, 13), (17, 9), (33, 7), (2, 2), (16, 16), (64, 1), (1, 64)] {
            let crop = try stream.cropped(x: 100, y: 50, width: w, height: h)
            for layout in Bitmap.Layout.allCases {
                let input = crop.converted(to: layout)
                for sub in [JPEGEncoder.Subsampling.s420, .s444] {
                    for optimize in [false, true] {
                        let path = dir + "/odd_\(w)x\(h)_\(layout)_\(sub == .s420 ? 420 : 444)_\(optimize).jpg"
                        let bytes = try JPEGEncoder.encode(input, quality: 90, subsampling: sub, optimizeHuffman: optimize)
                        try Data(bytes).write(to: URL(fileURLWithPath: path))
                        let expected = input.layout.hasAlpha ? input.converted(to: input.channels == 2 ? .gray : .rgb) : input
                        var decoded = [try S.djpeg(path)]
                        if S.pillowAvailable { decoded.append(try S.pillowDecode(path)) }
                        for image in decoded {
                            #expect(image.width == w && image.height == h && image.layout == expected.layout, "\(path)")
                            guard image.width == w, image.height == h, image.layout == expected.layout else { continue }
                            // Tiny images at 4:2:0 lose colour detail: a loose sanity bound only.
                            let p = S.psnr(expected, image)
                            #expect(p >= 28, "\(path): PSNR \(p)")
                        }
                    }
                }
            }
        }
    }

    /// Gray input gives a one-component file that decodes to the same samples djpeg would get
    /// from cjpeg's encoding of the same PGM.
    @Test(.enabled(if: S.toolExists(Self.cjpeg))) func grayMatchesCjpeg() throws {
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gray = try S.photo("statue_192x288").converted(to: .gray)
        let pgm = dir + "/gray.pgm"
        try S.writePNM(gray, to: pgm)
        for optimize in [false, true] {
            let ours = try JPEGEncoder.encode(gray, quality: 80, optimizeHuffman: optimize)
            let theirs = [UInt8](try S.run(Self.cjpeg, ["-quality", "80"] + (optimize ? ["-optimize"] : []) + [pgm]))
            print("encode gray q80\(optimize ? " optimize" : ""): ours \(ours.count) B, cjpeg \(theirs.count) B\(ours == theirs ? ", byte-identical" : "")")
            #expect(abs(Double(ours.count - theirs.count)) <= 0.05 * Double(theirs.count))
            // SOF0 with one component.
            #expect(ours.count > 200 && ours.contains(0xC0))
        }
    }

    /// Partial blocks and MCUs at every remainder: crops of a photo and noise at sizes 1...35,
    /// gray and colour, both subsamplings, standard and optimised tables, must be
    /// byte-identical to cjpeg (which proves the edge replication and dummy blocks).
    @Test(.enabled(if: S.toolExists(Self.cjpeg))) func oddSizesByteIdenticalToCjpeg() throws {
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stream = try S.photo("stream_300x200")
        var generator = SystemRandomNumberGenerator()
        var checked = 0, identical = 0
        var sizes: [(Int, Int)] = [(1, 1), (7, 13), (17, 9), (33, 7), (16, 16), (15, 17), (8, 1), (1, 8)]
        for _ in 0..<12 { sizes.append((Int.random(in: 1...35, using: &generator), Int.random(in: 1...35, using: &generator))) }
        for (i, (w, h)) in sizes.enumerated() {
            var image = try stream.cropped(x: 37 * i % 250, y: 11 * i % 150, width: w, height: h)
            if i % 3 == 2 { image.pixels = image.pixels.map { _ in UInt8.random(in: 0...255, using: &generator) } }
            for gray in [false, true] {
                let input = gray ? image.converted(to: .gray) : image
                let pnm = dir + "/in_\(i)_\(gray).pnm"
                try S.writePNM(input, to: pnm)
                for sub in gray ? [JPEGEncoder.Subsampling.s420] : [.s420, .s444] {
                    for optimize in [false, true] {
                        let quality = [35, 75, 95][(i + checked) % 3]
                        let ours = try JPEGEncoder.encode(input, quality: quality, subsampling: sub, optimizeHuffman: optimize)
                        // cjpeg's default for gray input is 1×1 sampling (as ours); -sample would change it.
                        let sampling = gray ? [] : ["-sample", sub == .s420 ? "2x2" : "1x1"]
                        let theirs = [UInt8](try S.run(Self.cjpeg, ["-quality", "\(quality)"] + sampling
                                                      + (optimize ? ["-optimize"] : []) + [pnm]))
                        checked += 1
                        let same = ours == theirs
                        if same { identical += 1 }
                        #expect(same, "\(w)x\(h) gray \(gray) \(sub) optimize \(optimize) q\(quality): \(ours.count) vs \(theirs.count) B")
                    }
                }
            }
        }
        print("odd sizes vs cjpeg: \(identical)/\(checked) byte-identical")
    }
}
