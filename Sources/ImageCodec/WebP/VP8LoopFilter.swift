/// VP8's in-loop deblocking filter (RFC 6386 section 15), in libwebp's arithmetic. It runs on
/// the reconstructed planes one macroblock row at a time, each macroblock in raster order:
/// left edge, inner vertical edges, top edge, inner horizontal edges. Intra prediction has
/// already used the unfiltered pixels, so filtering a row never changes what later rows predict.
///
/// Each edge is filtered 16 positions at once on 16-bit lanes (libwebp's SSE2 layout): the 16
/// pixels of a luma edge, or the 8 of a U edge beside the 8 of the same V edge. The positions
/// along an edge never touch each other's pixels, so this is the scalar filter's result exactly.
/// Vertical edges are transposed into lanes and back (`VP8EdgeLanes`). Per-pixel decisions
/// become lane masks: a mask is all ones (-1) where a condition holds, made with arithmetic
/// shifts because swiftc 6.3.1 turns `SIMDMask` selects into lane-by-lane branches.
enum VP8LoopFilter {
    typealias Lanes = SIMD16<Int16>

    @inline(__always) private static func abs(_ v: Lanes) -> Lanes { let m = v &>> 15; return (v ^ m) &- m }
    /// All ones where `a > b`.
    @inline(__always) private static func greater(_ a: Lanes, _ b: Lanes) -> Lanes { (b &- a) &>> 15 }
    /// `a` where `mask` is all ones, `b` where it is 0, written as `b + ((a − b) & mask)`:
    /// LLVM turned the usual `(a & mask) | (b & ~mask)` into a lane select that the AVX2 build
    /// lowered to about 160 single-lane inserts and extracts per macroblock filter.
    @inline(__always) private static func select(_ mask: Lanes, _ a: Lanes, _ b: Lanes) -> Lanes { b &+ ((a &- b) & mask) }
    @inline(__always) private static func clamp(_ v: Lanes, _ low: Int16, _ high: Int16) -> Lanes {
        let h = Lanes(repeating: high), l = Lanes(repeating: low)
        let d = v &- h
        let below = h &+ (d & (d &>> 15))  // min(v, high)
        let e = below &- l
        return below &- (e & (e &>> 15))  // max(…, low)
    }
    @inline(__always) private static func pixel(_ v: Lanes) -> Lanes { clamp(v, 0, 255) }

    /// Where the filter applies at all: 4·|p0−q0| + |p1−q1| ≤ t (libwebp NeedsFilter).
    @inline(__always)
    private static func edgeMask(_ e: VP8EdgeLanes, _ t: Int16) -> Lanes {
        ~greater(4 &* abs(e.p0 &- e.q0) &+ abs(e.p1 &- e.q1), Lanes(repeating: t))
    }

    /// The two-tap adjustment of p0 and q0 where `mask` is set (libwebp DoFilter2).
    @inline(__always)
    private static func filter2(_ e: inout VP8EdgeLanes, _ mask: Lanes) {
        let a = 3 &* (e.q0 &- e.p0) &+ clamp(e.p1 &- e.q1, -128, 127)
        let a1 = clamp((a &+ 4) &>> 3, -16, 15)
        let a2 = clamp((a &+ 3) &>> 3, -16, 15)
        e.p0 = select(mask, pixel(e.p0 &+ a2), e.p0)
        e.q0 = select(mask, pixel(e.q0 &- a1), e.q0)
    }

    /// One edge of the simple filter.
    @inline(__always)
    private static func simpleEdge(_ e: inout VP8EdgeLanes, limit: Int32) {
        filter2(&e, edgeMask(e, Int16(truncatingIfNeeded: 2 &* limit &+ 1)))
    }

    /// One edge of the normal filter: where the edge and interior differences are small,
    /// high edge variance takes the two-tap filter, else macroblock edges DoFilter6 and inner
    /// edges DoFilter4.
    @inline(__always)
    private static func normalEdge(_ e: inout VP8EdgeLanes, limit: Int32, interior: Int32, hev: Int32, macroblockEdge: Bool) {
        let it = Lanes(repeating: Int16(truncatingIfNeeded: interior))
        let interiorLarge = greater(abs(e.p3 &- e.p2), it) | greater(abs(e.p2 &- e.p1), it) | greater(abs(e.p1 &- e.p0), it)
            | greater(abs(e.q3 &- e.q2), it) | greater(abs(e.q2 &- e.q1), it) | greater(abs(e.q1 &- e.q0), it)
        let mask = edgeMask(e, Int16(truncatingIfNeeded: 2 &* limit &+ 1)) & ~interiorLarge
        let threshold = Lanes(repeating: Int16(truncatingIfNeeded: hev))
        let high = greater(abs(e.p1 &- e.p0), threshold) | greater(abs(e.q1 &- e.q0), threshold)
        let smooth = mask & ~high
        if macroblockEdge {
            // DoFilter6 where smooth.
            let a = clamp(3 &* (e.q0 &- e.p0) &+ clamp(e.p1 &- e.q1, -128, 127), -128, 127)
            let a1 = (27 &* a &+ 63) &>> 7
            let a2 = (18 &* a &+ 63) &>> 7
            let a3 = (9 &* a &+ 63) &>> 7
            let p2 = pixel(e.p2 &+ a3), p1 = pixel(e.p1 &+ a2), p0 = pixel(e.p0 &+ a1)
            let q0 = pixel(e.q0 &- a1), q1 = pixel(e.q1 &- a2), q2 = pixel(e.q2 &- a3)
            filter2(&e, mask & high)
            e.p2 = select(smooth, p2, e.p2); e.p1 = select(smooth, p1, e.p1); e.p0 = select(smooth, p0, e.p0)
            e.q0 = select(smooth, q0, e.q0); e.q1 = select(smooth, q1, e.q1); e.q2 = select(smooth, q2, e.q2)
        } else {
            // DoFilter4 where smooth.
            let a = 3 &* (e.q0 &- e.p0)
            let a1 = clamp((a &+ 4) &>> 3, -16, 15)
            let a2 = clamp((a &+ 3) &>> 3, -16, 15)
            let a3 = (a1 &+ 1) &>> 1
            let p1 = pixel(e.p1 &+ a3), p0 = pixel(e.p0 &+ a2), q0 = pixel(e.q0 &- a1), q1 = pixel(e.q1 &- a3)
            filter2(&e, mask & high)
            e.p1 = select(smooth, p1, e.p1); e.p0 = select(smooth, p0, e.p0)
            e.q0 = select(smooth, q0, e.q0); e.q1 = select(smooth, q1, e.q1)
        }
    }

