import Foundation
@testable import ImageCodec

/// Fixtures under Tests/Fixtures/colour (see tools/make_colour_fixtures.py) and the CIEDE2000
/// colour difference the accuracy tests report.
enum ColourFixtures {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/colour")
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(name)))
    }

    static func rgb(_ name: String) throws -> Bitmap {
        try ImageCodec.decode(try bytes(name)).bitmap.converted(to: .rgb)
    }

    static func profile(_ name: String) throws -> [UInt8] {
        guard let p = try ImageCodec.probe(try bytes(name)).iccProfile else { throw FixtureError("\(name) has no profile") }
        return p
    }
}

/// CIEDE2000 between two 8-bit sRGB colours (sRGB → XYZ D65 → Lab D65).
enum DeltaE {
    static func lab(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (Double, Double, Double) {
        func lin(_ v: UInt8) -> Double {
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : Foundation.pow((c + 0.055) / 1.055, 2.4)
        }
        let rl = lin(r), gl = lin(g), bl = lin(b)
        let x = (0.4124 * rl + 0.3576 * gl + 0.1805 * bl) / 0.95047
        let y = 0.2126 * rl + 0.7152 * gl + 0.0722 * bl
        let z = (0.0193 * rl + 0.1192 * gl + 0.9505 * bl) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    static func ciede2000(_ p: (Double, Double, Double), _ q: (Double, Double, Double)) -> Double {
        let (l1, a1, b1) = p, (l2, a2, b2) = q
        let c1 = (a1 * a1 + b1 * b1).squareRoot(), c2 = (a2 * a2 + b2 * b2).squareRoot()
        let cm = (c1 + c2) / 2
        let g = 0.5 * (1 - (Foundation.pow(cm, 7) / (Foundation.pow(cm, 7) + Foundation.pow(25, 7))).squareRoot())
        let a1p = (1 + g) * a1, a2p = (1 + g) * a2
        let c1p = (a1p * a1p + b1 * b1).squareRoot(), c2p = (a2p * a2p + b2 * b2).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(b1, a1p), h2 = hue(b2, a2p)
        let dl = l2 - l1, dc = c2p - c1p
        var dh = 0.0
        if c1p * c2p != 0 {
            dh = h2 - h1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * (c1p * c2p).squareRoot() * sin(dh * .pi / 360)
        let lm = (l1 + l2) / 2, cpm = (c1p + c2p) / 2
        var hm = h1 + h2
        if c1p * c2p != 0 {
            if abs(h1 - h2) > 180 { hm = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2 } else { hm = (h1 + h2) / 2 }
        }
        let t = 1 - 0.17 * cos((hm - 30) * .pi / 180) + 0.24 * cos(2 * hm * .pi / 180)
            + 0.32 * cos((3 * hm + 6) * .pi / 180) - 0.20 * cos((4 * hm - 63) * .pi / 180)
        let dTheta = 30 * exp(-Foundation.pow((hm - 275) / 25, 2))
        let rc = 2 * (Foundation.pow(cpm, 7) / (Foundation.pow(cpm, 7) + Foundation.pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * (lm - 50) * (lm - 50) / (20 + (lm - 50) * (lm - 50)).squareRoot()
        let sc = 1 + 0.045 * cpm, sh = 1 + 0.015 * cpm * t
        let rt = -sin(2 * dTheta * .pi / 180) * rc
        let x = dl / sl, y = dc / sc, z = dH / sh
        return (x * x + y * y + z * z + rt * y * z).squareRoot()
    }

    /// Mean and max ΔE2000 over the pixels of two same-size RGB bitmaps, skipping pixels the
    /// reference clipped (a channel at 0 or 255 that is not a neutral black or white): those are
    /// out of sRGB's gamut, where only clipping policies differ.
    static func compare(_ a: Bitmap, _ b: Bitmap) -> (mean: Double, max: Double, pixels: Int) {
        precondition(a.width == b.width && a.height == b.height && a.layout == .rgb && b.layout == .rgb)
        var sum = 0.0, worst = 0.0, n = 0
        for i in 0..<(a.width * a.height) {
            let r = b.pixels[3 * i], g = b.pixels[3 * i + 1], bl = b.pixels[3 * i + 2]
            let neutral = r == g && g == bl
            if !neutral && [r, g, bl].contains(where: { $0 == 0 || $0 == 255 }) { continue }
            let d = ciede2000(lab(a.pixels[3 * i], a.pixels[3 * i + 1], a.pixels[3 * i + 2]), lab(r, g, bl))
            sum += d
            worst = max(worst, d)
            n += 1
        }
        return (n > 0 ? sum / Double(n) : 0, worst, n)
    }
}
