import Testing
@testable import ImageCodec

// The kernels are checked against plain reference versions written from the formulas in
// docs/jpeg-decoding.md (IDCTs, upsampling, colour): arrays, no shortcuts, no wrapping tricks.

// MARK: - Reference IDCTs

private func refRangeLimit(_ v: Int) -> UInt8 {
    let low = v & 1023
    let signed = low >= 512 ? low - 1024 : low
    return UInt8(min(max(signed + 128, 0), 255))
}

private func refDequant(_ coef: [Int16], _ quant: [UInt16], _ i: Int) -> Int {
    Int(coef[i]) * Int(Int16(bitPattern: quant[i]))
}

private func descale(_ x: Int, _ n: Int) -> Int { (x + (1 << (n - 1))) >> n }

private func toInt32(_ x: Int) -> Int { Int(Int32(truncatingIfNeeded: x)) }

/// §2 ISLOW 1-D step on c0..c7.
private func refIslow1D(_ c: [Int]) -> [Int] {
    let z1e = (c[2] + c[6]) * 4433
    let t2 = z1e - 15137 * c[6]
    let t3 = z1e + 6270 * c[2]
    let t0 = (c[0] + c[4]) << 13
    let t1 = (c[0] - c[4]) << 13
    let t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2
    var a = c[7], b = c[5], cc = c[3], d = c[1]
    var z1 = a + d, z2 = b + cc, z3 = a + cc, z4 = b + d
    let z5 = (z3 + z4) * 9633
    a *= 2446; b *= 16819; cc *= 25172; d *= 12299
    z1 *= -7373; z2 *= -20995; z3 *= -16069; z4 *= -3196
    z3 += z5; z4 += z5
    a += z1 + z3; b += z2 + z4; cc += z2 + z3; d += z1 + z4
    return [t10 + d, t11 + cc, t12 + b, t13 + a, t13 - a, t12 - b, t11 - cc, t10 - d]
}

private func refIDCT8(_ coef: [Int16], _ quant: [UInt16]) -> [UInt8] {
    var ws = [Int](repeating: 0, count: 64)
    for col in 0..<8 {
        let y = refIslow1D((0..<8).map { refDequant(coef, quant, col + 8 * $0) })
        for row in 0..<8 { ws[col + 8 * row] = toInt32(descale(y[row], 11)) }
    }
    var out = [UInt8](repeating: 0, count: 64)
    for row in 0..<8 {
        let y = refIslow1D(Array(ws[(8 * row)..<(8 * row + 8)]))
        for col in 0..<8 { out[8 * row + col] = refRangeLimit(descale(y[col], 18)) }
    }
    return out
}

/// §2 4×4 1-D step; `c` holds c0..c7, c4 is ignored.
private func ref4Point(_ c: [Int]) -> [Int] {
    let t0 = c[0] << 14
    let t2 = 15137 * c[2] - 6270 * c[6]
    let t10 = t0 + t2, t12 = t0 - t2
    let p = -1730 * c[7] + 11893 * c[5] - 17799 * c[3] + 8697 * c[1]
    let q = -4176 * c[7] - 4926 * c[5] + 7373 * c[3] + 20995 * c[1]
    return [t10 + q, t12 + p, t12 - p, t10 - q]
}

private func refIDCT4(_ coef: [Int16], _ quant: [UInt16]) -> [UInt8] {
    var ws = [Int](repeating: 0, count: 32)
    for col in 0..<8 where col != 4 {
        let y = ref4Point((0..<8).map { refDequant(coef, quant, col + 8 * $0) })
        for row in 0..<4 { ws[col + 8 * row] = toInt32(descale(y[row], 12)) }
    }
    var out = [UInt8](repeating: 0, count: 16)
    for row in 0..<4 {
        let y = ref4Point(Array(ws[(8 * row)..<(8 * row + 8)]))
        for col in 0..<4 { out[4 * row + col] = refRangeLimit(descale(y[col], 19)) }
    }
    return out
}