    /// Filters the luma of one macroblock with the simple filter. `y` is its top-left pixel.
    static func simple(y: UnsafeMutablePointer<UInt8>, stride: Int, left: Bool, top: Bool, inner: Bool, limit: Int32) {
        let lower = y + 8 &* stride
        if left {
            var e = VP8EdgeLanes(verticalEdge: y, lower, stride: stride)
            simpleEdge(&e, limit: limit &+ 4)
            e.storeVerticalEdge(y, lower, stride: stride)
        }
        if inner {
            for k in 1...3 {
                var e = VP8EdgeLanes(verticalEdge: y + 4 &* k, lower + 4 &* k, stride: stride)
                simpleEdge(&e, limit: limit)
                e.storeVerticalEdge(y + 4 &* k, lower + 4 &* k, stride: stride)
            }
        }
        if top {
            var e = VP8EdgeLanes(horizontalEdge: y, y + 8, stride: stride)
            simpleEdge(&e, limit: limit &+ 4)
            e.storeHorizontalEdge(y, y + 8, stride: stride)
        }
        if inner {
            for k in 1...3 {
                let row = y + 4 &* k &* stride
                var e = VP8EdgeLanes(horizontalEdge: row, row + 8, stride: stride)
                simpleEdge(&e, limit: limit)
                e.storeHorizontalEdge(row, row + 8, stride: stride)
            }
        }
    }

    /// Filters one macroblock (luma 16×16 at `y`, chroma 8×8 at `u`, `v`) with the normal filter.
    static func normal(y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>,
                       yStride: Int, uvStride: Int, left: Bool, top: Bool, inner: Bool,
                       limit: Int32, interior: Int32, hev: Int32) {
        let lower = y + 8 &* yStride
        if left {
            var e = VP8EdgeLanes(verticalEdge: y, lower, stride: yStride)
            normalEdge(&e, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            e.storeVerticalEdge(y, lower, stride: yStride)
            var c = VP8EdgeLanes(verticalEdge: u, v, stride: uvStride)
            normalEdge(&c, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            c.storeVerticalEdge(u, v, stride: uvStride)
        }
        if inner {
            for k in 1...3 {
                var e = VP8EdgeLanes(verticalEdge: y + 4 &* k, lower + 4 &* k, stride: yStride)
                normalEdge(&e, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
                e.storeVerticalEdge(y + 4 &* k, lower + 4 &* k, stride: yStride)
            }
            var c = VP8EdgeLanes(verticalEdge: u + 4, v + 4, stride: uvStride)
            normalEdge(&c, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
            c.storeVerticalEdge(u + 4, v + 4, stride: uvStride)
        }
        if top {
            var e = VP8EdgeLanes(horizontalEdge: y, y + 8, stride: yStride)
            normalEdge(&e, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            e.storeHorizontalEdge(y, y + 8, stride: yStride)
            var c = VP8EdgeLanes(horizontalEdge: u, v, stride: uvStride)
            normalEdge(&c, limit: limit &+ 4, interior: interior, hev: hev, macroblockEdge: true)
            c.storeHorizontalEdge(u, v, stride: uvStride)
        }
        if inner {
            for k in 1...3 {
                let row = y + 4 &* k &* yStride
                var e = VP8EdgeLanes(horizontalEdge: row, row + 8, stride: yStride)
                normalEdge(&e, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
                e.storeHorizontalEdge(row, row + 8, stride: yStride)
            }
            let uRow = u + 4 &* uvStride, vRow = v + 4 &* uvStride
            var c = VP8EdgeLanes(horizontalEdge: uRow, vRow, stride: uvStride)
            normalEdge(&c, limit: limit, interior: interior, hev: hev, macroblockEdge: false)
            c.storeHorizontalEdge(uRow, vRow, stride: uvStride)
        }
    }
}
