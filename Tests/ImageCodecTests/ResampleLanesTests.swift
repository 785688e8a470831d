import Testing
@testable import ImageCodec

/// The SIMD passes (`ResampleLanes.swift`) must give the scalar fixed-point result to the bit:
/// compared here with a plain reference of the same arithmetic (horizontal pass into 8-bit rows,
/// then vertical, 22-bit weights, premultiplied alpha), on random pixels, every layout, sizes
/// whose rows are not a multiple of the 8-row blocks nor columns of the 16-column strips.
@Suite struct ResampleLanesTests {
    @Test func lanesMatchTheScalarArithmetic() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        var compared = 0
        for layout in Bitmap.Layout.allCases {
            for (sw, sh) in [(61, 45), (203, 17), (9, 130)] {
                let c = layout.channels
                let pixels = (0..<(sw * sh * c)).map { i in layout.hasAlpha && i % c == c - 1 ? (i % 7 == 0 ? 0 : next()) : next() }
                let src = try Bitmap(width: sw, height: sh, layout: layout, pixels: pixels)
                let whole = Resampler.Region(x: 0, y: 0, width: Double(sw), height: Double(sh))
                let cases: [(Int, Int, Resampler.Region)] = [
                    (sw / 3 + 1, sh / 2 + 1, whole), (sw * 2, sh + 9, whole), (sw - 1, sh / 5 + 1, whole),
                    (5, 3, .init(x: 3.5, y: 2.25, width: Double(sw) / 2, height: Double(sh) / 2)),
                ]
                for (w, h, box) in cases {
                    let ours = try Resampler.resize(src, width: w, height: h, region: box)
                    let expected = Self.reference(src, w, h, box)
                    if ours.pixels != expected {
                        let first = zip(ours.pixels, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
                        Issue.record("\(layout) \(sw)x\(sh) → \(w)x\(h) \(box): first difference at byte \(first)")
                    }
                    compared += 1
                }
            }
        }
        print("resample lanes vs scalar arithmetic: \(compared) resizes identical")
    }

    /// The scalar arithmetic of `Resampler.resize` (both axes filtered), written out plainly.
    static func reference(_ b: Bitmap, _ width: Int, _ height: Int, _ box: Resampler.Region) -> [UInt8] {
        let c = b.channels
        var src = b.pixels
        if b.layout.hasAlpha {
            src.withUnsafeMutableBufferPointer { AlphaPremultiply.premultiply($0.baseAddress!, pixels: b.width * b.height, channels: c) }
        }
        let hw = ResampleWeights(inSize: b.width, outSize: width, offset: box.x, span: box.width, filter: .lanczos3)
        let vw = ResampleWeights(inSize: b.height, outSize: height, offset: box.y, span: box.height, filter: .lanczos3)
        let half = Int32(1) << (ResampleWeights.precisionBits - 1)
        var mid = [UInt8](repeating: 0, count: width * b.height * c)
        for y in 0..<b.height {
            for x in 0..<width {
                for ch in 0..<c {
                    var s = half
                    for i in 0..<Int(hw.count[x]) {
                        s &+= Int32(src[(y * b.width + Int(hw.start[x]) + i) * c + ch]) &* hw.weights[x * hw.stride + i]
                    }
                    mid[(y * width + x) * c + ch] = UInt8(clamping: s >> ResampleWeights.precisionBits)
                }
            }
        }
        var out = [UInt8](repeating: 0, count: width * height * c)
        for y in 0..<height {
            for j in 0..<(width * c) {
                var s = half
                for i in 0..<Int(vw.count[y]) {
                    s &+= Int32(mid[(Int(vw.start[y]) + i) * width * c + j]) &* vw.weights[y * vw.stride + i]
                }
                out[y * width * c + j] = UInt8(clamping: s >> ResampleWeights.precisionBits)
            }
        }
        if b.layout.hasAlpha {
            out.withUnsafeMutableBufferPointer { AlphaPremultiply.unpremultiply($0.baseAddress!, pixels: width * height, channels: c) }
        }
        return out
    }
}
