/// Intra predictors of VP8 (RFC 6386 section 12), the one implementation the decoder and the
/// encoder share: both must form exactly the same predictions or the encoder's reconstruction
/// drifts from what decoders show.
///
/// Each predictor reads its edges through pointers: `top` is the row above (`top[-1]` the
/// above-left pixel; for 4×4 blocks `top[4...7]` the four above-right ones) and `left` the
/// column to the left, `leftStride` apart. The decoder points both into its work area (`dst -
/// stride`, `dst - 1`, stride apart); the encoder into small edge buffers (left stride 1).
/// Frame edges are pre-filled with 127 above and 129 on the left, as libwebp does, so the
/// predictors need no edge cases except the DC variants chosen by the caller.
enum VP8IntraPrediction {
    /// Which neighbours a DC prediction may use at the frame edge.
    enum DCEdges {
        case both, noTop, noLeft, none

        init(hasTop: Bool, hasLeft: Bool) {
            self = hasTop ? (hasLeft ? .both : .noLeft) : (hasLeft ? .noTop : .none)
        }
    }

    @inline(__always) private static func avg3(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (Int(a) &+ 2 &* Int(b) &+ Int(c) &+ 2) >> 2)
    }
    @inline(__always) private static func avg2(_ a: UInt8, _ b: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (Int(a) &+ Int(b) &+ 1) >> 1)
    }

    /// A `size`×`size` block (16 luma or 8 chroma) with mode DC, TM, VE or HE (`VP8Mode`).
    @inline(__always)
    static func predictBlock(_ dst: UnsafeMutablePointer<UInt8>, stride: Int, size: Int, mode: UInt8, edges: DCEdges,
                             top: UnsafePointer<UInt8>, left: UnsafePointer<UInt8>, leftStride: Int) {
        switch mode {
        case VP8Mode.vertical:
            for y in 0..<size { (dst + y &* stride).update(from: top, count: size) }
        case VP8Mode.horizontal:
            for y in 0..<size { (dst + y &* stride).update(repeating: left[y &* leftStride], count: size) }
        case VP8Mode.tm:
            trueMotion(dst, stride: stride, size: size, top: top, left: left, leftStride: leftStride)
        default:
            let shift = size == 16 ? 4 : 3
            var sum = 0
            let value: Int
            switch edges {
            case .both:
                for i in 0..<size { sum &+= Int(top[i]) &+ Int(left[i &* leftStride]) }
                value = (sum &+ size) >> (shift &+ 1)
            case .noTop:
                for i in 0..<size { sum &+= Int(left[i &* leftStride]) }
                value = (sum &+ size / 2) >> shift
            case .noLeft:
                for i in 0..<size { sum &+= Int(top[i]) }
                value = (sum &+ size / 2) >> shift
            case .none:
                value = 128
            }
            for y in 0..<size { (dst + y &* stride).update(repeating: UInt8(truncatingIfNeeded: value), count: size) }
        }
    }

    @inline(__always)
    private static func trueMotion(_ dst: UnsafeMutablePointer<UInt8>, stride: Int, size: Int,
                                   top: UnsafePointer<UInt8>, left: UnsafePointer<UInt8>, leftStride: Int) {
        let corner = Int(top[-1])
        for y in 0..<size {
            let row = dst + y &* stride
            let base = Int(left[y &* leftStride]) &- corner
            for x in 0..<size { row[x] = UInt8(clamping: Int(top[x]) &+ base) }
        }
    }

    /// One 4×4 sub-block with one of the ten sub-block modes (`IntraMode4` order: DC, TM, VE,
    /// HE, RD, VR, LD, VL, HD, HU).
    @inline(__always)
    static func predictSubblock(_ dst: UnsafeMutablePointer<UInt8>, stride s: Int, mode: UInt8,
                                top t: UnsafePointer<UInt8>, left lp: UnsafePointer<UInt8>, leftStride ls: Int) {
        @inline(__always) func put(_ x: Int, _ y: Int, _ v: UInt8) { dst[x &+ y &* s] = v }
        @inline(__always) func left(_ y: Int) -> UInt8 { lp[y &* ls] }
        switch mode {
        case 0:  // DC
            var sum = 4
            for i in 0..<4 { sum &+= Int(t[i]) &+ Int(left(i)) }
            let v = UInt8(truncatingIfNeeded: sum >> 3)
            for y in 0..<4 { (dst + y &* s).update(repeating: v, count: 4) }
        case 1:  // TM
            trueMotion(dst, stride: s, size: 4, top: t, left: lp, leftStride: ls)
        case 2:  // VE, smoothed
            for x in 0..<4 {
                let v = avg3(t[x &- 1], t[x], t[x &+ 1])
                for y in 0..<4 { put(x, y, v) }
            }
        case 3:  // HE, smoothed
            let a = t[-1], b = left(0), c = left(1), d = left(2), e = left(3)
            (dst).update(repeating: avg3(a, b, c), count: 4)
            (dst + s).update(repeating: avg3(b, c, d), count: 4)
            (dst + 2 &* s).update(repeating: avg3(c, d, e), count: 4)
            (dst + 3 &* s).update(repeating: avg3(d, e, e), count: 4)
        case 4:  // RD, down-right
            let i = left(0), j = left(1), k = left(2), l = left(3), x = t[-1]
            let a = t[0], b = t[1], c = t[2], d = t[3]
            put(0, 3, avg3(j, k, l))
            let ijk = avg3(i, j, k); put(1, 3, ijk); put(0, 2, ijk)
            let xij = avg3(x, i, j); put(2, 3, xij); put(1, 2, xij); put(0, 1, xij)
            let axi = avg3(a, x, i); put(3, 3, axi); put(2, 2, axi); put(1, 1, axi); put(0, 0, axi)
            let bax = avg3(b, a, x); put(3, 2, bax); put(2, 1, bax); put(1, 0, bax)
            let cba = avg3(c, b, a); put(3, 1, cba); put(2, 0, cba)
            put(3, 0, avg3(d, c, b))
        case 5:  // VR, vertical-right
            let i = left(0), j = left(1), k = left(2), x = t[-1]
            let a = t[0], b = t[1], c = t[2], d = t[3]
            let xa = avg2(x, a); put(0, 0, xa); put(1, 2, xa)
            let ab = avg2(a, b); put(1, 0, ab); put(2, 2, ab)
            let bc = avg2(b, c); put(2, 0, bc); put(3, 2, bc)
            put(3, 0, avg2(c, d))
            put(0, 3, avg3(k, j, i))
            put(0, 2, avg3(j, i, x))
            let ixa = avg3(i, x, a); put(0, 1, ixa); put(1, 3, ixa)
            let xab = avg3(x, a, b); put(1, 1, xab); put(2, 3, xab)
            let abc = avg3(a, b, c); put(2, 1, abc); put(3, 3, abc)
            put(3, 1, avg3(b, c, d))
        case 6:  // LD, down-left
            let a = t[0], b = t[1], c = t[2], d = t[3], e = t[4], f = t[5], g = t[6], h = t[7]
            put(0, 0, avg3(a, b, c))
            let bcd = avg3(b, c, d); put(1, 0, bcd); put(0, 1, bcd)
            let cde = avg3(c, d, e); put(2, 0, cde); put(1, 1, cde); put(0, 2, cde)
            let def = avg3(d, e, f); put(3, 0, def); put(2, 1, def); put(1, 2, def); put(0, 3, def)
            let efg = avg3(e, f, g); put(3, 1, efg); put(2, 2, efg); put(1, 3, efg)
            let fgh = avg3(f, g, h); put(3, 2, fgh); put(2, 3, fgh)
            put(3, 3, avg3(g, h, h))
        case 7:  // VL, vertical-left
            let a = t[0], b = t[1], c = t[2], d = t[3], e = t[4], f = t[5], g = t[6], h = t[7]
            put(0, 0, avg2(a, b))
            let bc = avg2(b, c); put(1, 0, bc); put(0, 2, bc)
            let cd = avg2(c, d); put(2, 0, cd); put(1, 2, cd)
            let de = avg2(d, e); put(3, 0, de); put(2, 2, de)
            put(0, 1, avg3(a, b, c))
            let bcd = avg3(b, c, d); put(1, 1, bcd); put(0, 3, bcd)
            let cde = avg3(c, d, e); put(2, 1, cde); put(1, 3, cde)
            let def = avg3(d, e, f); put(3, 1, def); put(2, 3, def)
            put(3, 2, avg3(e, f, g))
            put(3, 3, avg3(f, g, h))
        case 8:  // HD, horizontal-down
            let i = left(0), j = left(1), k = left(2), l = left(3), x = t[-1]
            let a = t[0], b = t[1], c = t[2]
            let ix = avg2(i, x); put(0, 0, ix); put(2, 1, ix)
            let ji = avg2(j, i); put(0, 1, ji); put(2, 2, ji)
            let kj = avg2(k, j); put(0, 2, kj); put(2, 3, kj)
            put(0, 3, avg2(l, k))
            put(3, 0, avg3(a, b, c))
            put(2, 0, avg3(x, a, b))
            let ixa = avg3(i, x, a); put(1, 0, ixa); put(3, 1, ixa)
            let jix = avg3(j, i, x); put(1, 1, jix); put(3, 2, jix)
            let kji = avg3(k, j, i); put(1, 2, kji); put(3, 3, kji)
            put(1, 3, avg3(l, k, j))
        default:  // HU, horizontal-up
            let i = left(0), j = left(1), k = left(2), l = left(3)
            put(0, 0, avg2(i, j))
            let jk = avg2(j, k); put(2, 0, jk); put(0, 1, jk)
            let kl = avg2(k, l); put(2, 1, kl); put(0, 2, kl)
            put(1, 0, avg3(i, j, k))
            let jkl = avg3(j, k, l); put(3, 0, jkl); put(1, 1, jkl)
            let kll = avg3(k, l, l); put(3, 1, kll); put(1, 2, kll)
            put(3, 2, l); put(2, 2, l); put(0, 3, l); put(1, 3, l); put(2, 3, l); put(3, 3, l)
        }
    }
}
