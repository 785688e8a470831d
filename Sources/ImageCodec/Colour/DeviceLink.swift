/// A sampled device link for LUT-based sources: a regular grid over the 3 (RGB) or 4 (CMYK)
/// 8-bit input channels whose nodes hold the destination's encoded RGB (0...65535), filled once
/// by evaluating the whole conversion at every node, then interpolated per pixel the way lcms2
/// interpolates its precalculated 8-bit transforms (tetrahedral in 3D; for CMYK, linear in C
/// between two tetrahedral lookups in M, Y, K).
///
/// Grid sizes follow lcms2's defaults for 8-bit data: 33 points per axis for RGB (35,937
/// nodes, 216 KB), 17 for CMYK (83,521 nodes, 501 KB).
struct DeviceLink: Sendable {
    let inputs: Int
    let points: Int
    /// Encoded output triples, first input varying slowest.
    let nodes: [UInt16]
    /// Per 8-bit input value: the lower grid index and the fraction above it (× 65536).
    let cellIndex: [Int32]
    let cellFraction: [Int32]

    /// Samples `evaluate` (device values 0...1 → encoded destination RGB 0...1) on the grid.
    init(inputs: Int, points: Int, evaluate: ([Double]) -> (Double, Double, Double)) {
        self.inputs = inputs
        self.points = points
        var count = 1
        for _ in 0..<inputs { count *= points }
        var nodes = [UInt16](repeating: 0, count: count * 3)
        var v = [Double](repeating: 0, count: inputs)
        for n in 0..<count {
            var rest = n
            for axis in stride(from: inputs - 1, through: 0, by: -1) {
                v[axis] = Double(rest % points) / Double(points - 1)
                rest /= points
            }
            let (r, g, b) = evaluate(v)
            nodes[3 * n] = DeviceLink.quantise(r)
            nodes[3 * n + 1] = DeviceLink.quantise(g)
            nodes[3 * n + 2] = DeviceLink.quantise(b)
        }
        self.nodes = nodes
        var index = [Int32](repeating: 0, count: 256), fraction = [Int32](repeating: 0, count: 256)
        for x in 0..<256 {
            let p = Double(x) * Double(points - 1) / 255
            let i = min(Int(p), points - 2)
            index[x] = Int32(i)
            fraction[x] = Int32(nearest((p - Double(i)) * 65536))
        }
        cellIndex = index
        cellFraction = fraction
    }

    private static func quantise(_ x: Double) -> UInt16 {
        UInt16(nearest(min(max(x.isNaN ? 0 : x, 0), 1) * 65535))
    }

    /// Converts `count` interleaved pixels of `channels` samples (RGB first) in place.
    func applyRGB(_ p: UnsafeMutablePointer<UInt8>, count: Int, channels: Int) {
        nodes.withUnsafeBufferPointer { nb in
            cellIndex.withUnsafeBufferPointer { ib in
                cellFraction.withUnsafeBufferPointer { fb in
                    guard let t = nb.baseAddress, let idx = ib.baseAddress, let frac = fb.baseAddress else { return }
                    let sx = 3 &* points &* points, sy = 3 &* points
                    var o = p
                    for _ in 0..<count {
                        let r = Int(o[0]), g = Int(o[1]), b = Int(o[2])
                        let base = Int(idx[r]) &* sx &+ Int(idx[g]) &* sy &+ Int(idx[b]) &* 3
                        let out = DeviceLink.tetrahedral(t + base, sx, sy, 3, frac[r], frac[g], frac[b])
                        o[0] = out.0; o[1] = out.1; o[2] = out.2
                        o += channels
                    }
                }
            }
        }
    }

