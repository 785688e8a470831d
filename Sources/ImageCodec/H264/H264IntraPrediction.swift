/// Intra prediction (8.3): 4x4 and 8x8 luma blocks from their edge samples, 16x16 luma and
/// 8x8 (4:2:0) chroma from the picture. Edges missing at picture or slice borders are filled
/// with 128 so that a damaged stream asking for them still reads only its own buffers.
enum H264IntraPrediction {
    /// Layout of the edge buffer `e` (at least `edgeCount` Int32): p[x,-1] at e[top + x] for
    /// x in -1...15, p[-1,y] at e[left + y] for y in -1...7 (both -1 entries hold p[-1,-1]).
    static let top = 17, left = 40, edgeCount = 96
    /// Offset of the filtered copy of the edges (8.3.2.2.1) in the same buffer.
    static let filtered = 48

    /// Fills the edges of the n x n block at `p` (n = 4 or 8) from the picture.
    @inline(__always)
    static func loadEdges(_ e: UnsafeMutablePointer<Int32>, _ p: UnsafeMutablePointer<UInt8>, stride: Int, n: Int,
                          hasTop: Bool, hasTopRight: Bool, hasLeft: Bool, hasCorner: Bool) {
        if hasTop {
            let row = p - stride
            for x in 0..<n { e[top &+ x] = Int32(row[x]) }
            if hasTopRight {
                for x in n..<(2 &* n) { e[top &+ x] = Int32(row[x]) }
            } else {
                let last = e[top &+ n &- 1]
                for x in n..<(2 &* n) { e[top &+ x] = last }
            }
        } else {
            for x in 0..<(2 &* n) { e[top &+ x] = 128 }
        }
        if hasLeft {
            for y in 0..<n { e[left &+ y] = Int32(p[y &* stride &- 1]) }
        } else {
            for y in 0..<n { e[left &+ y] = 128 }
        }
        let corner: Int32 = hasCorner ? Int32(p[-stride &- 1]) : 128
        e[top &- 1] = corner
        e[left &- 1] = corner
    }

    /// The reference sample filter of 8x8 prediction (8.3.2.2.1): writes p' at `filtered` offsets.
    static func filterEdges8x8(_ e: UnsafeMutablePointer<Int32>, hasTop: Bool, hasLeft: Bool, hasCorner: Bool) {
        let f = e + filtered
        let t = top, l = left
        if hasTop {
            f[t] = hasCorner ? (e[t - 1] + 2 * e[t] + e[t + 1] + 2) >> 2 : (3 * e[t] + e[t + 1] + 2) >> 2
            for x in 1..<15 { f[t + x] = (e[t + x - 1] + 2 * e[t + x] + e[t + x + 1] + 2) >> 2 }
            f[t + 15] = (e[t + 14] + 3 * e[t + 15] + 2) >> 2
        }
        if hasCorner {
            let c: Int32
            if hasTop && hasLeft {
                c = (e[t] + 2 * e[t - 1] + e[l] + 2) >> 2
            } else if hasTop {
                c = (3 * e[t - 1] + e[t] + 2) >> 2
            } else if hasLeft {
                c = (3 * e[t - 1] + e[l] + 2) >> 2
            } else {
                c = e[t - 1]
            }
            f[t - 1] = c
            f[l - 1] = c
        }
        if hasLeft {
            f[l] = hasCorner ? (e[l - 1] + 2 * e[l] + e[l + 1] + 2) >> 2 : (3 * e[l] + e[l + 1] + 2) >> 2
            for y in 1..<7 { f[l + y] = (e[l + y - 1] + 2 * e[l + y] + e[l + y + 1] + 2) >> 2 }
            f[l + 7] = (e[l + 6] + 3 * e[l + 7] + 2) >> 2
        }
    }

