import CZlib
import Foundation
@testable import ImageCodec

/// Fixture access for the JPEG decoder tests: files under Tests/Fixtures/jpeg, the copied
/// manifest, and the packed djpeg references (see Tests/Fixtures/jpeg/tools/pack_references.py).
enum JPEGFixtures {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/jpeg")
    }()

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    struct Entry: @unchecked Sendable, CustomStringConvertible {
        let file: String
        let fields: [String: Any]
        var references: [String: String] { fields["references"] as? [String: String] ?? [:] }
        var optional: Bool { fields["optional"] as? Bool ?? false }
        var expected: String { fields["expected"] as? String ?? "decodes" }
        var equivalent: String? { fields["equivalent_decode"] as? String }
        var description: String { file }
    }

    static let manifest: [Entry] = {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("manifest.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = json["files"] as? [[String: Any]] else { return [] }
        return files.compactMap { f in (f["file"] as? String).map { Entry(file: $0, fields: f) } }
    }()

    nonisolated(unsafe) static let referenceIndex: [String: [String: Any]] = {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("reference/index.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] else { return [:] }
        return json
    }()

    /// A reference image: samples, or only the CRC-32 of the PNM file when it was too large to keep.
    enum Reference {
        case pixels(width: Int, height: Int, channels: Int, samples: [UInt8])
        case crc(UInt32, size: Int)
    }

    static func reference(_ path: String) throws -> Reference {
        guard let entry = referenceIndex[path] else { throw FixtureError("no packed reference for \(path)") }
        guard let file = entry["file"] as? String else {
            return .crc(UInt32((entry["crc32"] as? NSNumber)?.uint32Value ?? 0), size: (entry["size"] as? Int) ?? 0)
        }
        let blob = try bytes(file)
        guard blob.count > 4 else { throw FixtureError("short reference \(file)") }
        let size = Int(blob[0]) << 24 | Int(blob[1]) << 16 | Int(blob[2]) << 8 | Int(blob[3])
        var raw = [UInt8](repeating: 0, count: size)
        var rawLen = uLongf(size)
        let rc = blob.withUnsafeBufferPointer { src in
            raw.withUnsafeMutableBufferPointer { dst in
                uncompress(dst.baseAddress, &rawLen, src.baseAddress! + 4, uLong(blob.count - 4))
            }
        }
        guard rc == Z_OK, Int(rawLen) == size else { throw FixtureError("cannot inflate \(file) (\(rc))") }
        let (w, h, ch, offset) = try parsePNM(raw)
        var px = Array(raw[offset...])
        guard px.count == w * h * ch else { throw FixtureError("bad reference size \(file)") }
        let rb = w * ch
        for y in 0..<h {
            let base = y * rb
            if rb > ch {
                for x in ch..<rb { px[base + x] = px[base + x] &+ px[base + x - ch] }
            }
        }
        return .pixels(width: w, height: h, channels: ch, samples: px)
    }

    /// Parses a binary PNM header (P5, P6): width, height, channels and the sample offset.
    static func parsePNM(_ d: [UInt8]) throws -> (Int, Int, Int, Int) {
        guard d.count > 2, d[0] == 0x50, d[1] == 0x35 || d[1] == 0x36 else { throw FixtureError("not P5/P6") }
        var fields: [Int] = []
        var i = 2
        while fields.count < 3 {
            while i < d.count, [0x20, 0x0A, 0x0D, 0x09].contains(d[i]) { i += 1 }
            var v = 0
            while i < d.count, (0x30...0x39).contains(d[i]) { v = v * 10 + Int(d[i] - 0x30); i += 1 }
            fields.append(v)
        }
        return (fields[0], fields[1], d[1] == 0x35 ? 1 : 3, i + 1)
    }

    /// The PNM file djpeg would write for `bitmap`.
    static func pnm(_ bitmap: Bitmap) -> [UInt8] {
        let magic = bitmap.layout == .gray ? "P5" : "P6"
        return Array("\(magic)\n\(bitmap.width) \(bitmap.height)\n255\n".utf8) + bitmap.pixels
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Per-sample comparison figures.
struct SampleDiff {
    var maxAbs = 0
    var within1 = 0
    var total = 0
    var exact = 0
    var fractionWithin1: Double { total == 0 ? 1 : Double(within1) / Double(total) }

    init(_ a: [UInt8], _ b: [UInt8]) {
        total = min(a.count, b.count)
        for i in 0..<total {
            let d = abs(Int(a[i]) - Int(b[i]))
            maxAbs = max(maxAbs, d)
            if d <= 1 { within1 += 1 }
            if d == 0 { exact += 1 }
        }
    }
}
