import Foundation
import Testing
@testable import ImageCodec

/// Access to Tests/Fixtures/png (PngSuite, RGBA8 references, manifest) and small helpers
/// shared by the PNG test files.
enum PNGFixtures {
    struct Entry {
        var name: String
        var width: Int
        var height: Int
        var mustReject: Bool
        var interlaced: Bool
        var gamma: Double?
        var reference: String?
    }

    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/png")
    }()

    static func bytes(_ relative: String) throws -> [UInt8] {
        let path = root.appendingPathComponent(relative).path
        let data = try #require(FileManager.default.contents(atPath: path), "missing fixture \(path)")
        return [UInt8](data)
    }

    static let entries: [Entry] = {
        guard let data = FileManager.default.contents(atPath: root.appendingPathComponent("manifest.json").path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = json["files"] as? [[String: Any]] else { return [] }
        return files.compactMap { f in
            guard let file = f["file"] as? String else { return nil }
            return Entry(name: file, width: f["width"] as? Int ?? 0, height: f["height"] as? Int ?? 0,
                         mustReject: f["must_reject"] as? Bool ?? false, interlaced: f["interlaced"] as? Bool ?? false,
                         gamma: f["gAMA"] as? Double, reference: f["reference_rgba8"] as? String)
        }
    }()

    /// Reads a P7 PAM with DEPTH 4, MAXVAL 255 as an RGBA bitmap.
    static func pam(_ relative: String) throws -> Bitmap {
        let bytes = try bytes(relative)
        let marker = Array("ENDHDR\n".utf8)
        var end = 0
        while end + marker.count <= bytes.count, !bytes[end..<(end + marker.count)].elementsEqual(marker) { end += 1 }
        let header = String(decoding: bytes[0..<end], as: UTF8.self)
        var fields: [String: Int] = [:]
        for line in header.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Int(parts[1]) { fields[String(parts[0])] = v }
        }
        let w = try #require(fields["WIDTH"]), h = try #require(fields["HEIGHT"])
        #expect(fields["DEPTH"] == 4 && fields["MAXVAL"] == 255)
        return try Bitmap(width: w, height: h, layout: .rgba, pixels: Array(bytes[(end + marker.count)...]))
    }

    /// The reduction the decoder promises: rounded means of f×f blocks, colour weighted by
    /// alpha, written the plain way (independent of the decoder's streaming reducer).
    static func boxAverage(_ b: Bitmap, factor f: Int) throws -> Bitmap {
        let ow = (b.width + f - 1) / f, oh = (b.height + f - 1) / f, c = b.channels
        var out = [UInt8](repeating: 0, count: ow * oh * c)
        for oy in 0..<oh {
            for ox in 0..<ow {
                var sums = [Int](repeating: 0, count: c)
                var n = 0
                for y in (oy * f)..<min(oy * f + f, b.height) {
                    for x in (ox * f)..<min(ox * f + f, b.width) {
                        let p = (y * b.width + x) * c
                        let a = b.layout.hasAlpha ? Int(b.pixels[p + c - 1]) : 1
                        for k in 0..<c {
                            let isAlpha = b.layout.hasAlpha && k == c - 1
                            sums[k] += isAlpha ? a : Int(b.pixels[p + k]) * a
                        }
                        n += 1
                    }
                }
                let o = (oy * ow + ox) * c
                for k in 0..<c {
                    if b.layout.hasAlpha && k < c - 1 {
                        let alphaSum = sums[c - 1]
                        out[o + k] = alphaSum == 0 ? 0 : UInt8((sums[k] + alphaSum / 2) / alphaSum)
                    } else {
                        out[o + k] = UInt8((sums[k] + n / 2) / n)
                    }
                }
            }
        }
        return try Bitmap(width: ow, height: oh, layout: b.layout, pixels: out)
    }

    /// A PNG assembled from raw chunks, for hand-made test files.
    static func png(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var w = PNGChunkWriter()
        w.bytes = PNGChunkReader.signature
        for (type, data) in chunks { w.chunk(type, data) }
        return w.bytes
    }

    static func ihdr(width: Int, height: Int, depth: UInt8 = 8, colorType: UInt8, interlace: UInt8 = 0) -> [UInt8] {
        var d = [UInt8]()
        PNGChunkWriter.appendU32(&d, width)
        PNGChunkWriter.appendU32(&d, height)
        return d + [depth, colorType, 0, 0, interlace]
    }
}

@Suite struct PNGFixtureTests {
    @Test func manifestListsTheWholeSuite() throws {
        let entries = PNGFixtures.entries
        #expect(entries.count == 175)
        #expect(entries.filter(\.mustReject).count == 14)
        #expect(entries.filter { !$0.mustReject && $0.reference != nil }.count == 161)
    }
}
