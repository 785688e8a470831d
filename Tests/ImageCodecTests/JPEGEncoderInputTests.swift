import Testing
@testable import ImageCodec

// The encoder's input stages (RGBToYCbCr, ChromaDownsampler) against libjpeg's C formulas
// (jccolor.c `rgb_ycc_convert`, jcsample.c `h2v2_downsample`) written out here as the
// reference: plain Int arithmetic, one pixel at a time.

private func refYCbCr(_ r: Int, _ g: Int, _ b: Int) -> (UInt8, UInt8, UInt8) {
    let y = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16
    let cb = (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16
    let cr = (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16
    return (UInt8(y), UInt8(cb), UInt8(cr))
}

private func refH2V2(_ top: [UInt8], _ bottom: [UInt8], outputWidth: Int) -> [UInt8] {
    (0..<outputWidth).map { i in
        let sum = Int(top[2 * i]) + Int(top[2 * i + 1]) + Int(bottom[2 * i]) + Int(bottom[2 * i + 1])
        return UInt8((sum + (i % 2 == 0 ? 1 : 2)) >> 2)
    }
}


/// Sample patterns: random, the extremes 0 and 255 (alone and mixed), and (patterns 4...)
/// one channel of every `period` random, the others 0 or 255.
private func sampleRow(_ pattern: Int, count: Int, period: Int, _ rng: inout SplitMix64) -> [UInt8] {
    (0..<count).map { i in
        switch pattern {
        case 0: return rng.byte()
        case 1: return 0
        case 2: return 255
        case 3: return rng.next() & 1 == 0 ? 0 : 255
        default: return i % period == pattern % period ? rng.byte() : (rng.next() & 1 == 0 ? 0 : 255)
        }
    }
}

@Suite struct JPEGEncoderInputTests {
    @Test func colourConversionMatchesLibjpegFormula() {
        var rng = SplitMix64(seed: 0x00C0_10C5)
        for channels in [3, 4] {
            for width in 1...40 {
                for pattern in 0..<(4 + channels) {
                    let pixels = sampleRow(pattern, count: width * channels, period: channels, &rng)
                    // Exactly sized buffers: a read or write past either end is a bug.
                    let src = UnsafeMutablePointer<UInt8>.allocate(capacity: pixels.count)
                    src.initialize(from: pixels, count: pixels.count)
                    let out = (0..<3).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: width) }
                    defer {
                        src.deallocate()
                        for p in out { p.deallocate() }
                    }
                    RGBToYCbCr.convertRow(src, channels: channels, width: width, y: out[0], cb: out[1], cr: out[2])
                    for x in 0..<width {
                        let s = x * channels
                        let want = refYCbCr(Int(pixels[s]), Int(pixels[s + 1]), Int(pixels[s + 2]))
                        let got = (out[0][x], out[1][x], out[2][x])
                        if got != want {
                            Issue.record("channels \(channels) width \(width) pattern \(pattern) x \(x) RGB \(pixels[s..<(s + 3)]): \(got) != \(want)")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test func everyColourMatchesLibjpegFormula() {
        // All 2^24 colours, 4096 pixels per row (a multiple of 16, so the vector path does
        // every one of them, with the one-pixel RGB tail at each row's end).
        let width = 4096
        let src = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 3)
        let out = (0..<3).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: width) }
        defer {
            src.deallocate()
            for p in out { p.deallocate() }
        }
        for row in 0..<(1 << 24) / width {
            for x in 0..<width {
                let c = row * width + x
                src[3 * x] = UInt8(c >> 16)
                src[3 * x + 1] = UInt8((c >> 8) & 255)
                src[3 * x + 2] = UInt8(c & 255)
            }
            RGBToYCbCr.convertRow(src, channels: 3, width: width, y: out[0], cb: out[1], cr: out[2])
            for x in 0..<width {
                let want = refYCbCr(Int(src[3 * x]), Int(src[3 * x + 1]), Int(src[3 * x + 2]))
                if (out[0][x], out[1][x], out[2][x]) != want {
                    Issue.record("RGB \(src[3 * x]) \(src[3 * x + 1]) \(src[3 * x + 2]): \((out[0][x], out[1][x], out[2][x])) != \(want)")
                    return
                }
            }
        }
    }

    @Test func downsamplingMatchesLibjpegFormula() {
        var rng = SplitMix64(seed: 0x0042_0420)
        // Odd widths (the scalar tail after the 16-output steps, with the bias parity carried
        // on), and the even ones around the step size.
        for outputWidth in Array(stride(from: 1, through: 67, by: 2)) + [2, 8, 16, 32, 48, 64] {
            for pattern in 0..<6 {
                let top = sampleRow(pattern, count: 2 * outputWidth, period: 2, &rng)
                let bottom = sampleRow((pattern + 1) % 6, count: 2 * outputWidth, period: 2, &rng)
                var got = [UInt8](repeating: 0, count: outputWidth)
                top.withUnsafeBufferPointer { t in
                    bottom.withUnsafeBufferPointer { b in
                        got.withUnsafeMutableBufferPointer { o in
                            ChromaDownsampler.h2v2(top: t.baseAddress!, bottom: b.baseAddress!,
                                                   out: o.baseAddress!, outputWidth: outputWidth)
                        }
                    }
                }
                #expect(got == refH2V2(top, bottom, outputWidth: outputWidth), "output width \(outputWidth) pattern \(pattern)")
            }
        }
    }
}