    /// Intra_4x4 / Intra_8x8 prediction (8.3.1.2, 8.3.2.2) of mode 0...8 into `dst`.
    static func predictNxN(mode: Int, n: Int, edges e: UnsafePointer<Int32>, hasTop: Bool, hasLeft: Bool,
                           dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func T(_ x: Int) -> Int32 { e[top &+ x] }
        @inline(__always) func L(_ y: Int) -> Int32 { e[left &+ y] }
        @inline(__always) func put(_ x: Int, _ y: Int, _ v: Int32) { dst[y &* stride &+ x] = UInt8(truncatingIfNeeded: v) }
        let last = n &- 1
        switch mode {
        case 0:
            for y in 0..<n { for x in 0..<n { put(x, y, T(x)) } }
        case 1:
            for y in 0..<n { let v = L(y); for x in 0..<n { put(x, y, v) } }
        case 2:
            var sum: Int32 = 0
            let shift: Int32 = n == 4 ? 2 : 3
            let v: Int32
            if hasTop && hasLeft {
                for i in 0..<n { sum &+= T(i) &+ L(i) }
                v = (sum &+ Int32(n)) >> (shift &+ 1)
            } else if hasLeft {
                for i in 0..<n { sum &+= L(i) }
                v = (sum &+ Int32(n >> 1)) >> shift
            } else if hasTop {
                for i in 0..<n { sum &+= T(i) }
                v = (sum &+ Int32(n >> 1)) >> shift
            } else {
                v = 128
            }
            for y in 0..<n { for x in 0..<n { put(x, y, v) } }
        case 3:
            for y in 0..<n {
                for x in 0..<n {
                    let i = x &+ y
                    put(x, y, x == last && y == last ? (T(2 &* n &- 2) &+ 3 &* T(2 &* n &- 1) &+ 2) >> 2
                            : (T(i) &+ 2 &* T(i &+ 1) &+ T(i &+ 2) &+ 2) >> 2)
                }
            }
        case 4:
            for y in 0..<n {
                for x in 0..<n {
                    let v: Int32
                    if x > y {
                        let i = x &- y
                        v = (T(i &- 2) &+ 2 &* T(i &- 1) &+ T(i) &+ 2) >> 2
                    } else if x < y {
                        let i = y &- x
                        v = (L(i &- 2) &+ 2 &* L(i &- 1) &+ L(i) &+ 2) >> 2
                    } else {
                        v = (T(0) &+ 2 &* T(-1) &+ L(0) &+ 2) >> 2
                    }
                    put(x, y, v)
                }
            }
        case 5:
            for y in 0..<n {
                for x in 0..<n {
                    let z = 2 &* x &- y
                    let v: Int32
                    if z >= 0 && z & 1 == 0 {
                        let i = x &- (y >> 1)
                        v = (T(i &- 1) &+ T(i) &+ 1) >> 1
                    } else if z > 0 {
                        let i = x &- (y >> 1)
                        v = (T(i &- 2) &+ 2 &* T(i &- 1) &+ T(i) &+ 2) >> 2
                    } else if z == -1 {
                        v = (L(0) &+ 2 &* L(-1) &+ T(0) &+ 2) >> 2
                    } else {
                        let i = y &- 2 &* x
                        v = (L(i &- 1) &+ 2 &* L(i &- 2) &+ L(i &- 3) &+ 2) >> 2
                    }
                    put(x, y, v)
                }
            }
        case 6:
            for y in 0..<n {
                for x in 0..<n {
                    let z = 2 &* y &- x
                    let v: Int32
                    if z >= 0 && z & 1 == 0 {
                        let i = y &- (x >> 1)
                        v = (L(i &- 1) &+ L(i) &+ 1) >> 1
                    } else if z > 0 {
                        let i = y &- (x >> 1)
                        v = (L(i &- 2) &+ 2 &* L(i &- 1) &+ L(i) &+ 2) >> 2
                    } else if z == -1 {
                        v = (L(0) &+ 2 &* L(-1) &+ T(0) &+ 2) >> 2
                    } else {
                        let i = x &- 2 &* y
                        v = (T(i &- 1) &+ 2 &* T(i &- 2) &+ T(i &- 3) &+ 2) >> 2
                    }
                    put(x, y, v)
                }
            }
        case 7:
            for y in 0..<n {
                for x in 0..<n {
                    let i = x &+ (y >> 1)
                    put(x, y, y & 1 == 0 ? (T(i) &+ T(i &+ 1) &+ 1) >> 1 : (T(i) &+ 2 &* T(i &+ 1) &+ T(i &+ 2) &+ 2) >> 2)
                }
            }
        default:
            let edge = 2 &* n &- 3
            for y in 0..<n {
                for x in 0..<n {
                    let z = x &+ 2 &* y
                    let i = y &+ (x >> 1)
                    let v: Int32
                    if z > edge {
                        v = L(last)
                    } else if z == edge {
                        v = (L(n &- 2) &+ 3 &* L(last) &+ 2) >> 2
                    } else if z & 1 == 0 {
                        v = (L(i) &+ L(i &+ 1) &+ 1) >> 1
                    } else {
                        v = (L(i) &+ 2 &* L(i &+ 1) &+ L(i &+ 2) &+ 2) >> 2
                    }
                    put(x, y, v)
                }
            }
        }
    }

    /// Intra_16x16 prediction (8.3.3), mode 0...3, at `p` in the picture.
    static func predict16x16(mode: Int, p: UnsafeMutablePointer<UInt8>, stride: Int, hasTop: Bool, hasLeft: Bool) {
        predictBlock(mode: mode, size: 16, p: p, stride: stride, hasTop: hasTop, hasLeft: hasLeft, chroma: false)
    }

