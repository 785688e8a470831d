/// Small colorimetry toolkit for building colour transforms: 3×3 matrices, chromaticities to
/// RGB→XYZ matrices, Bradford adaptation to the ICC's D50 and Lab→XYZ. Everything here runs
/// while a transform is built (a few hundred operations), never per pixel, so it uses Double.

/// A row-major 3×3 matrix.
struct Matrix3: Equatable, Sendable {
    var m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)

    init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double, _ g: Double, _ h: Double, _ i: Double) {
        m = (a, b, c, d, e, f, g, h, i)
    }

    /// The matrix whose columns are `x`, `y`, `z` (colorant columns of an ICC matrix/TRC profile).
    init(columns x: XYZ, _ y: XYZ, _ z: XYZ) {
        self.init(x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z)
    }

    static let identity = Matrix3(1, 0, 0, 0, 1, 0, 0, 0, 1)

    static func == (l: Matrix3, r: Matrix3) -> Bool { l.values == r.values }

    var values: [Double] { [m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7, m.8] }

    static func * (l: Matrix3, r: Matrix3) -> Matrix3 {
        let a = l.values, b = r.values
        var o = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for col in 0..<3 {
                o[row * 3 + col] = a[row * 3] * b[col] + a[row * 3 + 1] * b[3 + col] + a[row * 3 + 2] * b[6 + col]
            }
        }
        return Matrix3(o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8])
    }

    static func * (l: Matrix3, v: XYZ) -> XYZ {
        XYZ(l.m.0 * v.x + l.m.1 * v.y + l.m.2 * v.z,
            l.m.3 * v.x + l.m.4 * v.y + l.m.5 * v.z,
            l.m.6 * v.x + l.m.7 * v.y + l.m.8 * v.z)
    }

    var determinant: Double {
        m.0 * (m.4 * m.8 - m.5 * m.7) - m.1 * (m.3 * m.8 - m.5 * m.6) + m.2 * (m.3 * m.7 - m.4 * m.6)
    }

    /// The inverse, or nil when the matrix is (nearly) singular or not finite.
    var inverse: Matrix3? {
        let d = determinant
        guard d.isFinite, abs(d) > 1e-9 else { return nil }
        let r = Matrix3(
            (m.4 * m.8 - m.5 * m.7) / d, (m.2 * m.7 - m.1 * m.8) / d, (m.1 * m.5 - m.2 * m.4) / d,
            (m.5 * m.6 - m.3 * m.8) / d, (m.0 * m.8 - m.2 * m.6) / d, (m.2 * m.3 - m.0 * m.5) / d,
            (m.3 * m.7 - m.4 * m.6) / d, (m.1 * m.6 - m.0 * m.7) / d, (m.0 * m.4 - m.1 * m.3) / d)
        return r.values.allSatisfy(\.isFinite) ? r : nil
    }

    static func diagonal(_ a: Double, _ b: Double, _ c: Double) -> Matrix3 { Matrix3(a, 0, 0, 0, b, 0, 0, 0, c) }

    /// Largest absolute difference between corresponding entries.
    func distance(to o: Matrix3) -> Double {
        zip(values, o.values).map { abs($0 - $1) }.max() ?? 0
    }
}

/// A CIE XYZ triple (Y = 1 for the media white).
struct XYZ: Equatable, Sendable {
    var x: Double, y: Double, z: Double
    init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }

    /// The white of chromaticity (x, y) at Y = 1.
    init(chromaticity cx: Double, _ cy: Double) { self.init(cx / cy, 1, (1 - cx - cy) / cy) }

    /// The ICC PCS illuminant, D50 as ICC.1 states it (and lcms2's `cmsD50_XYZ`).
    static let d50 = XYZ(0.9642, 1.0, 0.8249)
}

