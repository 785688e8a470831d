import Foundation
import Testing
@testable import ImageCodec

/// GIF, TIFF and camera raw fixtures (Tests/Fixtures/stills, made by make_fixtures.py) against
/// Pillow's decodes recorded in manifest.txt: 8-bit exact for GIF and lossless TIFF, close for
/// JPEG-compressed TIFF, the right embedded preview with the raw's EXIF for raws, and a typed
/// error, quickly, for each hostile file.
@Suite struct StillsFixtureTests {
    struct Entry: CustomStringConvertible {
        let file: String
        let kind: String
        let width: Int
        let height: Int
        let md5: String
        let facts: [String: String]
        var description: String { file }
    }

    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/stills")
    }()

    static let entries: [Entry] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("manifest.txt"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { line in
            let f = line.split(separator: " ").map(String.init)
            var facts: [String: String] = [:]
            for kv in f.dropFirst(5) {
                let p = kv.split(separator: "=", maxSplits: 1).map(String.init)
                facts[p[0]] = p[1].replacingOccurrences(of: "_", with: " ")
            }
            return Entry(file: f[0], kind: f[1], width: Int(f[2])!, height: Int(f[3])!, md5: f[4], facts: facts)
        }
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: root.appendingPathComponent(name).path)))
    }

    static func rgba(_ b: Bitmap) -> [UInt8] { b.converted(to: .rgba).pixels }

    @Test func manifestIsComplete() {
        #expect(Self.entries.count >= 45)
    }

    @Test(arguments: entries.filter { $0.kind == "exact" || $0.kind == "near" })
    func decodesLikePillow(_ e: Entry) throws {
        let bytes = try Self.bytes(e.file)
        let image = try ImageCodec.decode(bytes)
        #expect(image.bitmap.width == e.width && image.bitmap.height == e.height)
        let info = try ImageCodec.probe(bytes)
        #expect(info.width == e.width && info.height == e.height)
        #expect(info.format == (e.file.hasSuffix(".gif") ? .gif : .tiff))
        if e.kind == "exact" {
            #expect(WebPFixtures.md5(Self.rgba(image.bitmap)) == e.md5, "\(e.file) differs from Pillow")
        } else {
            // libtiff hands the JPEG to libjpeg with its own upsampling settings: close, not exact.
            let reference = try ImageCodec.decode(Self.bytes(e.file + ".ref.png")).bitmap
            let a = Self.rgba(image.bitmap), b = Self.rgba(reference)
            let diff = zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            #expect(Double(diff) / Double(a.count) < 1.5, "\(e.file) mean difference \(Double(diff) / Double(a.count))")
        }
        if let o = e.facts["orientation"] { #expect(info.orientation.rawValue == Int(o)) }
        if let frames = e.facts["frames"] { #expect(info.frameCount == Int(frames)) }
        if let d = e.facts["duration"] { #expect(abs((info.duration ?? 0) - Double(d)!) < 0.001) }
        if let icc = e.facts["icc"] { #expect(info.iccProfile?.count == Int(icc)) }
        if let make = e.facts["make"] { #expect(info.exif.make == make) }
        if let exposure = e.facts["exposure"] { #expect(info.exif.exposureTime.map { "\($0.numerator)/\($0.denominator)" } == exposure) }
    }

    /// Reduced decodes match a box average of the full decode (the PNG reducer's rule).
    @Test(arguments: ["tiff_rgb_lzw_pred.tif", "tiff_rgb_zip_tiled.tif", "tiff_planar_lzw.tif", "gif_interlaced.gif",
                      "tiff_rgba_unassoc.tif", "gif_offset.gif", "tiff_rgb_jpeg_tiled.tif"])
    func reducedDecodeIsBoxAverage(_ name: String) throws {
        let bytes = try Self.bytes(name)
        let full = try ImageCodec.decode(bytes).bitmap
        for scale in [DecodeScale.half, .quarter, .eighth] {
            let reduced = try ImageCodec.decode(bytes, scale: scale).bitmap
            let f = 8 / scale.numerator
            let expected = try PNGDecoder.decode(PNGEncoder.encode(full), reduction: f, limits: .default).bitmap
            #expect(reduced.width == expected.width && reduced.height == expected.height)
            #expect(reduced.pixels == expected.pixels, "\(name) at \(scale)")
            #expect(try ImageCodec.memoryEstimate(bytes, scale: scale) > 0)
        }
    }

    @Test(arguments: entries.filter { $0.kind == "raw" })
    func rawChoosesLargestPreview(_ e: Entry) throws {
        let bytes = try Self.bytes(e.file)
        for source in [MemoryByteSource(bytes)] {
            let info = try ImageCodec.probe(source: source)
            #expect(info.format == .raw)
            #expect(info.width == e.width && info.height == e.height)
            #expect(info.orientation.rawValue == Int(e.facts["orientation"]!))
            let name = e.facts["name"]!
            #expect(info.container == "\(name) · embedded preview \(e.width)×\(e.height)")
            if let make = e.facts["make"] { #expect(info.exif.make == make) }
            if let model = e.facts["model"] { #expect(info.exif.model == model) }
            if let exposure = e.facts["exposure"] { #expect(info.exif.exposureTime.map { "\($0.numerator)/\($0.denominator)" } == exposure) }
            if let iso = e.facts["iso"] { #expect(info.exif.iso == Int(iso)) }
            if e.facts["gps"] != nil { #expect(abs((info.exif.gps?.latitude ?? 0) - 48.85667) < 0.001) }
            let image = try ImageCodec.decode(source: source)
            #expect(WebPFixtures.md5(Self.rgba(image.bitmap)) == e.md5, "\(e.file): not the expected preview")
            let eighth = try ImageCodec.decode(source: source, scale: .eighth)
            #expect(eighth.bitmap.width == (e.width + 7) / 8)
            #expect(try ImageCodec.memoryEstimate(source: source, scale: .eighth) >= bytes.count / 2)
        }
        #expect(try ImageCodec.probe(bytes).format == .raw)
    }

    /// Hostile and refused files: a typed error or a bounded decode with warnings, each well
    /// under a second.
    @Test(arguments: entries.filter { ["error", "warn", "ok"].contains($0.kind) })
    func hostileFilesFailFast(_ e: Entry) throws {
        let bytes = try Self.bytes(e.file)
        let start = ContinuousClock.now
        switch e.kind {
        case "error":
            do {
                _ = try ImageCodec.decode(bytes, scale: .eighth)
                Issue.record("\(e.file) decoded")
            } catch let error as ImageCodecError {
                #expect(error.kind.rawValue == e.facts["kind"], "\(e.file): \(error)")
            }
        case "warn":
            let image = try ImageCodec.decode(bytes)
            #expect(image.bitmap.width == e.width && !image.warnings.isEmpty)
        default:
            let image = try ImageCodec.decode(bytes)
            #expect(image.bitmap.width == e.width)
        }
        #expect(ContinuousClock.now - start < .seconds(1), "\(e.file) took \(ContinuousClock.now - start)")
    }

    /// A CMYK TIFF with its profile goes through the device link the JPEG CMYK path uses,
    /// close to lcms (tificc) and unlike the naive inversion.
    @Test func cmykThroughItsProfile() throws {
        let bytes = try Self.bytes("tiff_cmyk_icc.tif")
        let info = try ImageCodec.probe(bytes)
        #expect(info.colorSpace == "CMYK" && info.iccProfile != nil)
        let transform = try #require(try ColourTransform.make(for: info))
        #expect(transform.convertsCMYK)
        let managed = try ImageCodec.decode(bytes, cmyk: transform).bitmap
        let naive = try ImageCodec.decode(bytes).bitmap
        let reference = try ImageCodec.decode(Self.bytes("tiff_cmyk_icc.tif.ref.png")).bitmap
        func meanDifference(_ a: Bitmap) -> Double {
            Double(zip(a.pixels, reference.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.pixels.count)
        }
        #expect(meanDifference(managed) < 3, "\(meanDifference(managed))")
        #expect(meanDifference(naive) > meanDifference(managed))
    }

    /// A raw's sensor data is never read: with 40 MB of it appended, probing and decoding a
    /// raw read its IFDs and the chosen preview (about 30 KB here; RAF reads its JPEG header twice), nothing more.
    @Test(arguments: ["raw_nef.nef", "raw_cr3.cr3", "raw_dng.dng", "raw_raf.raf"])
    func rawsReadOnlyIFDsAndPreview(_ name: String) throws {
        final class Counting: ByteSource, @unchecked Sendable {
            let inner: MemoryByteSource
            var read = 0
            init(_ bytes: [UInt8]) { inner = MemoryByteSource(bytes) }
            var size: Int { inner.size }
            func read(offset: Int, count: Int) throws -> [UInt8] {
                read += count
                return try inner.read(offset: offset, count: count)
            }
        }
        let bytes = try Self.bytes(name)
        let source = Counting(bytes + [UInt8](repeating: 0x5A, count: 40 << 20))
        _ = try ImageCodec.probe(source: source)
        #expect(source.read < 2 * bytes.count, "probe read \(source.read) bytes")
        source.read = 0
        _ = try ImageCodec.decode(source: source, scale: .eighth)
        #expect(source.read < 2 * bytes.count, "decode read \(source.read) bytes")
    }

    /// A CR3's XMP box (top-level `uuid` be7acfcb-...): its title, rating and keywords reach the
    /// probe; a box larger than the metadata limit is skipped, not read.
    @Test func cr3CarriesItsXMP() throws {
        let packet = Array(("<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
            + "<rdf:Description xmlns:xmp='http://ns.adobe.com/xap/1.0/' xmlns:dc='http://purl.org/dc/elements/1.1/' xmp:Rating='4'>"
            + "<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>Harbour at dawn</rdf:li></rdf:Alt></dc:title>"
            + "<dc:subject><rdf:Bag><rdf:li>boats</rdf:li><rdf:li>fog</rdf:li></rdf:Bag></dc:subject>"
            + "</rdf:Description></rdf:RDF></x:xmpmeta>").utf8)
        func xmpBox(_ payload: [UInt8]) -> [UInt8] {
            let size = 8 + 16 + payload.count
            return [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
                + Array("uuid".utf8) + CR3Preview.xmpUUID + payload
        }
        let raw = try Self.bytes("raw_cr3.cr3")
        let info = try ImageCodec.probe(raw + xmpBox(packet))
        #expect(info.format == .raw)
        #expect(info.text.title == "Harbour at dawn")
        #expect(info.text.rating == 4)
        #expect(info.text.keywords == ["boats", "fog"])
        var limits = DecodeLimits()
        limits.maxMetadataBytes = packet.count - 1
        #expect(try ImageCodec.probe(source: MemoryByteSource(raw + xmpBox(packet)), limits: limits).text.title == nil)
    }

    @Test func sniffsStillFormats() throws {
        #expect(ImageFormat.sniff(try Self.bytes("gif_basic.gif")) == .gif)
        #expect(ImageFormat.sniff(try Self.bytes("tiff_bigtiff_zip.tif")) == .tiff)
        #expect(ImageFormat.sniff(try Self.bytes("tiff_bigendian_lzw.tif")) == .tiff)
        for raw in ["raw_cr2.cr2", "raw_cr3.cr3", "raw_raf.raf", "raw_rw2.rw2", "raw_orf_small.orf"] {
            #expect(ImageFormat.sniff(try Self.bytes(raw)) == .raw, "\(raw)")
        }
        // DNG, NEF and ARW start like any TIFF: their IFDs tell them apart.
        #expect(ImageFormat.sniff(try Self.bytes("raw_dng.dng")) == .tiff)
        #expect(try ImageCodec.probe(Self.bytes("raw_dng.dng")).format == .raw)
    }

    /// Every prefix of a few fixtures either decodes or throws a typed error.
    @Test(arguments: ["gif_interlaced.gif", "tiff_rgb_lzw_tiled.tif", "raw_cr3.cr3", "raw_nef.nef", "tiff_bigtiff_zip.tif"])
    func truncationsNeverTrap(_ name: String) throws {
        let bytes = try Self.bytes(name)
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            _ = try? ImageCodec.decode(Array(bytes[0..<cut]), scale: .quarter)
        }
    }
}
