import Testing
@testable import ImageCodec

// VP8L's inverse predictor transform runs some modes four pixels at a time and the others on
// 16-bit lanes per pixel (`VP8LTransforms`); this test holds every mode to the lossless
// specification's per-channel arithmetic (section 4.1), written out plainly here, on random
// residuals and random mode blocks of several sizes and widths.

private func channel(_ v: UInt32, _ shift: UInt32) -> Int { Int((v >> shift) & 0xFF) }

private func perChannel(_ f: (Int) -> Int) -> UInt32 {
    var out: UInt32 = 0
    for shift: UInt32 in [0, 8, 16, 24] { out |= UInt32(f(Int(shift)) & 0xFF) << shift }
    return out
}

private func add(_ a: UInt32, _ b: UInt32) -> UInt32 { perChannel { channel(a, UInt32($0)) + channel(b, UInt32($0)) } }
private func average(_ a: UInt32, _ b: UInt32) -> UInt32 { perChannel { (channel(a, UInt32($0)) + channel(b, UInt32($0))) / 2 } }
private func clamp(_ v: Int) -> Int { min(max(v, 0), 255) }

private func predict(_ mode: UInt32, left l: UInt32, top t: UInt32, topLeft tl: UInt32, topRight tr: UInt32) -> UInt32 {
    switch mode {
    case 1: return l
    case 2: return t
    case 3: return tr
    case 4: return tl
    case 5: return average(average(l, tr), t)
    case 6: return average(l, tl)
    case 7: return average(l, t)
    case 8: return average(tl, t)
    case 9: return average(t, tr)
    case 10: return average(average(l, tl), average(t, tr))
    case 11:
        var pl = 0, pt = 0
        for s: UInt32 in [0, 8, 16, 24] {
            pl += abs(channel(l, s) - channel(tl, s))
            pt += abs(channel(t, s) - channel(tl, s))
        }
        return pl - pt <= 0 ? t : l
    case 12: return perChannel { s in clamp(channel(l, UInt32(s)) + channel(t, UInt32(s)) - channel(tl, UInt32(s))) }
    case 13:
        let a = average(l, t)
        return perChannel { s in
            let x = channel(a, UInt32(s)), y = channel(tl, UInt32(s))
            return clamp(x + (x - y) / 2)
        }
    default: return 0xFF00_0000
    }
}

/// The predictor transform undone pixel by pixel from the specification.
private func reference(_ residuals: [UInt32], width: Int, height: Int, bits: Int, modes: [UInt32]) -> [UInt32] {
    var out = residuals
    let blocksPerRow = (width + (1 << bits) - 1) >> bits
    for y in 0..<height {
        for x in 0..<width {
            let i = y * width + x
            let prediction: UInt32
            if y == 0 {
                prediction = x == 0 ? 0xFF00_0000 : out[i - 1]
            } else if x == 0 {
                prediction = out[i - width]
            } else {
                let mode = (modes[(y >> bits) * blocksPerRow + (x >> bits)] >> 8) & 0xF
                // The rightmost pixel's top-right is the leftmost pixel of its own row.
                prediction = predict(mode, left: out[i - 1], top: out[i - width], topLeft: out[i - width - 1],
                                     topRight: out[i - width + 1])
            }
            out[i] = add(residuals[i], prediction)
        }
    }
    return out
}

@Suite("VP8L inverse predictor on lanes")
struct WebPPredictorLanesTests {
    @Test("every mode, random residuals and mode blocks, equals the specification's arithmetic")
    func predictorModes() {
        var rng = SplitMix64(seed: 9914)
        var mismatches = 0
        for n in 0..<300 {
            let width = rng.int(1...70), height = rng.int(1...12), bits = rng.int(2...4)
            // Small residuals as well as random ones, so that clamps and ties happen both ways.
            let residuals = (0..<(width * height)).map { _ in
                n % 2 == 0 ? UInt32(truncatingIfNeeded: rng.next()) : UInt32(rng.int(0...3)) * 0x0101_0101 ^ UInt32(rng.int(0...255)) << 8
            }
            let blocks = ((width + (1 << bits) - 1) >> bits) * ((height + (1 << bits) - 1) >> bits)
            let modes = (0..<blocks).map { _ in UInt32(rng.int(0...15)) << 8 }
            let expected = reference(residuals, width: width, height: height, bits: bits, modes: modes)
            var actual = residuals
            actual.withUnsafeMutableBufferPointer {
                VP8LTransforms.undo(.init(kind: .predictor, bits: bits, width: width, data: modes), $0.baseAddress!, height: height)
            }
            if actual != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}
