/// Intra predictions exactly as the decoder forms them (RFC 6386 §12; libwebp dec's
/// predictors), from the encoder's own unfiltered reconstruction.
///
/// Edges: the row above the frame reads 127 (also its top-left and top-right), the column
/// left of the frame 129 (and the top-left of a left-column macroblock below the first row).
/// The caller builds `top` (top[-1] is the top-left sample; luma has four top-right samples
/// at 16...19) and `left` with those rules, so the predictors never branch on position,
/// except DC, which averages only the edges that exist.
enum IntraMode16: Int {
    // libwebp's numbering, shared with the 4×4 modes' first four (DC, TM, VE, HE) so that a
    // 16×16 macroblock's mode can stand as its sub-blocks' context.
    case dc = 0, tm = 1, v = 2, h = 3
}

enum IntraPredictors {
    /// Fills a size×size block (size 16 for luma, 8 for chroma) at `dst` (row stride `size`).
    @inline(__always)
    static func predictBlock(_ mode: Int, size: Int, top: UnsafePointer<UInt8>, left: UnsafePointer<UInt8>,
                             hasTop: Bool, hasLeft: Bool, dst: UnsafeMutablePointer<UInt8>) {
        switch mode {
        case IntraMode16.dc.rawValue:
            var sum = 0
            let shift = size == 16 ? 4 : 3
            let value: Int
            if hasTop && hasLeft {
                for i in 0..<size { sum &+= Int(top[i]) &+ Int(left[i]) }
                value = (sum &+ size) >> (shift &+ 1)
            } else if hasTop {
                for i in 0..<size { sum &+= Int(top[i]) }
                value = (sum &+ size / 2) >> shift
            } else if hasLeft {
                for i in 0..<size { sum &+= Int(left[i]) }
                value = (sum &+ size / 2) >> shift
            } else {
                value = 128
            }
            dst.update(repeating: UInt8(truncatingIfNeeded: value), count: size &* size)
        case IntraMode16.v.rawValue:
            for y in 0..<size { (dst + y &* size).update(from: top, count: size) }
        case IntraMode16.h.rawValue:
            for y in 0..<size { (dst + y &* size).update(repeating: left[y], count: size) }
        default: // TM
            let corner = Int(top[-1])
            for y in 0..<size {
                let base = Int(left[y]) &- corner
                let row = dst + y &* size
                for x in 0..<size { row[x] = UInt8(clamping: base &+ Int(top[x])) }
            }
        }
    }

