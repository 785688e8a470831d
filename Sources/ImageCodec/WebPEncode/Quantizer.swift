/// Quality → quantiser indices, the per-segment quantisation matrices and RD multipliers,
/// and the quantisation of one block, following libwebp's encoder (src/enc/quant_enc.c):
///
/// - quality q (0...100) → c = (q < 75 ? q·2/3 : 2q − 100)/100, c_base = c^(1/3); segment s with
///   susceptibility α_s (−127...127) gets index ⌊127 · (1 − c_base^(1 − 0.9·sns/100/128 · α_s))⌋,
///   so `quality` means what it means for `cwebp -q`.
/// - step sizes: Y1 = (dc[i], ac[i]), Y2 = (2·dc[i], ac[i]·155/100 ≥ 8), UV = (dc[i + dqUVdc]
///   (index ≤ 117, so ≤ 132), ac[i + dqUVac]).
/// - rounding: level = (|c| + sharpen) · ⌊2^17/step⌋ + bias >> 17, with bias 96/256 of a step
///   for DC and 110 (Y1), 108 (Y2), 115 (UV) /256 for AC, and "sharpening" that raises Y1's
///   high frequencies by up to 90/2048 of a step; levels are capped at 2047.
/// - λ: i4 3q̄²/128, i16 3q̄², UV 3q̄²/64, mode choice q̄²/128 (q̄ = the matrix's mean step).
struct QuantMatrix {
    /// Per natural coefficient index: step, reciprocal 2^17/step, rounding bias, the largest
    /// |c| that still quantises to zero, and the sharpening bias.
    /// SIMD vectors so that `Quantize.block` reads each as one load.
    var step = SIMD16<Int32>(), reciprocal = SIMD16<Int32>(), bias = SIMD16<Int32>()
    var zeroThreshold = SIMD16<Int32>(), sharpen = SIMD16<Int32>()

    static let frequencySharpening: [Int32] = [0, 30, 60, 90, 30, 60, 90, 90, 60, 90, 90, 90, 90, 90, 90, 90]

    /// - kind: 0 = Y1 (sharpened), 1 = Y2, 2 = UV.
    init(dc: Int, ac: Int, kind: Int) {
        let biases: [(Int32, Int32)] = [(96, 110), (96, 108), (110, 115)]
        for i in 0..<16 {
            let s = Int32(i == 0 ? dc : ac)
            let b = i == 0 ? biases[kind].0 : biases[kind].1
            step[i] = s
            reciprocal[i] = (1 << 17) / s
            bias[i] = b << 9
            zeroThreshold[i] = ((1 << 17) - 1 - bias[i]) / reciprocal[i]
            sharpen[i] = kind == 0 ? (QuantMatrix.frequencySharpening[i] * s) >> 11 : 0
        }
    }

    /// The mean step, rounded: the base of the RD multipliers.
    var meanStep: Int {
        var sum: Int32 = 0
        for i in 0..<16 { sum += step[i] }
        return Int((sum + 8) >> 4)
    }
}

/// Everything one segment's macroblocks are coded with.
struct SegmentParameters {
    var quantIndex: Int
    var y1: QuantMatrix, y2: QuantMatrix, uv: QuantMatrix
    var lambdaI4: Int, lambdaI16: Int, lambdaUV: Int, lambdaMode: Int
    /// Loop-filter level (0...63) chosen for the segment.
    var filterLevel = 0

    init(quantIndex q: Int, uvDCDelta: Int, uvACDelta: Int) {
        quantIndex = q
        let dc = VP8Tables.dcStep, ac = VP8Tables.acStep
        y1 = QuantMatrix(dc: dc[q], ac: ac[q], kind: 0)
        y2 = QuantMatrix(dc: dc[q] * 2, ac: max(ac[q] * 155 / 100, 8), kind: 1)
        uv = QuantMatrix(dc: dc[min(max(q + uvDCDelta, 0), 117)], ac: ac[min(max(q + uvACDelta, 0), 127)], kind: 2)
        let q4 = y1.meanStep, q16 = y2.meanStep, quv = uv.meanStep
        lambdaI4 = max((3 * q4 * q4) >> 7, 1)
        lambdaI16 = max(3 * q16 * q16, 1)
        lambdaUV = max((3 * quv * quv) >> 6, 1)
        lambdaMode = max((q4 * q4) >> 7, 1)
    }

