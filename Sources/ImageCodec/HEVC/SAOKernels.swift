/// The two SAO sample filters (H.265 8.7.3.2) over one CTB of one component: read from the
/// band of deblocked lines, write to the plane.
enum SAOKernels {
    /// Band offset: the four bands from `bandPosition` on get SaoOffsetVal[1...4].
    static func bandOffset(_ c: SAOContext, _ g: SAOGeometry, _ b: SAOBlock, offsets: SIMD4<Int16>, bandPosition: Int) {
        let table = c.table
        table.update(repeating: 0, count: 32)
        for k in 0..<4 { table[(bandPosition &+ k) & 31] = Int32(offsets[k]) }
        let shift = g.bitDepth &- 5, maxValue = (1 << g.bitDepth) &- 1
        let vectors = g.bitDepth <= SAOVector.maxBitDepth
        let o = offsets, vMax = SAOVector(repeating: Int16(truncatingIfNeeded: maxValue))
        let vBand = SAOVector(repeating: Int16(truncatingIfNeeded: bandPosition))
        for y in 0..<b.height {
            let source = c.band + ((y &+ 1) &* g.width &+ b.x0)
            let target = c.plane + ((b.y0 &+ y) &* g.width &+ b.x0)
            var x = 0
            if vectors {
                while x &+ SAOVector.scalarCount <= b.width {
                    let v = SAOVector.load(source + x)
                    let k = ((v &>> Int16(truncatingIfNeeded: shift)) &- vBand) & 31
                    let off = SAOVector.pick(k, 0, o[0]) | SAOVector.pick(k, 1, o[1])
                        | SAOVector.pick(k, 2, o[2]) | SAOVector.pick(k, 3, o[3])
                    SAOVector.clip(v &+ off, vMax).store(to: target + x)
                    x = x &+ SAOVector.scalarCount
                }
            }
            while x < b.width {
                let v = Int(source[x])
                let u = v &+ Int(table[(v >> shift) & 31])
                target[x] = UInt16(truncatingIfNeeded: min(max(u, 0), maxValue))
                x = x &+ 1
            }
        }
    }

    /// Edge offset of class `edgeClass` (0 horizontal, 1 vertical, 2 135°, 3 45°).
    static func edgeOffset(_ c: SAOContext, _ g: SAOGeometry, _ b: SAOBlock, offsets: SIMD4<Int16>, edgeClass: Int) {
        // Neighbour a at (hA, vA), b at (-hA, -vA), as H.265 table 8-13 (hPos, vPos) lists them.
        let hA: Int, vA: Int
        switch edgeClass & 3 {
        case 0: (hA, vA) = (-1, 0)
        case 1: (hA, vA) = (0, -1)
        case 2: (hA, vA) = (-1, -1)
        default: (hA, vA) = (1, -1)
        }
        // Offset by 2 + Sign(v - a) + Sign(v - b): 0 -> edgeIdx 1, 1 -> 2, 2 -> 0, 3 -> 3, 4 -> 4.
        let table = c.table
        table[0] = Int32(offsets[0])
        table[1] = Int32(offsets[1])
        table[2] = 0
        table[3] = Int32(offsets[2])
        table[4] = Int32(offsets[3])
        let maxValue = (1 << g.bitDepth) &- 1
        let width = g.width
        let offsetA = vA &* width &+ hA

        // Inner samples: both neighbours inside this CTB.
        let xStart = hA != 0 ? 1 : 0, xEnd = max(b.width &- xStart, xStart)
        let yStart = vA != 0 ? 1 : 0, yEnd = max(b.height &- yStart, yStart)
        let vectors = g.bitDepth <= SAOVector.maxBitDepth
        let o = offsets, vMax = SAOVector(repeating: Int16(truncatingIfNeeded: maxValue))
        var y = yStart
        while y < yEnd {
            let source = c.band + ((y &+ 1) &* width &+ b.x0)
            let target = c.plane + ((b.y0 &+ y) &* width &+ b.x0)
            var x = xStart
            if vectors {
                while x &+ SAOVector.scalarCount <= xEnd {
                    let v = SAOVector.load(source + x)
                    // 2 + Sign(v - a) + Sign(v - b), 0...4.
                    let e = SAOVector.sign(v, SAOVector.load(source + (x &+ offsetA)))
                        &+ SAOVector.sign(v, SAOVector.load(source + (x &- offsetA))) &+ 2
                    let off = SAOVector.pick(e, 0, o[0]) | SAOVector.pick(e, 1, o[1])
                        | SAOVector.pick(e, 3, o[2]) | SAOVector.pick(e, 4, o[3])
                    SAOVector.clip(v &+ off, vMax).store(to: target + x)
                    x = x &+ SAOVector.scalarCount
                }
            }
            while x < xEnd {
                let v = Int(source[x])
                let a = Int(source[x &+ offsetA]), n = Int(source[x &- offsetA])
                let e = 2 &+ (v > a ? 1 : 0) &- (v < a ? 1 : 0) &+ (v > n ? 1 : 0) &- (v < n ? 1 : 0)
                target[x] = UInt16(truncatingIfNeeded: min(max(v &+ Int(table[e]), 0), maxValue))
                x = x &+ 1
            }
            y = y &+ 1
        }

        // The frame: rows above yStart and from yEnd on whole, columns outside [xStart, xEnd) otherwise.
        let usable = usableNeighbours(c, b)
        for y in 0..<b.height {
            let wholeRow = y < yStart || y >= yEnd
            var x = 0
            while x < b.width {
                if !wholeRow && x == xStart {
                    x = max(xEnd, xStart)
                    continue
                }
                frameSample(c, g, b, x: x, y: y, hA: hA, vA: vA, usable: usable, maxValue: maxValue)
                x = x &+ 1
            }
        }
    }

