/// An ICC AToB LUT (from `mft1`, `mft2` or `mAB `) evaluated in floating point: device values
/// 0...1 → A curves → CLUT (interpolated as lcms2 does: linear for 1 input, bilinear for 2,
/// tetrahedral for 3, linear between two tetrahedral lookups for 4) → M curves → matrix →
/// B curves → PCS XYZ (D50). Used only to sample a `DeviceLink` grid while a transform is built.
struct ICCLut: Sendable {
    /// How the LUT's 0...1 outputs encode the PCS.
    enum PCSEncoding: Sendable {
        /// XYZ as u1Fixed15 (0xFFFF = 1.99997).
        case xyz
        /// Lab with L 0...100 over 0...1 (v4, and every 8-bit table).
        case lab
        /// Lab as lut16 stores it (v2 legacy: 0xFF00 = L 100).
        case labLegacy16
    }

    let inputs: Int
    let aCurves: [ToneCurve]
    /// Grid points per input channel (empty without a CLUT).
    let grid: [Int]
    /// Output triples of the grid, first input varying slowest, values 0...1.
    let clut: [Float]
    let mCurves: [ToneCurve]
    /// 3×3 row-major plus a 3-offset, when present.
    let matrix: [Double]?
    let bCurves: [ToneCurve]
    let encoding: PCSEncoding

    /// Largest CLUT accepted (grid nodes): 33^4 is the largest common CMYK grid.
    static let maxNodes = 1_185_921

    /// Π grid, checked for overflow and against `maxNodes`.
    static func gridNodes(_ grid: [Int]) throws -> Int {
        var n = 1
        for g in grid {
            let (p, o) = n.multipliedReportingOverflow(by: g)
            guard !o, p <= maxNodes else { throw ImageCodecError(.limitExceeded, "ICC LUT grid \(grid) is over \(maxNodes) nodes") }
            n = p
        }
        return n
    }

    /// PCS XYZ (D50) of device values `input` (count == `inputs`, each 0...1).
    func evaluate(_ input: [Double]) -> XYZ {
        var v = input
        for k in 0..<min(aCurves.count, v.count) { v[k] = aCurves[k].evaluate(v[k]) }
        var out: (Double, Double, Double)
        if grid.isEmpty {
            out = (v[0], v.count > 1 ? v[1] : v[0], v.count > 2 ? v[2] : v[0])
        } else {
            out = interpolate(v)
        }
        if !mCurves.isEmpty {
            out = (mCurves[0].evaluate(out.0), mCurves[1].evaluate(out.1), mCurves[2].evaluate(out.2))
        }
        if let m = matrix {
            out = (min(max(m[0] * out.0 + m[1] * out.1 + m[2] * out.2 + m[9], 0), 1),
                   min(max(m[3] * out.0 + m[4] * out.1 + m[5] * out.2 + m[10], 0), 1),
                   min(max(m[6] * out.0 + m[7] * out.1 + m[8] * out.2 + m[11], 0), 1))
        }
        out = (bCurves[0].evaluate(out.0), bCurves[1].evaluate(out.1), bCurves[2].evaluate(out.2))
        switch encoding {
        case .xyz:
            let s = 65535.0 / 32768.0
            return XYZ(out.0 * s, out.1 * s, out.2 * s)
        case .lab:
            return labToXYZ(out.0 * 100, out.1 * 255 - 128, out.2 * 255 - 128)
        case .labLegacy16:
            let s = 65535.0 / 65280.0
            return labToXYZ(out.0 * s * 100, out.1 * s * 255 - 128, out.2 * s * 255 - 128)
        }
    }

    /// CLUT lookup of `v` (0...1 per input).
    private func interpolate(_ v: [Double]) -> (Double, Double, Double) {
        var r = (0.0, 0.0, 0.0)
        clut.withUnsafeBufferPointer { table in
            var strides = [Int](repeating: 3, count: inputs)
            for k in stride(from: inputs - 2, through: 0, by: -1) { strides[k] = strides[k + 1] * grid[k + 1] }
            r = ICCLut.lookup(table, grid: grid, strides: strides, v: v, axis: 0, base: 0)
        }
        return r
    }

