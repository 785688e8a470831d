import Testing
@testable import ImageCodec

/// The Paeth filter's vector form for 3- and 4-byte pixels against the spec's nested
/// comparison, byte for byte, on random rows of every short length and some long ones (the
/// vector loop reads one pixel ahead and leaves a 3-byte row's last pixel to scalar code).
@Suite("PNG: Paeth unfilter")
struct PNGUnfilterTests {
    /// PNG spec 9.4, written as the spec writes it.
    static func reference(_ filtered: [UInt8], prior: [UInt8], bpp: Int) -> [UInt8] {
        var out = filtered
        for i in 0..<out.count {
            let a = i >= bpp ? Int(out[i - bpp]) : 0
            let b = Int(prior[i])
            let c = i >= bpp ? Int(prior[i - bpp]) : 0
            let p = a + b - c
            let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
            let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            out[i] = out[i] &+ UInt8(predictor)
        }
        return out
    }

    @Test(arguments: [3, 4])
    func matchesTheSpec(bpp: Int) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(bpp)
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let lengths = Array(1...24).map { $0 * bpp } + [1000 * bpp, 1001 * bpp]
        for count in lengths {
            for _ in 0..<4 {
                // Smooth rows (small differences, as in photos) and noise.
                let smooth = next() & 1 == 0
                var level = Int(next())
                let prior = (0..<count).map { _ -> UInt8 in
                    level = smooth ? (level + Int(next() % 7) - 3) & 0xFF : Int(next())
                    return UInt8(level)
                }
                let filtered = (0..<count).map { _ in smooth ? next() % 9 : next() }
                // One spare byte after the row, which must be left alone.
                var row = filtered + [0xA5]
                try prior.withUnsafeBufferPointer { p in
                    try row.withUnsafeMutableBufferPointer { r in
                        try PNGUnfilter.apply(type: 4, row: r.baseAddress!, prior: p.baseAddress!, count: count, bpp: bpp)
                    }
                }
                #expect(Array(row.prefix(count)) == Self.reference(filtered, prior: prior, bpp: bpp), "bpp \(bpp), \(count) bytes")
                #expect(row[count] == 0xA5)
            }
        }
    }
}
