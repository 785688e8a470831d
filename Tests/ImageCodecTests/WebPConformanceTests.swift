import Foundation
import Testing
@testable import ImageCodec

/// WebP fixtures (Tests/Fixtures/webp, made by make_fixtures.py with cwebp/webpmux 1.2.4)
/// against the MD5 of dwebp's default decode recorded in their manifest. When a decode
/// differs and dwebp is installed, the per-file max diff and share of samples within ±1 are
/// computed from a fresh dwebp run and printed.
enum WebPFixtures {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/webp")
    }()

    struct Entry: Sendable, CustomStringConvertible {
        let file: String
        let width: Int
        let height: Int
        let alpha: Bool
        let md5: String
        var description: String { file }
    }

    static let entries: [Entry] = {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("manifest.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = json["files"] as? [[String: Any]] else { return [] }
        return files.compactMap { f in
            guard let file = f["file"] as? String, let w = f["width"] as? Int, let h = f["height"] as? Int,
                  let alpha = f["alpha"] as? Bool, let md5 = f["md5"] as? String else { return nil }
            return Entry(file: file, width: w, height: h, alpha: alpha, md5: md5)
        }
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(name)))
    }

    /// RFC 1321 MD5 as lowercase hex (Foundation on Linux has no digest API).
    static func md5(_ bytes: [UInt8]) -> String {
        let s: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                           5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21,
                           6, 10, 15, 21, 6, 10, 15, 21]
        let k: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }
        var message = bytes
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        let bitLength = UInt64(bytes.count) &* 8
        for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        for chunk in stride(from: 0, to: message.count, by: 64) {
            var m = [UInt32](repeating: 0, count: 16)
            for i in 0..<16 {
                for b in 0..<4 { m[i] |= UInt32(message[chunk + i * 4 + b]) << (8 * UInt32(b)) }
            }
            var a = h[0], b = h[1], c = h[2], d = h[3]
            for i in 0..<64 {
                var f: UInt32, g: Int
                switch i {
                case 0..<16: f = (b & c) | (~b & d); g = i
                case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * i) % 16
                }
                f = f &+ a &+ k[i] &+ m[g]
                a = d; d = c; c = b
                b = b &+ ((f << s[i]) | (f >> (32 - s[i])))
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d
        }
        return h.flatMap { v in (0..<4).map { String(format: "%02x", (v >> (8 * UInt32($0))) & 0xFF) } }.joined()
    }

    static let dwebp: String? = ["/usr/bin/dwebp", "/usr/local/bin/dwebp"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// dwebp's RGB or RGBA samples for `file` (a still image), or nil without dwebp.
    static func reference(_ file: String, alpha: Bool) -> [UInt8]? {
        guard let dwebp else { return nil }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("webp-ref-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: dwebp)
        p.arguments = [root.appendingPathComponent(file).path, alpha ? "-pam" : "-ppm", "-o", out.path]
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        guard p.terminationStatus == 0, let data = try? Data(contentsOf: out) else { return nil }
        let bytes = [UInt8](data)
        // Skip the header: PPM has 4 whitespace-separated fields, PAM ends with "ENDHDR\n".
        if alpha {
            guard let r = data.range(of: Data("ENDHDR\n".utf8)) else { return nil }
            return Array(bytes[r.upperBound...])
        }
        var fields = 0, i = 0
        while fields < 4 && i < bytes.count {
            while i < bytes.count && [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
            while i < bytes.count && ![0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
            fields += 1
        }
        return Array(bytes[(i + 1)...])
    }
}

@Suite struct WebPConformanceTests {
    @Test func fixturesMatchDwebp() throws {
        #expect(WebPFixtures.entries.count >= 29)
        var exact = 0
        var failures: [String] = []
        print("file                                   size    max diff  within ±1")
        for entry in WebPFixtures.entries {
            let bytes = try WebPFixtures.bytes(entry.file)
            do {
                let decoded = try ImageCodec.decode(bytes)
                let bitmap = decoded.bitmap.converted(to: entry.alpha ? .rgba : .rgb)
                #expect(bitmap.width == entry.width && bitmap.height == entry.height, "\(entry.file) size")
                #expect(decoded.bitmap.layout.hasAlpha == entry.alpha, "\(entry.file) alpha")
                var line = "\(entry.file.padding(toLength: 38, withPad: " ", startingAt: 0)) \(entry.width)x\(entry.height)"
                if WebPFixtures.md5(bitmap.pixels) == entry.md5 {
                    exact += 1
                    line += "   0         100%"
                } else if let reference = WebPFixtures.reference(entry.file, alpha: entry.alpha), reference.count == bitmap.pixels.count {
                    let diffs = zip(bitmap.pixels, reference).map { abs(Int($0) - Int($1)) }
                    let within = Double(diffs.filter { $0 <= 1 }.count) * 100 / Double(max(diffs.count, 1))
                    line += "   \(diffs.max() ?? 0)         \(String(format: "%.2f", within))%"
                    failures.append(entry.file)
                } else {
                    line += "   differs (md5; no dwebp for a diff)"
                    failures.append(entry.file)
                }
                print(line)
            } catch {
                print("\(entry.file): \(error)")
                failures.append("\(entry.file): \(error)")
            }
        }
        print("WebP conformance: \(exact)/\(WebPFixtures.entries.count) identical to dwebp")
        #expect(failures.isEmpty, "differ: \(failures)")
    }
}