    /// Chroma prediction (8.3.4) of a 4:2:0 8x8 block, mode 0 DC, 1 horizontal, 2 vertical, 3 plane.
    static func predictChroma(mode: Int, p: UnsafeMutablePointer<UInt8>, stride: Int, hasTop: Bool, hasLeft: Bool) {
        let lumaMode = mode == 0 ? 2 : mode == 2 ? 0 : mode
        predictBlock(mode: lumaMode, size: 8, p: p, stride: stride, hasTop: hasTop, hasLeft: hasLeft, chroma: true)
    }

    /// Vertical, horizontal, DC and plane prediction of a 16x16 luma or 8x8 chroma block
    /// (mode numbers of Intra_16x16).
    private static func predictBlock(mode: Int, size: Int, p: UnsafeMutablePointer<UInt8>, stride: Int,
                                     hasTop: Bool, hasLeft: Bool, chroma: Bool) {
        let above = p - stride
        switch mode {
        case 0:
            guard hasTop else { return fill(p, stride: stride, size: size, 128) }
            for y in 1...size { (p + (y &- 1) &* stride).update(from: above, count: size) }
        case 1:
            for y in 0..<size {
                let v = hasLeft ? p[y &* stride &- 1] : 128
                (p + y &* stride).update(repeating: v, count: size)
            }
        case 2:
            if chroma {
                for by in 0..<2 {
                    for bx in 0..<2 {
                        var sumTop = 0, sumLeft = 0
                        for i in 0..<4 {
                            if hasTop { sumTop &+= Int(above[bx &* 4 &+ i]) }
                            if hasLeft { sumLeft &+= Int(p[(by &* 4 &+ i) &* stride &- 1]) }
                        }
                        let v: Int
                        let preferTop = bx == 1 && by == 0, preferLeft = bx == 0 && by == 1
                        if preferTop {
                            v = hasTop ? (sumTop &+ 2) >> 2 : hasLeft ? (sumLeft &+ 2) >> 2 : 128
                        } else if preferLeft {
                            v = hasLeft ? (sumLeft &+ 2) >> 2 : hasTop ? (sumTop &+ 2) >> 2 : 128
                        } else {
                            v = hasTop && hasLeft ? (sumTop &+ sumLeft &+ 4) >> 3
                                : hasTop ? (sumTop &+ 2) >> 2 : hasLeft ? (sumLeft &+ 2) >> 2 : 128
                        }
                        for y in 0..<4 {
                            (p + ((by &* 4 &+ y) &* stride &+ bx &* 4)).update(repeating: UInt8(v), count: 4)
                        }
                    }
                }
            } else {
                var sumTop = 0, sumLeft = 0
                for i in 0..<16 {
                    if hasTop { sumTop &+= Int(above[i]) }
                    if hasLeft { sumLeft &+= Int(p[i &* stride &- 1]) }
                }
                let v = hasTop && hasLeft ? (sumTop &+ sumLeft &+ 16) >> 5
                    : hasTop ? (sumTop &+ 8) >> 4 : hasLeft ? (sumLeft &+ 8) >> 4 : 128
                fill(p, stride: stride, size: 16, UInt8(v))
            }
        default:
            guard hasTop && hasLeft else { return fill(p, stride: stride, size: size, 128) }
            let half = size >> 1
            var h = 0, v = 0
            for i in 0..<half {
                h &+= (i &+ 1) &* (Int(above[half &+ i]) &- Int(above[half &- 2 &- i]))
                v &+= (i &+ 1) &* (Int(p[(half &+ i) &* stride &- 1]) &- Int(p[(half &- 2 &- i) &* stride &- 1]))
            }
            let a = 16 &* (Int(p[(size &- 1) &* stride &- 1]) &+ Int(above[size &- 1]))
            let b = chroma ? (34 &* h &+ 32) >> 6 : (5 &* h &+ 32) >> 6
            let c = chroma ? (34 &* v &+ 32) >> 6 : (5 &* v &+ 32) >> 6
            let centre = half &- 1
            for y in 0..<size {
                let row = p + y &* stride
                var acc = a &+ c &* (y &- centre) &- b &* centre &+ 16
                for x in 0..<size {
                    let s = acc >> 5
                    row[x] = UInt8(truncatingIfNeeded: s < 0 ? 0 : s > 255 ? 255 : s)
                    acc &+= b
                }
            }
        }
    }

    private static func fill(_ p: UnsafeMutablePointer<UInt8>, stride: Int, size: Int, _ v: UInt8) {
        for y in 0..<size { (p + y &* stride).update(repeating: v, count: size) }
    }
}