/// §2 2×2 1-D step; `c` holds c0..c7, only 0, 1, 3, 5, 7 are read.
private func ref2Point(_ c: [Int]) -> [Int] {
    let t10 = c[0] << 15
    let t0 = -5906 * c[7] + 6967 * c[5] - 10426 * c[3] + 29692 * c[1]
    return [t10 + t0, t10 - t0]
}

private func refIDCT2(_ coef: [Int16], _ quant: [UInt16]) -> [UInt8] {
    var ws = [Int](repeating: 0, count: 16)
    for col in [0, 1, 3, 5, 7] {
        let y = ref2Point((0..<8).map { refDequant(coef, quant, col + 8 * $0) })
        for row in 0..<2 { ws[col + 8 * row] = toInt32(descale(y[row], 13)) }
    }
    var out = [UInt8](repeating: 0, count: 4)
    for row in 0..<2 {
        let y = ref2Point(Array(ws[(8 * row)..<(8 * row + 8)]))
        for col in 0..<2 { out[2 * row + col] = refRangeLimit(descale(y[col], 20)) }
    }
    return out
}

private func refIDCT1(_ coef: [Int16], _ quant: [UInt16]) -> [UInt8] {
    [refRangeLimit(descale(refDequant(coef, quant, 0), 3))]
}

// MARK: - Running the kernels

private typealias Kernel = @Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void