    /// Linear along `axis` between two lookups of the remaining axes, down to 3 axes done
    /// tetrahedrally (lcms2 `Eval4Inputs`); 1 and 2 remaining axes interpolate (bi)linearly.
    private static func lookup(_ t: UnsafeBufferPointer<Float>, grid: [Int], strides: [Int], v: [Double],
                               axis: Int, base: Int) -> (Double, Double, Double) {
        let remaining = grid.count - axis
        if remaining == 3 { return tetrahedral(t, grid: grid, strides: strides, v: v, axis: axis, base: base) }
        let (i, f) = cell(v[axis], grid[axis])
        let lo = base + i * strides[axis]
        if remaining == 1 {
            let hi = f > 0 ? lo + strides[axis] : lo
            return (lerp(t[lo], t[hi], f), lerp(t[lo + 1], t[hi + 1], f), lerp(t[lo + 2], t[hi + 2], f))
        }
        let a = lookup(t, grid: grid, strides: strides, v: v, axis: axis + 1, base: lo)
        guard f > 0 else { return a }
        let b = lookup(t, grid: grid, strides: strides, v: v, axis: axis + 1, base: lo + strides[axis])
        return (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, a.2 + (b.2 - a.2) * f)
    }

    private static func tetrahedral(_ t: UnsafeBufferPointer<Float>, grid: [Int], strides: [Int], v: [Double],
                                    axis: Int, base: Int) -> (Double, Double, Double) {
        let (x0, rx) = cell(v[axis], grid[axis])
        let (y0, ry) = cell(v[axis + 1], grid[axis + 1])
        let (z0, rz) = cell(v[axis + 2], grid[axis + 2])
        let sx = strides[axis], sy = strides[axis + 1], sz = strides[axis + 2]
        let o = base + x0 * sx + y0 * sy + z0 * sz
        let dx = rx > 0 ? sx : 0, dy = ry > 0 ? sy : 0, dz = rz > 0 ? sz : 0
        var out = (0.0, 0.0, 0.0)
        for ch in 0..<3 {
            let c0 = Double(t[o + ch])
            let c1: Double, c2: Double, c3: Double
            func at(_ d: Int) -> Double { Double(t[o + d + ch]) }
            if rx >= ry && ry >= rz {
                c1 = at(dx) - c0; c2 = at(dx + dy) - at(dx); c3 = at(dx + dy + dz) - at(dx + dy)
            } else if rx >= rz && rz >= ry {
                c1 = at(dx) - c0; c2 = at(dx + dy + dz) - at(dx + dz); c3 = at(dx + dz) - at(dx)
            } else if rz >= rx && rx >= ry {
                c1 = at(dx + dz) - at(dz); c2 = at(dx + dy + dz) - at(dx + dz); c3 = at(dz) - c0
            } else if ry >= rx && rx >= rz {
                c1 = at(dx + dy) - at(dy); c2 = at(dy) - c0; c3 = at(dx + dy + dz) - at(dx + dy)
            } else if ry >= rz && rz >= rx {
                c1 = at(dx + dy + dz) - at(dy + dz); c2 = at(dy) - c0; c3 = at(dy + dz) - at(dy)
            } else {
                c1 = at(dx + dy + dz) - at(dy + dz); c2 = at(dy + dz) - at(dz); c3 = at(dz) - c0
            }
            let r = c0 + c1 * rx + c2 * ry + c3 * rz
            if ch == 0 { out.0 = r } else if ch == 1 { out.1 = r } else { out.2 = r }
        }
        return out
    }

    /// Grid cell index and fraction of `x` (0...1) on a `points`-node axis.
    @inline(__always) private static func cell(_ x: Double, _ points: Int) -> (Int, Double) {
        let p = min(max(x, 0), 1) * Double(points - 1)
        let i = min(Int(p), points - 1)
        return (i, p - Double(i))
    }

    @inline(__always) private static func lerp(_ a: Float, _ b: Float, _ f: Double) -> Double {
        Double(a) + (Double(b) - Double(a)) * f
    }
}
