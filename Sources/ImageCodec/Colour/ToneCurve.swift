/// A one-dimensional tone curve from an ICC `curv` or `para` tag (or a PNG gAMA / H.273
/// transfer made into one): device value 0...1 → linear value 0...1.
enum ToneCurve: Sendable, Equatable {
    case identity
    /// y = x^gamma.
    case gamma(Double)
    /// Samples evenly spaced over 0...1, linearly interpolated (`curv` with 2+ entries).
    case table([Double])
    /// ICC parametric function type 0-4 with its parameters [g, a, b, c, d, e, f] (missing
    /// ones are zero).
    case parametric(type: Int, [Double])

    /// The sRGB curve as an ICC type-3 parametric function.
    static let srgb = ToneCurve.parametric(type: 3, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045, 0, 0])
    /// The BT.709 / BT.601 / BT.2020 camera curve inverted (V = 1.099 L^0.45 − 0.099 above 0.018).
    static let bt709 = ToneCurve.parametric(type: 3, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081, 0, 0])

    /// Largest `curv` table accepted (entries).
    static let maxTableEntries = 65_536

    /// Checks the parameters so evaluation gives finite numbers everywhere on 0...1.
    func validated() throws -> ToneCurve {
        switch self {
        case .identity, .table:
            return self
        case .gamma(let g):
            guard g > 0, g <= 64 else { throw ImageCodecError(.corrupt, "ICC curve gamma \(g) is out of range") }
            return self
        case .parametric(let type, let p):
            guard (0...4).contains(type), p.count == 7, p.allSatisfy(\.isFinite), p[0] > 0, p[0] <= 64 else {
                throw ImageCodecError(.corrupt, "ICC parametric curve type \(type) has unusable parameters")
            }
            if type == 1 || type == 2 {
                guard p[1] != 0 else { throw ImageCodecError(.corrupt, "ICC parametric curve has a = 0") }
            }
            for i in 0...16 {
                let y = evaluate(Double(i) / 16)
                guard y.isFinite else { throw ImageCodecError(.corrupt, "ICC parametric curve is not finite") }
            }
            return self
        }
    }

    /// The curve at `x` (clamped to 0...1); the result is clamped to 0...1 as lcms2 does for
    /// 8- and 16-bit pipelines.
    func evaluate(_ input: Double) -> Double {
        let x = min(max(input, 0), 1)
        let y: Double
        switch self {
        case .identity:
            y = x
        case .gamma(let g):
            y = x.pow(g)
        case .table(let t):
            let pos = x * Double(t.count - 1)
            let i = min(Int(pos), t.count - 2)
            let f = pos - Double(i)
            y = t[i] + (t[i + 1] - t[i]) * f
        case .parametric(let type, let p):
            let g = p[0], a = p[1], b = p[2], c = p[3], d = p[4], e = p[5], f = p[6]
            switch type {
            case 0: y = x.pow(g)
            case 1: y = x >= -b / a ? (a * x + b).pow(g) : 0
            case 2: y = x >= -b / a ? (a * x + b).pow(g) + c : c
            case 3: y = x >= d ? (a * x + b).pow(g) : c * x
            default: y = x >= d ? (a * x + b).pow(g) + e : c * x + f
            }
        }
        return y.isNaN ? 0 : min(max(y, 0), 1)
    }

    /// Whether the two curves differ by less than `tolerance` at 256 evenly spaced points.
    func isClose(to other: ToneCurve, tolerance: Double) -> Bool {
        (0...255).allSatisfy { i in
            let x = Double(i) / 255
            return abs(evaluate(x) - other.evaluate(x)) < tolerance
        }
    }
}