/// Runs `kernel` into a buffer with a wider stride and guard bytes, checks that only the
/// size×size window was written, and returns the window row by row.
private func run(_ kernel: Kernel, size: Int, _ coef: [Int16], _ quant: [UInt16]) -> [UInt8] {
    let stride = size + 5
    let sentinel: UInt8 = 0xA5
    var buffer = [UInt8](repeating: sentinel, count: stride * (size + 1))
    coef.withUnsafeBufferPointer { c in
        quant.withUnsafeBufferPointer { q in
            buffer.withUnsafeMutableBufferPointer { b in
                kernel(c.baseAddress!, q.baseAddress!, b.baseAddress!, stride)
            }
        }
    }
    var window = [UInt8]()
    for row in 0..<(size + 1) {
        for col in 0..<stride {
            let v = buffer[row * stride + col]
            if row < size && col < size { window.append(v) } else { #expect(v == sentinel, "kernel wrote outside its window") }
        }
    }
    return window
}

private let kernels: [(size: Int, kernel: Kernel, ref: @Sendable ([Int16], [UInt16]) -> [UInt8])] = [
    (8, { ScaledIDCT.idct8x8($0, $1, $2, $3) }, refIDCT8),
    (8, ScaledIDCT.idct8x8Scalar, refIDCT8),
    (4, ScaledIDCT.idct4x4, refIDCT4),
    (2, ScaledIDCT.idct2x2, refIDCT2),
    (1, ScaledIDCT.idct1x1, refIDCT1),
]


/// A block shaped like real data: a DC, AC magnitudes falling with frequency, many zeros.
private func photoLikeBlock(_ rng: inout SplitMix64, density: Int) -> [Int16] {
    var coef = [Int16](repeating: 0, count: 64)
    coef[0] = Int16(rng.int(-1023...1023))
    for i in 1..<64 where rng.int(0...99) < density {
        let row = i / 8, col = i % 8
        let limit = max(1, 300 / (1 + row + col))
        coef[i] = Int16(rng.int(-limit...limit))
    }
    return coef
}

private func randomQuant(_ rng: inout SplitMix64, max: Int = 255) -> [UInt16] {
    (0..<64).map { _ in UInt16(rng.int(1...max)) }
}

// MARK: - IDCT tests

@Suite("JPEG kernels: IDCT")
struct ScaledIDCTTests {
    @Test("all sizes match the reference on random photo-like blocks")
    func randomBlocks() {
        var rng = SplitMix64(seed: 1)
        var mismatches = 0
        for n in 0..<20_000 {
            let quant = randomQuant(&rng, max: n % 3 == 0 ? 8 : 64)
            let coef = photoLikeBlock(&rng, density: [2, 10, 40, 100][n % 4])
            for k in kernels where run(k.kernel, size: k.size, coef, quant) != k.ref(coef, quant) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test("all sizes match the reference on extreme and corrupt inputs")
    func extremeBlocks() {
        var rng = SplitMix64(seed: 2)
        var cases: [([Int16], [UInt16])] = []
        let q255 = [UInt16](repeating: 255, count: 64)
        for sign in [Int16(1), -1] {
            cases.append(([Int16](repeating: 1023 * sign, count: 64), q255))
            cases.append(((0..<64).map { $0 % 2 == 0 ? 1023 * sign : -1023 * sign }, q255))
            cases.append(([Int16](repeating: Int16.max * sign, count: 64), [UInt16](repeating: .max, count: 64)))
        }
        cases.append(([Int16](repeating: .min, count: 64), [UInt16](repeating: 0x8000, count: 64)))
        for _ in 0..<5_000 {
            let coef = (0..<64).map { _ in Int16(truncatingIfNeeded: rng.next()) }
            let quant = (0..<64).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
            cases.append((coef, quant))
            cases.append(((0..<64).map { _ in Int16(rng.int(-1023...1023)) }, randomQuant(&rng)))
        }
        for (coef, quant) in cases {
            for k in kernels {
                #expect(run(k.kernel, size: k.size, coef, quant) == k.ref(coef, quant), "size \(k.size)")
            }
        }
    }

    @Test("DC-only blocks give one flat level: clamp(128 + ((DC·q + 4) >> 3)) at every size")
    func dcOnly() {
        for q in [1, 2, 7, 16, 99, 255] {
            // Sane data: the level before clamping stays in libjpeg's unwrapped range −512...511.
            for dc in -1023...1023 where abs(dc * q) < 4090 {
                var coef = [Int16](repeating: 0, count: 64)
                coef[0] = Int16(dc)
                var quant = [UInt16](repeating: 1, count: 64)
                quant[0] = UInt16(q)
                let level = UInt8(min(max(128 + ((dc * q + 4) >> 3), 0), 255))
                for k in kernels {
                    let px = run(k.kernel, size: k.size, coef, quant)
                    #expect(px.allSatisfy { $0 == level }, "size \(k.size) dc \(dc) q \(q)")
                }
            }
        }
    }

    @Test("4×4 and 2×2 are the box means of the 8×8 IDCT within ±1")
    func boxMean() {
        var rng = SplitMix64(seed: 3)
        var worst = [4: 0, 2: 0]
        var checked = 0
        while checked < 20_000 {
            // Moderate levels so that the 8×8 result is not clipped (clipping breaks the mean).
            var coef = photoLikeBlock(&rng, density: 30)
            coef[0] = Int16(rng.int(-300...300))
            let quant = randomQuant(&rng, max: 4)
            let full = refIDCT8(coef, quant)
            if full.contains(0) || full.contains(255) { continue }
            checked += 1
            for (size, kernel) in [(4, ScaledIDCT.idct4x4 as Kernel), (2, ScaledIDCT.idct2x2 as Kernel)] {
                let px = run(kernel, size: size, coef, quant)
                let group = 8 / size
                for r in 0..<size {
                    for c in 0..<size {
                        var sum = 0
                        for y in 0..<group { for x in 0..<group { sum += Int(full[(r * group + y) * 8 + c * group + x]) } }
                        let n = group * group
                        let mean = (sum + n / 2) / n
                        worst[size] = max(worst[size]!, abs(Int(px[r * size + c]) - mean))
                    }
                }
            }
        }
        print("box-mean worst |diff|: 4x4 \(worst[4]!), 2x2 \(worst[2]!) over \(checked) blocks")
        #expect(worst[4]! <= 1)
        #expect(worst[2]! <= 1)
    }
}

// MARK: - Upsampling

private func edge(_ a: [UInt8], _ i: Int) -> Int { Int(a[min(max(i, 0), a.count - 1)]) }

@Suite("JPEG kernels: upsampling")
struct UpsamplerTests {
    private func row(_ rng: inout SplitMix64, _ width: Int, extreme: Bool) -> [UInt8] {
        (0..<width).map { _ in extreme ? (rng.int(0...1) == 0 ? 0 : 255) : UInt8(rng.int(0...255)) }
    }

    @Test("fancy h2v1, h1v2, h2v2 and replication match the §3 formulas with repeated edges")
    func matchesFormulas() {
        var rng = SplitMix64(seed: 4)
        for width in 1...67 {
            for trial in 0..<20 {
                let a = row(&rng, width, extreme: trial % 4 == 0)
                let f = row(&rng, width, extreme: trial % 4 == 0)
                var out = [UInt8](repeating: 0, count: 4 * width + 1)

                a.withUnsafeBufferPointer { Upsampler.fancyH2V1($0.baseAddress!, width: width, &out) }
                var h2v1 = [UInt8]()
                for i in 0..<width {
                    let c3 = 3 * edge(a, i)
                    h2v1.append(UInt8((c3 + edge(a, i - 1) + 1) >> 2))
                    h2v1.append(UInt8((c3 + edge(a, i + 1) + 2) >> 2))
                }
                #expect(Array(out[0..<(2 * width)]) == h2v1, "h2v1 width \(width)")

                for upper in [true, false] {
                    Upsampler.fancyH1V2(near: a, far: f, width: width, upper: upper, &out)
                    let bias = upper ? 1 : 2
                    let h1v2 = (0..<width).map { UInt8((3 * Int(a[$0]) + Int(f[$0]) + bias) >> 2) }
                    #expect(Array(out[0..<width]) == h1v2, "h1v2 width \(width)")
                }

                Upsampler.fancyH2V2(near: a, far: f, width: width, &out)
                let sums = (0..<width).map { 3 * Int(a[$0]) + Int(f[$0]) }
                var h2v2 = [UInt8]()
                for i in 0..<width {
                    let c3: Int = 3 * sums[i]
                    let left: Int = sums[max(i - 1, 0)]
                    let right: Int = sums[min(i + 1, width - 1)]
                    h2v2.append(UInt8((c3 + left + 8) >> 4))
                    h2v2.append(UInt8((c3 + right + 7) >> 4))
                }
                #expect(Array(out[0..<(2 * width)]) == h2v2, "h2v2 width \(width)")

                for factor in 1...4 {
                    out[width * factor] = 0x5A
                    a.withUnsafeBufferPointer { Upsampler.replicate($0.baseAddress!, width: width, factor: factor, &out) }
                    #expect(Array(out[0..<(width * factor)]) == a.flatMap { [UInt8](repeating: $0, count: factor) })
                    #expect(out[width * factor] == 0x5A, "replicate wrote past its end")
                }
            }
        }
    }

    @Test("fancy filters leave flat rows flat")
    func flatStaysFlat() {
        for v in [UInt8(0), 1, 128, 254, 255] {
            let a = [UInt8](repeating: v, count: 9)
            var out = [UInt8](repeating: 0, count: 18)
            Upsampler.fancyH2V2(near: a, far: a, width: 9, &out)
            #expect(out.allSatisfy { $0 == v })
            Upsampler.fancyH2V1(a, width: 9, &out)
            #expect(out.allSatisfy { $0 == v })
        }
    }
}

// MARK: - Colour

private func refClamp(_ v: Int) -> Int { min(max(v, 0), 255) }

/// §4 table formulas, x = sample − 128; returns unclamped (R, G, B).
private func refYCC(_ y: Int, _ cb: Int, _ cr: Int) -> (Int, Int, Int) {
    let xb = cb - 128, xr = cr - 128
    let crr = (91881 * xr + 32768) >> 16
    let cbb = (116130 * xb + 32768) >> 16
    let crg = -46802 * xr
    let cbg = -22554 * xb + 32768
    return (y + crr, y + ((cbg + crg) >> 16), y + cbb)
}

/// round(c·k / 255) on raw inverted samples (§4 Pillow naive conversion).
private func refInk(_ c: Int, _ k: Int) -> UInt8 { UInt8((2 * c * k + 255) / 510) }

@Suite("JPEG kernels: colour")
struct ColourToRGBTests {
    @Test("YCbCr → RGB matches the §4 table formulas for every (Y, Cb, Cr)")
    func ycbcrExhaustive() {
        var y = [UInt8](), cb = [UInt8](), cr = [UInt8]()
        var mismatches = 0
        var out = [UInt8](repeating: 0, count: 3 * 65536)
        for yv in 0..<256 {
            y = [UInt8](repeating: UInt8(yv), count: 65536)
            cb = (0..<65536).map { UInt8($0 >> 8) }
            cr = (0..<65536).map { UInt8($0 & 255) }
            ColourToRGB.ycbcrToRGB(y: y, cb: cb, cr: cr, count: 65536, &out)
            for i in 0..<65536 {
                let (r, g, b) = refYCC(yv, i >> 8, i & 255)
                if Int(out[3 * i]) != refClamp(r) || Int(out[3 * i + 1]) != refClamp(g) || Int(out[3 * i + 2]) != refClamp(b) {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("known YCbCr points: grey stays grey, pure primaries")
    func ycbcrPoints() {
        var out = [UInt8](repeating: 0, count: 12)
        ColourToRGB.ycbcrToRGB(y: [128, 0, 255, 76], cb: [128, 128, 128, 85], cr: [128, 128, 128, 255], count: 4, &out)
        #expect(Array(out[0..<9]) == [128, 128, 128, 0, 0, 0, 255, 255, 255])
        #expect(Array(out[9..<12]) == [254, 0, 0])
    }

    @Test("CMYK → RGB is round(c·k/255) for every (c, k), and Pillow's MULDIV255 form")
    func cmykExhaustive() {
        let c = (0..<65536).map { UInt8($0 >> 8) }
        let k = (0..<65536).map { UInt8($0 & 255) }
        let m = c.reversed() as [UInt8]
        let y = [UInt8](repeating: 255, count: 65536)
        var out = [UInt8](repeating: 0, count: 3 * 65536)
        ColourToRGB.cmykToRGB(c: c, m: m, y: y, k: k, count: 65536, &out)
        var mismatches = 0
        for i in 0..<65536 {
            let kv = Int(k[i])
            if out[3 * i] != refInk(Int(c[i]), kv) || out[3 * i + 1] != refInk(Int(m[i]), kv) || out[3 * i + 2] != k[i] {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test("YCCK → RGB is ycck_cmyk_convert followed by the CMYK conversion")
    func ycck() {
        var rng = SplitMix64(seed: 5)
        let n = 200_000
        let y = (0..<n).map { _ in UInt8(rng.int(0...255)) }
        let cb = (0..<n).map { _ in UInt8(rng.int(0...255)) }
        let cr = (0..<n).map { _ in UInt8(rng.int(0...255)) }
        let k = (0..<n).map { _ in UInt8(rng.int(0...255)) }
        var out = [UInt8](repeating: 0, count: 3 * n)
        ColourToRGB.ycckToRGB(y: y, cb: cb, cr: cr, k: k, count: n, &out)
        var mismatches = 0
        for i in 0..<n {
            let (r, g, b) = refYCC(Int(y[i]), Int(cb[i]), Int(cr[i]))
            let kv = Int(k[i])
            let expected = [refInk(refClamp(255 - r), kv), refInk(refClamp(255 - g), kv), refInk(refClamp(255 - b), kv)]
            if Array(out[(3 * i)..<(3 * i + 3)]) != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("interleaving copies the three planes in order")
    func interleave() {
        var out = [UInt8](repeating: 0, count: 9)
        ColourToRGB.interleaveRGB(r: [1, 2, 3], g: [4, 5, 6], b: [7, 8, 9], count: 3, &out)
        #expect(out == [1, 4, 7, 2, 5, 8, 3, 6, 9])
    }
}