    /// One border sample: unchanged when a neighbour is outside the picture or in a CTB the
    /// slice and tile rules forbid reading.
    @inline(__always)
    private static func frameSample(_ c: SAOContext, _ g: SAOGeometry, _ b: SAOBlock, x: Int, y: Int,
                                    hA: Int, vA: Int, usable: Int, maxValue: Int) {
        let px = b.x0 &+ x, py = b.y0 &+ y
        let ax = px &+ hA, ay = py &+ vA, nx = px &- hA, ny = py &- vA
        guard ax >= 0, ay >= 0, nx >= 0, ny >= 0, ax < g.width, nx < g.width, ay < g.height, ny < g.height,
              usable & neighbourBit(b, g, x: x &+ hA, y: y &+ vA) != 0,
              usable & neighbourBit(b, g, x: x &- hA, y: y &- vA) != 0 else { return }
        let line = c.band + (y &+ 1) &* g.width
        let v = Int(line[px])
        let av = Int(c.band[(ay &- b.y0 &+ 1) &* g.width &+ ax])
        let nv = Int(c.band[(ny &- b.y0 &+ 1) &* g.width &+ nx])
        let e = 2 &+ (v > av ? 1 : 0) &- (v < av ? 1 : 0) &+ (v > nv ? 1 : 0) &- (v < nv ? 1 : 0)
        c.plane[py &* g.width &+ px] = UInt16(truncatingIfNeeded: min(max(v &+ Int(c.table[e]), 0), maxValue))
    }

    /// The bit in `usableNeighbours` for CTB-local position (x, y), which may lie one sample
    /// outside the CTB on any side.
    @inline(__always)
    private static func neighbourBit(_ b: SAOBlock, _ g: SAOGeometry, x: Int, y: Int) -> Int {
        let column = x < 0 ? 0 : x >= g.ctbWidth ? 2 : 1
        let row = y < 0 ? 0 : y >= g.ctbHeight ? 2 : 1
        return 1 << (row &* 3 &+ column)
    }

    /// A 3×3 mask (bit row·3 + column, centre bit 4) of the CTBs around `b` whose deblocked
    /// samples edge offset may read (H.265 8.7.3.2): inside the picture; in the same slice, or
    /// the later of the two slices (in decoding order) allows filtering across its border; in
    /// the same tile, or filtering across tiles is on.
    static func usableNeighbours(_ c: SAOContext, _ b: SAOBlock) -> Int {
        let current = b.ctbY &* c.widthInCtbs &+ b.ctbX
        let slice = Int(c.sliceOfCtb[current]), tile = c.tileOfCtb[current]
        var mask = 0
        for dy in -1...1 {
            for dx in -1...1 {
                let nx = b.ctbX &+ dx, ny = b.ctbY &+ dy
                guard nx >= 0, ny >= 0, nx < c.widthInCtbs, ny < c.heightInCtbs else { continue }
                let neighbour = ny &* c.widthInCtbs &+ nx
                if !c.acrossTiles && c.tileOfCtb[neighbour] != tile { continue }
                let otherSlice = Int(c.sliceOfCtb[neighbour])
                if otherSlice != slice && !c.acrossSlices[max(slice, otherSlice)] { continue }
                mask |= 1 << ((dy &+ 1) &* 3 &+ dx &+ 1)
            }
        }
        return mask
    }
}

/// Sixteen samples at a time for the SAO inner loops. Only shifts, adds and bitwise operations:
/// `replacing(with:where:)` and `pointwiseMin` compiled to a loop over lanes here (measured 3×
/// slower than scalar code), these map to SSE2 instructions. Samples and results fit Int16 up
/// to 14 bits with SaoOffsetVal's range; deeper samples take the scalar path.
typealias SAOVector = SIMD16<Int16>

extension SIMD16 where Scalar == Int16 {
    static var maxBitDepth: Int { 14 }

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt16>) -> SIMD16<Int16> {
        SIMD16<Int16>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt16>.self))
    }

    @inline(__always)
    func store(to p: UnsafeMutablePointer<UInt16>) {
        UnsafeMutableRawPointer(p).storeBytes(of: SIMD16<UInt16>(truncatingIfNeeded: self), as: SIMD16<UInt16>.self)
    }

    /// Sign(a - b) per lane (no overflow: both are samples of at most 14 bits).
    @inline(__always)
    static func sign(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD16<Int16> {
        let d = a &- b
        let positive = SIMD16<Int16>(truncatingIfNeeded: SIMD16<UInt16>(truncatingIfNeeded: 0 &- d) &>> 15)
        return (d &>> 15) | positive
    }

    /// `value` in lanes where `index` (0...31) equals `k`, else 0.
    @inline(__always)
    static func pick(_ index: SIMD16<Int16>, _ k: Int16, _ value: Int16) -> SIMD16<Int16> {
        (((index ^ SIMD16<Int16>(repeating: k)) &- 1) &>> 15) & SIMD16<Int16>(repeating: value)
    }

    /// Clip3(0, maxValue, v) per lane, for v within ±2^14 of the range.
    @inline(__always)
    static func clip(_ v: SIMD16<Int16>, _ maxValue: SIMD16<Int16>) -> SIMD16<Int16> {
        let nonNegative = v & ~(v &>> 15)
        let over = (maxValue &- nonNegative) &>> 15
        return (nonNegative & ~over) | (maxValue & over)
    }
}
