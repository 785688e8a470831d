/// `pow`, `log2` and friends for the encoder's few table builds and its quality mapping:
/// ImageCodec has no libm import, and the standard library has no transcendental functions.
/// Accurate to about 1e-15 relative, far more than the tables (≤ 16 bits) need; never used
/// per pixel.
enum EncoderMath {
    static let ln2 = 0.693_147_180_559_945_309_417_232_121_458

    /// Natural logarithm of x > 0 (0 and negatives give −∞ / NaN semantics are not needed:
    /// callers pass positive values), by x = m · 2^e and 2·atanh((m − 1)/(m + 1)).
    static func log(_ x: Double) -> Double {
        guard x > 0 else { return -Double.infinity }
        let e = Double(x.exponent)
        let m = x.significand // [1, 2)
        let t = (m - 1) / (m + 1)
        let t2 = t * t
        var term = t, sum = 0.0, k = 1.0
        while k < 60 {
            sum += term / k
            term *= t2
            k += 2
        }
        return e * ln2 + 2 * sum
    }

    /// e^x by x = k · ln2 + r, a Taylor series for e^r and an exact scale by 2^k.
    static func exp(_ x: Double) -> Double {
        if x < -745 { return 0 }
        if x > 709 { return .infinity }
        // Nearest integer without libm's round (ImageCodec does not link libm).
        let k = Double(Int(x / ln2 + (x >= 0 ? 0.5 : -0.5)))
        let r = x - k * ln2
        var term = 1.0, sum = 1.0
        for n in 1..<30 {
            term *= r / Double(n)
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }

    /// x^y for x ≥ 0.
    static func pow(_ x: Double, _ y: Double) -> Double {
        if x == 0 { return y == 0 ? 1 : 0 }
        return exp(y * log(x))
    }

    static func log2(_ x: Double) -> Double { log(x) / ln2 }
}