/// Chromaticity coordinates of a white point and three primaries (PNG cHRM, H.273, named spaces).
public struct Chromaticities: Sendable, Equatable, Hashable {
    public var whiteX: Double, whiteY: Double
    public var redX: Double, redY: Double
    public var greenX: Double, greenY: Double
    public var blueX: Double, blueY: Double

    public init(whiteX: Double, whiteY: Double, redX: Double, redY: Double, greenX: Double, greenY: Double,
                blueX: Double, blueY: Double) {
        self.whiteX = whiteX; self.whiteY = whiteY
        self.redX = redX; self.redY = redY
        self.greenX = greenX; self.greenY = greenY
        self.blueX = blueX; self.blueY = blueY
    }

    /// BT.709 / sRGB primaries, D65.
    public static let srgb = Chromaticities(whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
                                            greenX: 0.30, greenY: 0.60, blueX: 0.15, blueY: 0.06)
    /// Display P3: DCI-P3 primaries with the D65 white.
    public static let displayP3 = Chromaticities(whiteX: 0.3127, whiteY: 0.3290, redX: 0.680, redY: 0.320,
                                                 greenX: 0.265, greenY: 0.690, blueX: 0.150, blueY: 0.060)
    /// DCI-P3 with the DCI (theatre) white.
    public static let dciP3 = Chromaticities(whiteX: 0.314, whiteY: 0.351, redX: 0.680, redY: 0.320,
                                             greenX: 0.265, greenY: 0.690, blueX: 0.150, blueY: 0.060)
    /// Adobe RGB (1998), D65.
    public static let adobeRGB = Chromaticities(whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
                                                greenX: 0.21, greenY: 0.71, blueX: 0.15, blueY: 0.06)
    /// ProPhoto (ROMM) RGB, D50.
    public static let proPhotoRGB = Chromaticities(whiteX: 0.3457, whiteY: 0.3585, redX: 0.7347, redY: 0.2653,
                                                   greenX: 0.1596, greenY: 0.8404, blueX: 0.0366, blueY: 0.0001)
    /// BT.2020 / BT.2100, D65.
    public static let bt2020 = Chromaticities(whiteX: 0.3127, whiteY: 0.3290, redX: 0.708, redY: 0.292,
                                              greenX: 0.170, greenY: 0.797, blueX: 0.131, blueY: 0.046)
    /// BT.601 625-line (EBU) primaries, D65.
    public static let bt601_625 = Chromaticities(whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
                                                 greenX: 0.29, greenY: 0.60, blueX: 0.15, blueY: 0.06)
    /// BT.601 525-line (SMPTE C) primaries, D65.
    public static let bt601_525 = Chromaticities(whiteX: 0.3127, whiteY: 0.3290, redX: 0.630, redY: 0.340,
                                                 greenX: 0.310, greenY: 0.595, blueX: 0.155, blueY: 0.070)

    /// Whether every coordinate is a plausible chromaticity (inside 0...1 with y > 0) and the
    /// primaries span a triangle.
    var isValid: Bool {
        let v = [whiteX, whiteY, redX, redY, greenX, greenY, blueX, blueY]
        guard v.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), whiteY > 0, redY > 0, greenY > 0, blueY > 0 else { return false }
        let area = (greenX - redX) * (blueY - redY) - (blueX - redX) * (greenY - redY)
        return abs(area) > 1e-4
    }

    /// The RGB → XYZ matrix of these primaries adapted to D50 with Bradford: the colorant
    /// columns an ICC v4 matrix/TRC profile of this space carries (lcms2 `cmsCreateRGBProfile`).
    func d50Colorants() -> Matrix3? {
        guard isValid else { return nil }
        let white = XYZ(chromaticity: whiteX, whiteY)
        let p = Matrix3(columns: XYZ(chromaticity: redX, redY), XYZ(chromaticity: greenX, greenY), XYZ(chromaticity: blueX, blueY))
        guard let pi = p.inverse else { return nil }
        let s = pi * white
        let rgbToXYZ = p * Matrix3.diagonal(s.x, s.y, s.z)
        guard let adapt = bradford(from: white) else { return nil }
        return adapt * rgbToXYZ
    }
}

