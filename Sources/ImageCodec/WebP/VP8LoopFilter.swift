/// VP8's in-loop deblocking filter (RFC 6386 section 15), in libwebp's arithmetic. It runs on
/// the reconstructed planes one macroblock row at a time, each macroblock in raster order:
/// left edge, inner vertical edges, top edge, inner horizontal edges. Intra prediction has
/// already used the unfiltered pixels, so filtering a row never changes what later rows predict.
enum VP8LoopFilter {
    @inline(__always) private static func clamp128(_ v: Int32) -> Int32 { v < -128 ? -128 : (v > 127 ? 127 : v) }
    @inline(__always) private static func clamp16(_ v: Int32) -> Int32 { v < -16 ? -16 : (v > 15 ? 15 : v) }
    @inline(__always) private static func pixel(_ v: Int32) -> UInt8 { v < 0 ? 0 : (v > 255 ? 255 : UInt8(truncatingIfNeeded: v)) }
    @inline(__always) private static func abs(_ v: Int32) -> Int32 { v < 0 ? -v : v }

    /// The common two-tap adjustment of p0 and q0 (libwebp DoFilter2).
    ///
    /// The pixel primitives are not inlined on purpose: inlined into `normalEdge` after
    /// `highVariance`, swiftc 6.3.1 -O dropped this function's store to p0 (reproduced in
    /// isolation, correct at -Onone); the conformance fixtures catch a regression.
    @inline(never)
    private static func filter2(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) {
        let p1 = Int32(p[-2 &* step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        let a = 3 &* (q0 &- p0) &+ clamp128(p1 &- q1)
        let a1 = clamp16((a &+ 4) >> 3)
        let a2 = clamp16((a &+ 3) >> 3)
        p[-step] = pixel(p0 &+ a2)
        p[0] = pixel(q0 &- a1)
    }

    /// Inner-edge filter without high edge variance: p1, p0, q0, q1 change (DoFilter4).
    @inline(never)
    private static func filter4(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) {
        let p1 = Int32(p[-2 &* step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        let a = 3 &* (q0 &- p0)
        let a1 = clamp16((a &+ 4) >> 3)
        let a2 = clamp16((a &+ 3) >> 3)
        let a3 = (a1 &+ 1) >> 1
        p[-2 &* step] = pixel(p1 &+ a3)
        p[-step] = pixel(p0 &+ a2)
        p[0] = pixel(q0 &- a1)
        p[step] = pixel(q1 &- a3)
    }

    /// Macroblock-edge filter without high edge variance: three pixels each side (DoFilter6).
    @inline(never)
    private static func filter6(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) {
        let p2 = Int32(p[-3 &* step]), p1 = Int32(p[-2 &* step]), p0 = Int32(p[-step])
        let q0 = Int32(p[0]), q1 = Int32(p[step]), q2 = Int32(p[2 &* step])
        let a = clamp128(3 &* (q0 &- p0) &+ clamp128(p1 &- q1))
        let a1 = (27 &* a &+ 63) >> 7
        let a2 = (18 &* a &+ 63) >> 7
        let a3 = (9 &* a &+ 63) >> 7
        p[-3 &* step] = pixel(p2 &+ a3)
        p[-2 &* step] = pixel(p1 &+ a2)
        p[-step] = pixel(p0 &+ a1)
        p[0] = pixel(q0 &- a1)
        p[step] = pixel(q1 &- a2)
        p[2 &* step] = pixel(q2 &- a3)
    }

    @inline(never)
    private static func highVariance(_ p: UnsafeMutablePointer<UInt8>, _ step: Int, _ threshold: Int32) -> Bool {
        let p1 = Int32(p[-2 &* step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        return abs(p1 &- p0) > threshold || abs(q1 &- q0) > threshold
    }

    @inline(never)
    private static func needsFilter(_ p: UnsafeMutablePointer<UInt8>, _ step: Int, _ t: Int32) -> Bool {
        let p1 = Int32(p[-2 &* step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        return 4 &* abs(p0 &- q0) &+ abs(p1 &- q1) <= t
    }

    @inline(never)
    private static func needsFilter2(_ p: UnsafeMutablePointer<UInt8>, _ step: Int, _ t: Int32, _ it: Int32) -> Bool {
        let p3 = Int32(p[-4 &* step]), p2 = Int32(p[-3 &* step]), p1 = Int32(p[-2 &* step]), p0 = Int32(p[-step])
        let q0 = Int32(p[0]), q1 = Int32(p[step]), q2 = Int32(p[2 &* step]), q3 = Int32(p[3 &* step])
        if 4 &* abs(p0 &- q0) &+ abs(p1 &- q1) > t { return false }
        return abs(p3 &- p2) <= it && abs(p2 &- p1) <= it && abs(p1 &- p0) <= it
            && abs(q3 &- q2) <= it && abs(q2 &- q1) <= it && abs(q1 &- q0) <= it
    }

    /// `count` positions of one edge: `step` crosses the edge, `advance` moves along it.
    @inline(__always)
    private static func simpleEdge(_ p: UnsafeMutablePointer<UInt8>, step: Int, advance: Int, count: Int, limit: Int32) {
        let t = 2 &* limit &+ 1
        var q = p
        for _ in 0..<count {
            if needsFilter(q, step, t) { filter2(q, step) }
            q += advance
        }
    }

    @inline(__always)
    private static func normalEdge(_ p: UnsafeMutablePointer<UInt8>, step: Int, advance: Int, count: Int,
                                   limit: Int32, interior: Int32, hev: Int32, macroblockEdge: Bool) {
        let t = 2 &* limit &+ 1
        var q = p
        for _ in 0..<count {
            if needsFilter2(q, step, t, interior) {
                if highVariance(q, step, hev) {
                    filter2(q, step)
                } else if macroblockEdge {
                    filter6(q, step)
                } else {
                    filter4(q, step)
                }
            }
            q += advance
        }
    }

    /// Filters the luma of one macroblock with the simple filter. `y` is its top-left pixel.
    static func simple(y: UnsafeMutablePointer<UInt8>, stride: Int, left: Bool, top: Bool, inner: Bool, limit: Int32) {
        if left { simpleEdge(y, step: 1, advance: stride, count: 16, limit: limit &+ 4) }
        if inner {
            for k in 1...3 { simpleEdge(y + 4 &* k, step: 1, advance: stride, count: 16, limit: limit) }
        }
        if top { simpleEdge(y, step: stride, advance: 1, count: 16, limit: limit &+ 4) }
        if inner {
            for k in 1...3 { simpleEdge(y + 4 &* k &* stride, step: stride, advance: 1, count: 16, limit: limit) }
        }
    }

    /// Filters one macroblock (luma 16×16 at `y`, chroma 8×8 at `u`, `v`) with the normal filter.
    static func normal(y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>,
                       yStride: Int, uvStride: Int, left: Bool, top: Bool, inner: Bool,
                       strength: VP8FrameHeader.FilterStrength) {
        let limit = strength.limit, interior = strength.interior, hev = strength.hevThreshold
        if left {
            normalEdge(y, step: 1, advance: yStride, count: 16, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            normalEdge(u, step: 1, advance: uvStride, count: 8, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            normalEdge(v, step: 1, advance: uvStride, count: 8, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
        }
        if inner {
            for k in 1...3 {
                normalEdge(y + 4 &* k, step: 1, advance: yStride, count: 16, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
            }
            normalEdge(u + 4, step: 1, advance: uvStride, count: 8, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
            normalEdge(v + 4, step: 1, advance: uvStride, count: 8, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
        }
        if top {
            normalEdge(y, step: yStride, advance: 1, count: 16, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            normalEdge(u, step: uvStride, advance: 1, count: 8, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            normalEdge(v, step: uvStride, advance: 1, count: 8, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
        }
        if inner {
            for k in 1...3 {
                normalEdge(y + 4 &* k &* yStride, step: yStride, advance: 1, count: 16, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
            }
            normalEdge(u + 4 &* uvStride, step: uvStride, advance: 1, count: 8, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
            normalEdge(v + 4 &* uvStride, step: uvStride, advance: 1, count: 8, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
        }
    }
}