    /// Converts `count` pixels of four ink planes (0 = no ink) to interleaved RGB.
    func applyCMYK(c: UnsafePointer<UInt8>, m: UnsafePointer<UInt8>, y: UnsafePointer<UInt8>, k: UnsafePointer<UInt8>,
                   count: Int, inverted: Bool, _ out: UnsafeMutablePointer<UInt8>) {
        nodes.withUnsafeBufferPointer { nb in
            cellIndex.withUnsafeBufferPointer { ib in
                cellFraction.withUnsafeBufferPointer { fb in
                    guard let t = nb.baseAddress, let idx = ib.baseAddress, let frac = fb.baseAddress else { return }
                    let sk = 3, sy = 3 &* points, sm = sy &* points, sc = sm &* points
                    let flip: Int = inverted ? 255 : 0
                    for i in 0..<count {
                        let cv = Int(c[i]) ^ flip, mv = Int(m[i]) ^ flip, yv = Int(y[i]) ^ flip, kv = Int(k[i]) ^ flip
                        let base = Int(idx[cv]) &* sc &+ Int(idx[mv]) &* sm &+ Int(idx[yv]) &* sy &+ Int(idx[kv]) &* sk
                        let lo = DeviceLink.tetrahedral(t + base, sm, sy, sk, frac[mv], frac[yv], frac[kv])
                        let fc = frac[cv]
                        let o = out + 3 &* i
                        if fc == 0 {
                            o[0] = lo.0; o[1] = lo.1; o[2] = lo.2
                            continue
                        }
                        let hi = DeviceLink.tetrahedral(t + base + sc, sm, sy, sk, frac[mv], frac[yv], frac[kv])
                        o[0] = DeviceLink.mix(lo.0, hi.0, fc)
                        o[1] = DeviceLink.mix(lo.1, hi.1, fc)
                        o[2] = DeviceLink.mix(lo.2, hi.2, fc)
                    }
                }
            }
        }
    }

    @inline(__always) private static func mix(_ a: UInt8, _ b: UInt8, _ f: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: (Int32(a) &* (65536 &- f) &+ Int32(b) &* f &+ 32768) &>> 16)
    }

    /// Tetrahedral interpolation inside one cell (lcms2's six cases), 16-bit nodes and
    /// fractions × 65536, rounded to 8 bits.
    @inline(__always)
    private static func tetrahedral(_ p: UnsafePointer<UInt16>, _ sx: Int, _ sy: Int, _ sz: Int,
                                    _ rx: Int32, _ ry: Int32, _ rz: Int32) -> (UInt8, UInt8, UInt8) {
        let dx = rx > 0 ? sx : 0, dy = ry > 0 ? sy : 0, dz = rz > 0 ? sz : 0
        // Each case walks from the cell origin to its far corner through two edges.
        let a: Int, b: Int, f1: Int32, f2: Int32, f3: Int32
        if rx >= ry && ry >= rz { a = dx; b = dx &+ dy; f1 = rx; f2 = ry; f3 = rz }
        else if rx >= rz && rz >= ry { a = dx; b = dx &+ dz; f1 = rx; f2 = rz; f3 = ry }
        else if rz >= rx && rx >= ry { a = dz; b = dx &+ dz; f1 = rz; f2 = rx; f3 = ry }
        else if ry >= rx && rx >= rz { a = dy; b = dx &+ dy; f1 = ry; f2 = rx; f3 = rz }
        else if ry >= rz && rz >= rx { a = dy; b = dy &+ dz; f1 = ry; f2 = rz; f3 = rx }
        else { a = dz; b = dy &+ dz; f1 = rz; f2 = ry; f3 = rx }
        let c = dx &+ dy &+ dz
        @inline(__always) func channel(_ ch: Int) -> UInt8 {
            let c0 = Int64(p[ch]), ca = Int64(p[a &+ ch]), cb = Int64(p[b &+ ch]), cc = Int64(p[c &+ ch])
            let v = c0 &* 65536 &+ (ca &- c0) &* Int64(f1) &+ (cb &- ca) &* Int64(f2) &+ (cc &- cb) &* Int64(f3)
            // v is the 16-bit value × 65536; scale to 8 bits with rounding: x·255/65535 ≈ x/257.
            let v16 = (v &+ 32768) &>> 16
            return UInt8(truncatingIfNeeded: (v16 &* 255 &+ 32767) / 65535)
        }
        return (channel(0), channel(1), channel(2))
    }
}
