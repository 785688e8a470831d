/// Per-output-sample filter weights for one axis of a resize, in fixed point.
///
/// This is the scheme Pillow's `Resample.c` uses (and that our quality check compares with):
/// - the filter is stretched by the downscale factor (support × max(1, in/out)), so a
///   reduction is an antialiasing convolution, not point sampling;
/// - output sample i is centred at input position (i + 0.5) · in/out; the window is clipped
///   to the image and the remaining weights are renormalised to sum to 1, so edges neither
///   darken nor need padding;
/// - weights are rounded to 22-bit fixed point (8-bit samples × weights sum fit in Int32
///   with headroom for the negative lobes).
struct ResampleWeights {
    /// Fixed-point fraction bits of every weight.
    static let precisionBits: Int32 = 22

    /// First input index read for each output index.
    let start: [Int32]
    /// How many input samples each output index reads (≤ `stride`).
    let count: [Int32]
    /// `stride` weights per output index, the first `count` of them used.
    let weights: [Int32]
    let stride: Int

    /// Lowest input index any output reads, and one past the highest.
    let firstInput: Int
    let endInput: Int

    /// Weights for resampling the input span [offset, offset + span) of `inSize` samples to
    /// `outSize` samples with `filter`. Sizes are positive and the span lies inside the input
    /// (the caller checked them).
    init(inSize: Int, outSize: Int, offset: Double = 0, span: Double? = nil, filter: Resampler.Filter) {
        let scale = (span ?? Double(inSize)) / Double(outSize)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        // ceil without libm (the test bundle does not link it): support is positive and small.
        let whole = Int(support)
        let stride = (Double(whole) < support ? whole + 1 : whole) * 2 + 1
        var start = [Int32](repeating: 0, count: outSize)
        var count = [Int32](repeating: 0, count: outSize)
        var weights = [Int32](repeating: 0, count: outSize * stride)
        var raw = [Double](repeating: 0, count: stride)
        let one = Double(1 << ResampleWeights.precisionBits)
        let reciprocal = 1 / filterScale
        for i in 0..<outSize {
            let center = offset + (Double(i) + 0.5) * scale
            // Truncation toward zero as in C, then clipped to the image.
            let lo = max(Int(center - support + 0.5), 0)
            let hi = min(Int(center + support + 0.5), inSize)
            let n = max(hi - lo, 0)
            var total = 0.0
            for k in 0..<n {
                let w = filter.weight((Double(k + lo) - center + 0.5) * reciprocal)
                raw[k] = w
                total += w
            }
            for k in 0..<n {
                let w = total != 0 ? raw[k] / total : raw[k]
                weights[i * stride + k] = Int32(w < 0 ? w * one - 0.5 : w * one + 0.5)
            }
            start[i] = Int32(lo)
            count[i] = Int32(n)
        }
        firstInput = Int(start.first ?? 0)
        endInput = zip(start, count).map { Int($0 + $1) }.max() ?? inSize
        self.start = start
        self.count = count
        self.weights = weights
        self.stride = stride
    }
}

extension Resampler.Filter {
    /// Half-width of the kernel in input samples at scale 1.
    var support: Double {
        switch self {
        case .lanczos3: 3
        case .bicubic: 2
        case .triangle: 1
        }
    }

    /// The kernel at distance `x` (in output-scaled units).
    func weight(_ x: Double) -> Double {
        switch self {
        case .lanczos3:
            guard x > -3, x < 3 else { return 0 }
            return Self.sinc(x) * Self.sinc(x / 3)
        case .bicubic:
            // Keys' cubic with a = -0.5 (Pillow's BICUBIC).
            let a = -0.5, t = abs(x)
            if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
            if t < 2 { return (((t - 5) * t + 8) * t - 4) * a }
            return 0
        case .triangle:
            let t = abs(x)
            return t < 1 ? 1 - t : 0
        }
    }

    private static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let px = x * Double.pi
        return _sin(px) / px
    }
}

/// sin without Foundation (ImageCodec imports only the standard library): reduce to
/// [-π/2, π/2], then the Taylor series to x^27, whose truncation error there is below 1e-19.
@inline(__always)
private func _sin(_ x: Double) -> Double {
    var r = x - Double(Int(x / (2 * Double.pi))) * (2 * Double.pi)
    if r > Double.pi { r -= 2 * Double.pi } else if r < -Double.pi { r += 2 * Double.pi }
    if r > Double.pi / 2 { r = Double.pi - r } else if r < -Double.pi / 2 { r = -Double.pi - r }
    let r2 = r * r
    var term = r
    var sum = r
    var n = 1.0
    for _ in 0..<13 {
        term *= -r2 / ((n + 1) * (n + 2))
        sum += term
        n += 2
    }
    return sum
}