    /// cwebp's mapping of quality (0...100) and a segment's susceptibility α (−127...127, 0
    /// for a single segment) to a quantiser index, with spatial noise shaping `sns` (0...100).
    static func quantIndex(quality: Int, alpha: Int, sns: Int) -> Int {
        let qf = Double(quality) / 100
        let linear = qf < 0.75 ? qf * (2.0 / 3.0) : 2 * qf - 1
        let base = EncoderMath.pow(linear, 1.0 / 3.0)
        let amp = 0.9 * Double(sns) / 100 / 128
        let c = EncoderMath.pow(base, 1 - amp * Double(alpha))
        return min(max(Int(127 * (1 - c)), 0), 127)
    }
}

enum Quantize {
    /// Quantises the transform `coeffs` (natural order) from position `first` (0 or 1) of the
    /// zigzag scan on: writes the levels in scan order to `levels[0..<16]` (positions before
    /// `first` zero) and replaces `coeffs` by the dequantised values the decoder will see.
    /// Returns the scan position after the last non-zero level (0 when all are zero), which
    /// is where the token coder's end-of-block goes.
    ///
    /// All 16 lanes at once: the scalar form branched on every coefficient and its mispredicted
    /// branches were the largest cost of the 4×4 mode search.
    @inline(__always)
    static func block(_ coeffs: UnsafeMutablePointer<Int32>, _ levels: UnsafeMutablePointer<Int16>,
                      _ m: UnsafePointer<QuantMatrix>, first: Int) -> Int {
        // Masks are built with arithmetic shifts (−1 or 0 per lane) rather than SIMDMask and
        // `replacing`, which swiftc 6.3.1 sometimes leaves as a branchy lane-by-lane loop.
        let raw = UnsafeMutableRawPointer(coeffs)
        var c = raw.loadUnaligned(as: SIMD16<Int32>.self)
        if first != 0 { c[0] = 0 }  // position 0 of the scan is natural index 0
        let sign = c &>> 31
        let magnitude = ((c ^ sign) &- sign) &+ m.pointee.sharpen
        let keep = (m.pointee.zeroThreshold &- magnitude) &>> 31  // −1 where |c| does not quantise to 0
        var level = (magnitude &* m.pointee.reciprocal &+ m.pointee.bias) &>> 17
        let over = (2047 &- level) &>> 31
        level = ((level & ~over) | (2047 & over)) & keep
        level = (level ^ sign) &- sign
        raw.storeBytes(of: level &* m.pointee.step, as: SIMD16<Int32>.self)
        let l = SIMD16<Int16>(truncatingIfNeeded: level)
        // VP8Tables.zigzag spelled out, so that it compiles to a constant shuffle.
        let scan = SIMD16<Int16>(l[0], l[1], l[4], l[8], l[5], l[2], l[3], l[6], l[9], l[12], l[13], l[10], l[7], l[11], l[14], l[15])
        UnsafeMutableRawPointer(levels).storeBytes(of: scan, as: SIMD16<Int16>.self)
        // Scan position + 1 of each natural index (the inverse of the zigzag, plus one): the
        // largest over the non-zero levels is where the end-of-block goes.
        let ranked = SIMD16<Int32>(1, 2, 6, 7, 3, 5, 8, 13, 4, 9, 12, 14, 10, 11, 15, 16) & keep
        let half = pointwiseMax(ranked.lowHalf, ranked.highHalf)
        let quarter = pointwiseMax(half.lowHalf, half.highHalf)
        return Int(max(max(quarter[0], quarter[1]), max(quarter[2], quarter[3])))
    }
}