    /// Fills a 4×4 block (row stride 4) with sub-block mode `mode` (`IntraMode4` numbering:
    /// DC, TM, VE, HE, RD, VR, LD, VL, HD, HU). `top[-1]` is the corner, `top[0...7]` the
    /// row above and above-right, `left[0...3]` the column to the left.
    @inline(__always)
    static func predict4(_ mode: Int, top: UnsafePointer<UInt8>, left: UnsafePointer<UInt8>, dst: UnsafeMutablePointer<UInt8>) {
        let x = Int32(top[-1])
        let a = Int32(top[0]), b = Int32(top[1]), c = Int32(top[2]), d = Int32(top[3])
        let e = Int32(top[4]), f = Int32(top[5]), g = Int32(top[6]), h = Int32(top[7])
        let i = Int32(left[0]), j = Int32(left[1]), k = Int32(left[2]), l = Int32(left[3])
        @inline(__always) func avg3(_ p: Int32, _ q: Int32, _ r: Int32) -> UInt8 { UInt8(truncatingIfNeeded: (p &+ 2 &* q &+ r &+ 2) &>> 2) }
        @inline(__always) func avg2(_ p: Int32, _ q: Int32) -> UInt8 { UInt8(truncatingIfNeeded: (p &+ q &+ 1) &>> 1) }
        @inline(__always) func put(_ col: Int, _ row: Int, _ v: UInt8) { dst[row &* 4 &+ col] = v }
        switch mode {
        case 0: // DC
            let v = (a &+ b &+ c &+ d &+ i &+ j &+ k &+ l &+ 4) &>> 3
            dst.update(repeating: UInt8(truncatingIfNeeded: v), count: 16)
        case 1: // TM
            for row in 0..<4 {
                let base = Int32(left[row]) &- x
                for col in 0..<4 { put(col, row, UInt8(clamping: base &+ Int32(top[col]))) }
            }
        case 2: // VE: the row above, smoothed
            let v0 = avg3(x, a, b), v1 = avg3(a, b, c), v2 = avg3(b, c, d), v3 = avg3(c, d, e)
            for row in 0..<4 { put(0, row, v0); put(1, row, v1); put(2, row, v2); put(3, row, v3) }
        case 3: // HE: the left column, smoothed
            dst.update(repeating: avg3(x, i, j), count: 4)
            (dst + 4).update(repeating: avg3(i, j, k), count: 4)
            (dst + 8).update(repeating: avg3(j, k, l), count: 4)
            (dst + 12).update(repeating: avg3(k, l, l), count: 4)
        case 4: // RD (down-right)
            put(0, 3, avg3(j, k, l))
            let v1 = avg3(i, j, k); put(1, 3, v1); put(0, 2, v1)
            let v2 = avg3(x, i, j); put(2, 3, v2); put(1, 2, v2); put(0, 1, v2)
            let v3 = avg3(a, x, i); put(3, 3, v3); put(2, 2, v3); put(1, 1, v3); put(0, 0, v3)
            let v4 = avg3(b, a, x); put(3, 2, v4); put(2, 1, v4); put(1, 0, v4)
            let v5 = avg3(c, b, a); put(3, 1, v5); put(2, 0, v5)
            put(3, 0, avg3(d, c, b))
        case 5: // VR (vertical-right)
            let p0 = avg2(x, a); put(0, 0, p0); put(1, 2, p0)
            let p1 = avg2(a, b); put(1, 0, p1); put(2, 2, p1)
            let p2 = avg2(b, c); put(2, 0, p2); put(3, 2, p2)
            put(3, 0, avg2(c, d))
            put(0, 3, avg3(k, j, i))
            put(0, 2, avg3(j, i, x))
            let q0 = avg3(i, x, a); put(0, 1, q0); put(1, 3, q0)
            let q1 = avg3(x, a, b); put(1, 1, q1); put(2, 3, q1)
            let q2 = avg3(a, b, c); put(2, 1, q2); put(3, 3, q2)
            put(3, 1, avg3(b, c, d))
        case 6: // LD (down-left)
            put(0, 0, avg3(a, b, c))
            let v1 = avg3(b, c, d); put(1, 0, v1); put(0, 1, v1)
            let v2 = avg3(c, d, e); put(2, 0, v2); put(1, 1, v2); put(0, 2, v2)
            let v3 = avg3(d, e, f); put(3, 0, v3); put(2, 1, v3); put(1, 2, v3); put(0, 3, v3)
            let v4 = avg3(e, f, g); put(3, 1, v4); put(2, 2, v4); put(1, 3, v4)
            let v5 = avg3(f, g, h); put(3, 2, v5); put(2, 3, v5)
            put(3, 3, avg3(g, h, h))
        case 7: // VL (vertical-left)
            put(0, 0, avg2(a, b))
            let p1 = avg2(b, c); put(1, 0, p1); put(0, 2, p1)
            let p2 = avg2(c, d); put(2, 0, p2); put(1, 2, p2)
            let p3 = avg2(d, e); put(3, 0, p3); put(2, 2, p3)
            put(0, 1, avg3(a, b, c))
            let q1 = avg3(b, c, d); put(1, 1, q1); put(0, 3, q1)
            let q2 = avg3(c, d, e); put(2, 1, q2); put(1, 3, q2)
            let q3 = avg3(d, e, f); put(3, 1, q3); put(2, 3, q3)
            put(3, 2, avg3(e, f, g))
            put(3, 3, avg3(f, g, h))
        case 8: // HD (horizontal-down)
            let p0 = avg2(i, x); put(0, 0, p0); put(2, 1, p0)
            let p1 = avg2(j, i); put(0, 1, p1); put(2, 2, p1)
            let p2 = avg2(k, j); put(0, 2, p2); put(2, 3, p2)
            put(0, 3, avg2(l, k))
            put(3, 0, avg3(a, b, c))
            put(2, 0, avg3(x, a, b))
            let q0 = avg3(i, x, a); put(1, 0, q0); put(3, 1, q0)
            let q1 = avg3(j, i, x); put(1, 1, q1); put(3, 2, q1)
            let q2 = avg3(k, j, i); put(1, 2, q2); put(3, 3, q2)
            put(1, 3, avg3(l, k, j))
        default: // HU (horizontal-up)
            put(0, 0, avg2(i, j))
            let p1 = avg2(j, k); put(2, 0, p1); put(0, 1, p1)
            let p2 = avg2(k, l); put(2, 1, p2); put(0, 2, p2)
            put(1, 0, avg3(i, j, k))
            let q1 = avg3(j, k, l); put(3, 0, q1); put(1, 1, q1)
            let q2 = avg3(k, l, l); put(3, 1, q2); put(1, 2, q2)
            let lv = UInt8(truncatingIfNeeded: l)
            put(3, 2, lv); put(2, 2, lv); put(0, 3, lv); put(1, 3, lv); put(2, 3, lv); put(3, 3, lv)
        }
    }
}