/// The Bradford cone response matrix (lcms2 `_cmsAdaptationMatrix` default).
private let bradfordCone = Matrix3(0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296)

/// The Bradford adaptation from `white` to the D50 PCS white; nil for an unusable white.
func bradford(from white: XYZ, to target: XYZ = .d50) -> Matrix3? {
    guard let coneInverse = bradfordCone.inverse else { return nil }
    let s = bradfordCone * white, d = bradfordCone * target
    guard s.x > 1e-9, s.y > 1e-9, s.z > 1e-9 else { return nil }
    return coneInverse * Matrix3.diagonal(d.x / s.x, d.y / s.y, d.z / s.z) * bradfordCone
}

/// CIE L*a*b* (D50) to XYZ (D50 white = `XYZ.d50`).
func labToXYZ(_ l: Double, _ a: Double, _ b: Double) -> XYZ {
    let fy = (l + 16) / 116, fx = fy + a / 500, fz = fy - b / 200
    func finv(_ t: Double) -> Double { t > 6.0 / 29.0 ? t * t * t : 3 * (6.0 / 29.0) * (6.0 / 29.0) * (t - 4.0 / 29.0) }
    return XYZ(finv(fx) * XYZ.d50.x, finv(fy) * XYZ.d50.y, finv(fz) * XYZ.d50.z)
}

/// The sRGB transfer function (IEC 61966-2-1): encoded value → linear light.
@inline(__always) func srgbToLinear(_ v: Double) -> Double {
    v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055).pow(2.4)
}

/// Linear light → sRGB-encoded value, both 0...1 (inputs are clipped to that range first).
@inline(__always) func linearToSRGB(_ l: Double) -> Double {
    let v = min(max(l, 0), 1)
    return v <= 0.0031308 ? v * 12.92 : 1.055 * v.pow(1 / 2.4) - 0.055
}

/// x rounded half away from zero. Double.rounded() calls libm's `round`, which ImageCodec does
/// not link (no Foundation here); the integer conversion needs no library.
@inline(__always) func nearest(_ x: Double) -> Double {
    guard x.isFinite, abs(x) < 9e15 else { return x }
    return Double(Int(x < 0 ? x - 0.5 : x + 0.5))
}

extension Double {
    /// x^y for x ≥ 0 with a series of exp/log, since ImageCodec does not import Foundation's
    /// `pow`. Only called while tables are built.
    func pow(_ y: Double) -> Double {
        if self <= 0 { return y == 0 ? 1 : 0 }
        if y == 1 { return self }
        return Double.exp(y * Double.ln(self))
    }

    /// Natural logarithm of a positive finite number (frexp split + atanh series).
    static func ln(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : .nan }
        var m = x.significand   // 1 <= m < 2
        var e = Double(x.exponent)
        if m > 1.4142135623730951 { m /= 2; e += 1 }
        let t = (m - 1) / (m + 1), t2 = t * t
        var term = t, sum = 0.0
        var k = 1.0
        while k < 60 {
            sum += term / k
            term *= t2
            k += 2
        }
        return 2 * sum + e * 0.6931471805599453
    }

    /// e^x (range reduction by ln 2 + Taylor series); saturates to 0 and +infinity.
    static func exp(_ x: Double) -> Double {
        guard x.isFinite else { return x.isNaN ? .nan : (x > 0 ? .infinity : 0) }
        if x > 709 { return .infinity }
        if x < -745 { return 0 }
        let k = nearest(x / 0.6931471805599453)
        let r = x - k * 0.6931471805599453
        var term = 1.0, sum = 1.0
        for i in 1..<30 {
            term *= r / Double(i)
            sum += term
        }
        return Double(sign: .plus, exponent: Int(k), significand: sum)
    }
}
