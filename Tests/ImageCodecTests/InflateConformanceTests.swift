import CZlib
import Foundation
import ImageFuzzChecks
import Testing
@testable import ImageCodec

/// `Inflate` against zlib: streams zlib's own deflate writes at every level and strategy over
/// data shaped to exercise each block type and match form, real PNG image data, every
/// truncation of a few streams, and output sizes around the exact one. Each must end the same
/// way with the same bytes (`InflateDifferential`).
@Suite struct InflateConformanceTests {
    /// zlib's deflate of `data` (zlib wrapper, or raw with `raw`).
    static func zlibDeflate(_ data: [UInt8], level: Int32, strategy: Int32 = Z_DEFAULT_STRATEGY, raw: Bool = false,
                            memLevel: Int32 = 8) -> [UInt8] {
        let z = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        z.initialize(to: z_stream())
        defer { deflateEnd(z); z.deinitialize(count: 1); z.deallocate() }
        precondition(czlib_deflateInit2(z, level, Z_DEFLATED, raw ? -15 : 15, memLevel, strategy) == Z_OK)
        var out = [UInt8](repeating: 0, count: Int(deflateBound(z, uLong(data.count))) + 64)
        let produced: Int = data.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                        z.pointee.next_in = i.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                z.pointee.avail_in = UInt32(i.count)
                z.pointee.next_out = o.baseAddress
                z.pointee.avail_out = UInt32(o.count)
                precondition(deflate(z, Z_FINISH) == Z_STREAM_END)
                return o.count - Int(z.pointee.avail_out)
            }
        }
        return Array(out.prefix(produced))
    }

    /// Inputs that push deflate into each path: incompressible bytes (stored blocks at level
    /// 0 and when nothing matches), a small alphabet (dynamic codes with long runs), one
    /// repeated byte (distance-1 matches of 258), a 32 KiB-period pattern (matches at the
    /// window's far edge), text-like runs and an empty input.
    static func samples(_ rng: inout SplitMix64) -> [(String, [UInt8])] {
        let random = (0..<70_000).map { _ in rng.byte() }
        let alphabet = (0..<90_000).map { _ in UInt8(rng.int(0...5) * 17) }
        let run = [UInt8](repeating: 7, count: 100_000) + [1, 2, 3] + [UInt8](repeating: 9, count: 5000)
        let block = (0..<32_768).map { _ in rng.byte() }
        var farMatches = block + block + block
        farMatches[40_000] ^= 0xFF
        var text: [UInt8] = []
        let words = ["the ", "gallery ", "deflate ", "tile ", "strip ", "x", "\n", "photo "]
        while text.count < 60_000 { text += Array(words[rng.int(0...7)].utf8) }
        var mixed: [UInt8] = []
        for i in 0..<400 { mixed += i % 3 == 0 ? (0..<200).map { _ in rng.byte() } : [UInt8](repeating: UInt8(i & 255), count: rng.int(1...400)) }
        return [("random", random), ("alphabet", alphabet), ("run", run), ("far", farMatches), ("text", text),
                ("mixed", mixed), ("empty", []), ("one", [42]), ("short", Array("abcabcabcabc".utf8))]
    }

    @Test func matchesZlibAtEveryLevelAndStrategy() {
        var rng = SplitMix64(seed: 0x1F1A7E)
        var checked = 0
        let strategies: [Int32] = [Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED]
        for (name, data) in Self.samples(&rng) {
            for level: Int32 in 0...9 {
                for strategy in strategies where level > 0 || strategy == Z_DEFAULT_STRATEGY {
                    for raw in [false, true] {
                        let stream = Self.zlibDeflate(data, level: level, strategy: strategy, raw: raw, memLevel: level == 9 ? 9 : 1 + Int32(level % 8))
                        var out = [UInt8](repeating: 0, count: max(1, data.count))
                        let n = stream.withUnsafeBufferPointer { s in
                            out.withUnsafeMutableBufferPointer { o in
                                InflateDifferential.inflateOurs(s, into: o.baseAddress!, capacity: o.count, raw: raw)
                            }
                        }
                        #expect(n == .complete(data.count) && Array(out.prefix(data.count)) == data,
                                "\(name) level \(level) strategy \(strategy) raw \(raw): \(n)")
                        // One byte short of room: zlib and we both stop full, with the same bytes.
                        if data.count > 1 {
                            let problem = stream.withUnsafeBufferPointer { InflateDifferential.disagreement($0, capacity: data.count - 1, raw: raw) }
                            #expect(problem == nil, "\(name) level \(level) capacity n-1: \(problem ?? "")")
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 9 * (1 + 9 * 5) * 2)
    }

    @Test func everyTruncationMatchesZlib() {
        var rng = SplitMix64(seed: 77)
        let data = (0..<3000).map { i in i % 700 < 350 ? UInt8(i % 7) : rng.byte() }
        var streams = [Self.zlibDeflate(data, level: 6), Self.zlibDeflate(data, level: 0),
                       Self.zlibDeflate(data, level: 1, strategy: Z_FIXED), Self.zlibDeflate(data, level: 9, strategy: Z_HUFFMAN_ONLY)]
        streams.append(Self.zlibDeflate(Array(repeating: 3, count: 5000), level: 9, raw: true))
        var cuts = 0
        for (k, stream) in streams.enumerated() {
            for length in 0...stream.count {
                let problem = stream.withUnsafeBufferPointer { s in
                    InflateDifferential.disagreement(UnsafeBufferPointer(rebasing: s[0..<length]), capacity: 6000, raw: k == 4)
                }
                #expect(problem == nil, "stream \(k) cut at \(length): \(problem ?? "")")
                cuts += 1
            }
        }
        #expect(cuts > 2000)
    }

    @Test func outputSizesAroundTheExactOneMatchZlib() {
        var rng = SplitMix64(seed: 5)
        for (name, data) in Self.samples(&rng) where data.count > 300 {
            let stream = Self.zlibDeflate(data, level: 6)
            for capacity in [1, 2, 100, 257, 258, 259, 274, 275, data.count / 2, data.count - 300, data.count - 1, data.count, data.count + 1, data.count + 4096] {
                let problem = stream.withUnsafeBufferPointer { InflateDifferential.disagreement($0, capacity: capacity, raw: false) }
                #expect(problem == nil, "\(name) capacity \(capacity): \(problem ?? "")")
            }
        }
    }

    /// The image data of every PngSuite file (IDAT chunks joined), as real encoders wrote it.
    @Test func pngImageDataMatchesZlib() throws {
        let dir = PNGFixtures.root.appendingPathComponent("pngsuite").path
        var streams = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where name.hasSuffix(".png") {
            let file = try PNGFixtures.bytes("pngsuite/" + name)
            var offset = 8, idat: [UInt8] = []
            while offset + 12 <= file.count {
                let length = Int(file[offset]) << 24 | Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8 | Int(file[offset + 3])
                guard offset + 12 + length <= file.count else { break }
                if file[offset + 4..<offset + 8].elementsEqual("IDAT".utf8) { idat += file[offset + 8..<offset + 8 + length] }
                offset += 12 + length
            }
            guard !idat.isEmpty else { continue }
            let problem = idat.withUnsafeBufferPointer { InflateDifferential.disagreement($0, capacity: 1 << 20, raw: false) }
            #expect(problem == nil, "\(name): \(problem ?? "")")
            streams += 1
        }
        #expect(streams > 150)
    }

    @Test func adler32MatchesZlib() {
        var rng = SplitMix64(seed: 9)
        for count in [0, 1, 15, 16, 17, 5551, 5552, 5553, 100_000] {
            let data = (0..<count).map { _ in count == 100_000 ? 255 : rng.byte() }
            let ours = data.withUnsafeBufferPointer { Adler32.checksum($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: count) }
            let theirs = data.withUnsafeBufferPointer { UInt32(adler32(1, $0.baseAddress, uInt(count))) }
            #expect(ours == theirs, "\(count) bytes")
        }
    }
}
