import Foundation
import Testing
@testable import ImageCodec

/// Decodes every fixture the manifest expects to decode at 8/8, 4/8, 2/8 and 1/8 and compares
/// with libjpeg-turbo 2.1.5 `djpeg -dct int` (docs/jpeg-decoding.md). Required: max |diff| ≤ 2 and
/// ≥ 99.5 % of samples within ±1; references kept only as a CRC need a bit-exact decode.
@Suite struct JPEGConformanceTests {
    static let scales: [(Int, String)] = [(8, "full"), (4, "s1_2"), (2, "s1_4"), (1, "s1_8")]

    static let decodable: [JPEGFixtures.Entry] = JPEGFixtures.manifest.filter {
        $0.references["full"] != nil && !$0.file.contains("arith")
    }

    /// Compares one decode with its reference; returns (max diff, fraction within ±1).
    static func compare(_ image: DecodedImage, _ refPath: String, _ label: String) throws -> SampleDiff {
        switch try JPEGFixtures.reference(refPath) {
        case let .pixels(w, h, ch, samples):
            #expect(image.bitmap.width == w && image.bitmap.height == h && image.bitmap.channels == ch,
                    "\(label): size \(image.bitmap.width)x\(image.bitmap.height)x\(image.bitmap.channels), reference \(w)x\(h)x\(ch)")
            let d = SampleDiff(image.bitmap.pixels, samples)
            #expect(image.bitmap.pixels.count == samples.count, "\(label): sample count")
            #expect(d.maxAbs <= 2, "\(label): max abs diff \(d.maxAbs)")
            #expect(d.fractionWithin1 >= 0.995, "\(label): only \(d.fractionWithin1) within ±1")
            return d
        case let .crc(crc, size):
            let pnm = JPEGFixtures.pnm(image.bitmap)
            #expect(pnm.count == size && JPEGFixtures.crc32(pnm) == crc, "\(label): not bit-exact with the (CRC-only) reference")
            var d = SampleDiff([], [])
            if JPEGFixtures.crc32(pnm) != crc { d.maxAbs = 255 }
            return d
        }
    }

    @Test("decodes like djpeg at every scale", arguments: decodable)
    func matchesDjpeg(_ entry: JPEGFixtures.Entry) throws {
        let bytes = try JPEGFixtures.bytes(entry.file)
        for (m, key) in Self.scales {
            guard let ref = entry.references[key] else { continue }
            let image: DecodedImage
            do {
                image = try JPEGDecoder.decode(bytes, scale: m, limits: .default)
            } catch let e as ImageCodecError {
                // Optional files (unusual sampling) may be rejected, but only cleanly.
                #expect(entry.optional && e.kind == .unsupported, "\(entry.file) \(m)/8: \(e)")
                return
            }
            #expect(image.warnings.isEmpty, "\(entry.file) \(m)/8 warnings: \(image.warnings)")
            let d = try Self.compare(image, ref, "\(entry.file) \(m)/8")
            if d.exact != d.total {
                print("JPEG \(entry.file) \(m)/8: max \(d.maxAbs), exact \(d.exact)/\(d.total)")
            }
        }
    }

    @Test("worst figures per scale")
    func worstPerScale() throws {
        for (m, key) in Self.scales {
            var worst = 0, worstFraction = 1.0, files = 0, exactFiles = 0
            for entry in Self.decodable {
                guard let ref = entry.references[key],
                      let image = try? JPEGDecoder.decode(try JPEGFixtures.bytes(entry.file), scale: m, limits: .default)
                else { continue }
                let d = try Self.compare(image, ref, "\(entry.file) \(m)/8")
                files += 1
                if d.exact == d.total { exactFiles += 1 }
                worst = max(worst, d.maxAbs)
                worstFraction = min(worstFraction, d.fractionWithin1)
            }
            print("JPEG conformance \(m)/8: \(files) files, \(exactFiles) bit-exact, worst max abs diff \(worst), worst within ±1 \(worstFraction)")
            #expect(files >= 60)
        }
    }

    @Test("CMYK and YCCK files match Pillow's naive RGB", arguments: ["generated/flower_cmyk_adobe_q85.jpg", "generated/flower_ycck_adobe_q85.jpg"])
    func cmyk(_ file: String) throws {
        let entry = try #require(JPEGFixtures.manifest.first { $0.file == file })
        let ref = try #require(entry.references["rgb_naive_full"])
        let image = try JPEGDecoder.decode(try JPEGFixtures.bytes(file), scale: 8, limits: .default)
        #expect(image.info.colorSpace == (file.contains("ycck") ? "YCCK" : "CMYK"))
        let d = try Self.compare(image, ref, file)
        print("JPEG \(file) vs rgb_naive: max \(d.maxAbs), exact \(d.exact)/\(d.total)")
    }

    @Test("EXIF orientation then Orientation.apply gives full_oriented", arguments: 1...8)
    func orientation(_ k: Int) throws {
        let entry = try #require(JPEGFixtures.manifest.first { $0.file == "generated/orient_\(k).jpg" })
        let bytes = try JPEGFixtures.bytes(entry.file)
        let info = try JPEGDecoder.probe(bytes, limits: .default)
        #expect(info.orientation.rawValue == k)
        let image = try JPEGDecoder.decode(bytes, scale: 8, limits: .default)
        let upright = info.orientation.apply(to: image.bitmap)
        guard case let .pixels(w, h, _, samples) = try JPEGFixtures.reference(try #require(entry.references["full_oriented"])) else {
            Issue.record("oriented reference missing")
            return
        }
        #expect(upright.width == w && upright.height == h)
        let d = SampleDiff(upright.pixels, samples)
        #expect(d.maxAbs <= 2 && d.fractionWithin1 >= 0.995, "orient_\(k): max \(d.maxAbs)")
    }

    @Test("equivalent_decode files decode identically", arguments: JPEGFixtures.manifest.filter { $0.equivalent != nil })
    func equivalent(_ entry: JPEGFixtures.Entry) throws {
        let base = try #require(JPEGFixtures.manifest.first { $0.file.hasSuffix("/\(entry.equivalent ?? "").jpg") })
        for (m, _) in Self.scales {
            let a: DecodedImage
            do {
                a = try JPEGDecoder.decode(try JPEGFixtures.bytes(entry.file), scale: m, limits: .default)
            } catch let e as ImageCodecError {
                #expect(entry.optional && e.kind == .unsupported, "\(entry.file): \(e)")
                return
            }
            let b = try JPEGDecoder.decode(try JPEGFixtures.bytes(base.file), scale: m, limits: .default)
            #expect(a.bitmap == b.bitmap, "\(entry.file) differs from \(base.file) at \(m)/8")
        }
    }

    @Test("arithmetic and 12-bit files fail cleanly as unsupported",
          arguments: JPEGFixtures.manifest.filter { $0.file.contains("arith") || $0.file.contains("12") || $0.file.contains("testimgari") })
    func unsupported(_ entry: JPEGFixtures.Entry) throws {
        let bytes = try JPEGFixtures.bytes(entry.file)
        for m in [8, 1] {
            #expect(throws: ImageCodecError.self) { _ = try JPEGDecoder.decode(bytes, scale: m, limits: .default) }
            do {
                _ = try JPEGDecoder.decode(bytes, scale: m, limits: .default)
            } catch let e as ImageCodecError {
                #expect(e.kind == .unsupported, "\(entry.file): \(e)")
            }
        }
    }

    @Test("probe reports the header fields", arguments: JPEGFixtures.manifest)
    func probe(_ entry: JPEGFixtures.Entry) throws {
        let bytes = try JPEGFixtures.bytes(entry.file)
        let info: ImageInfo
        do {
            info = try JPEGDecoder.probe(bytes, limits: .default)
        } catch let e as ImageCodecError {
            #expect(entry.optional && e.kind == .unsupported, "\(entry.file): \(e)")
            return
        }
        #expect(info.format == .jpeg)
        #expect(info.width == entry.fields["width"] as? Int)
        #expect(info.height == entry.fields["height"] as? Int)
        #expect(info.components == entry.fields["components"] as? Int)
        #expect(info.progressive == entry.fields["progressive"] as? Bool)
        #expect(info.sampling == entry.fields["sampling"] as? [String])
        #expect(info.bitDepth == 8)
        if let o = entry.fields["orientation"] as? Int { #expect(info.orientation.rawValue == o) }
        #expect((info.iccProfile != nil) == (entry.fields["icc"] as? Bool ?? false), "\(entry.file) icc")
    }
}
