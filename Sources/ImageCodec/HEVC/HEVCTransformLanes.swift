/// The inverse DCTs of 8, 16 and 32 points (H.265 8.6.4.2) and the residual's clipped sum with
/// the prediction (8.6.7) on eight 32-bit lanes. The transforms compute the same
/// sums as `HEVCInverseTransform`'s scalar partial butterflies, grouped so that every
/// multiply-add works on eight samples at once.
///
/// - Vertical pass: eight columns at a time; output rows y and n − 1 − y share the sums over
///   the even and the odd input rows (E ± O), so each output pair costs one multiply-add per
///   non-zero input row.
/// - Horizontal pass: each row of the intermediate as a sum of matrix rows (eight columns of
///   the 32-point table, contiguous) weighted by its values; from 16 points on, the second
///   half of a row is the first half's E − O reversed.
///
/// Integer sums that stay within Int32 (|input| ≤ 2^15, a column's weights add to at most
/// 32 × 90), so the order of the additions does not change a bit of the result, and the clip
/// to 16 bits between the passes is the scalar path's. The AVX2 kernel target builds this file
/// a second time (a symlink), where a lane vector is one register and multiplies are `vpmulld`.
enum HEVCTransformLanes {
    private typealias Lanes = SIMD8<Int32>

    @inline(__always) private static func load(_ p: UnsafePointer<Int32>) -> Lanes {
        UnsafeRawPointer(p).loadUnaligned(as: Lanes.self)
    }

    @inline(__always) private static func store(_ v: Lanes, _ p: UnsafeMutablePointer<Int32>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Lanes.self)
    }

    @inline(__always) private static func reversed(_ v: Lanes) -> Lanes {
        Lanes(v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0])
    }

    /// (v + 64) >> 7 clipped to −32768...32767, with sign masks (max(a, 0) = a & ~(a >> 31))
    /// so that it stays in lanes: the generic `clamped` and masked selects become calls.
    @inline(__always) private static func clip16(_ v: Lanes) -> Lanes {
        var a = ((v &+ 64) &>> 7) &+ 32_768
        a = a & ~(a &>> 31)
        let e = a &- 65_535
        return a &- (e & ~(e &>> 31)) &- 32_768
    }

    /// The inverse DCT of the n×n block `d` (n = 8, 16 or 32; `t` the 32×32 transMatrix,
    /// row-major) into the residual `r`: only rows 0...maxRow and columns 0...maxColumn of `d`
    /// may be non-zero, and the rest of `d` must be zero (it is read in groups of eight).
    /// `r` holds n×n values and is the intermediate between the passes.
    static func inverseDCT(_ d: UnsafePointer<Int32>, into r: UnsafeMutablePointer<Int32>, log2Size: Int, bdShift: Int32,
                           maxRow: Int, maxColumn: Int, table t: UnsafePointer<Int32>) {
        let n = 1 &<< log2Size
        let half = n &>> 1
        let step = 32 &>> log2Size      // frequency j is row j·step of the 32-point matrix
        // Vertical pass into r, eight columns at a time, columns 0...maxColumn (rounded up to 8).
        var cx = 0
        while cx <= maxColumn {
            let column = d + cx
            for y in 0..<half {
                var even = Lanes(repeating: 0), odd = Lanes(repeating: 0)
                var j = 0
                while j <= maxRow {
                    even &+= Lanes(repeating: t[(j &* step) &* 32 &+ y]) &* load(column + j &* n)
                    if j &+ 1 <= maxRow {
                        odd &+= Lanes(repeating: t[((j &+ 1) &* step) &* 32 &+ y]) &* load(column + (j &+ 1) &* n)
                    }
                    j &+= 2
                }
                store(clip16(even &+ odd), r + (y &* n &+ cx))
                store(clip16(even &- odd), r + ((n &- 1 &- y) &* n &+ cx))
            }
            cx &+= 8
        }
        // Horizontal pass, row by row in place.
        let round = Lanes(repeating: Int32(1) &<< (bdShift &- 1))
        let shift = Lanes(repeating: bdShift)
        for y in 0..<n {
            let row = r + y &* n
            if n == 8 {
                var sum = Lanes(repeating: 0)
                for j in 0...maxColumn { sum &+= Lanes(repeating: row[j]) &* load(t + (j &* step) &* 32) }
                store((sum &+ round) &>> shift, row)
                continue
            }
            // Lanes for columns x...x+7 of the first half; the second half mirrors them. The
            // row's values are read before any is written.
            var even0 = Lanes(repeating: 0), odd0 = Lanes(repeating: 0)
            var even1 = Lanes(repeating: 0), odd1 = Lanes(repeating: 0)
            var j = 0
            while j <= maxColumn {
                let basis = t + (j &* step) &* 32
                let g = Lanes(repeating: row[j])
                if j & 1 == 0 {
                    even0 &+= g &* load(basis)
                    if half == 16 { even1 &+= g &* load(basis + 8) }
                } else {
                    odd0 &+= g &* load(basis)
                    if half == 16 { odd1 &+= g &* load(basis + 8) }
                }
                j &+= 1
            }
            if half == 8 {
                store((even0 &+ odd0 &+ round) &>> shift, row)
                store(reversed((even0 &- odd0 &+ round) &>> shift), row + 8)
            } else {
                store((even0 &+ odd0 &+ round) &>> shift, row)
                store((even1 &+ odd1 &+ round) &>> shift, row + 8)
                store(reversed((even1 &- odd1 &+ round) &>> shift), row + 16)
                store(reversed((even0 &- odd0 &+ round) &>> shift), row + 24)
            }
        }
    }

    /// Adds the n×n residual `r` to the prediction in `plane` (rows `stride` apart), each sum
    /// clipped to 0...maxValue (8.6.7), eight samples at a time from n = 8 on.
    static func addResidual(_ r: UnsafePointer<Int32>, to plane: UnsafeMutablePointer<UInt16>, stride: Int, log2Size: Int,
                            maxValue: Int32) {
        let n = 1 &<< log2Size
        if n == 4 {
            for y in 0..<4 {
                let row = plane + y &* stride, residualRow = r + y &* 4
                for x in 0..<4 { row[x] = UInt16(truncatingIfNeeded: min(max(Int32(row[x]) &+ residualRow[x], 0), maxValue)) }
            }
            return
        }
        let top = Lanes(repeating: maxValue)
        for y in 0..<n {
            let row = plane + y &* stride, residualRow = r + y &* n
            var x = 0
            while x < n {
                let s = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<UInt16>.self)
                var v = Lanes(Int32(s[0]), Int32(s[1]), Int32(s[2]), Int32(s[3]), Int32(s[4]), Int32(s[5]), Int32(s[6]), Int32(s[7]))
                v = v &+ load(residualRow + x)
                // clamp to 0...maxValue with sign masks, as `clip16`.
                v = v & ~(v &>> 31)
                let e = v &- top
                v = v &- (e & ~(e &>> 31))
                let out = SIMD8<UInt16>(UInt16(truncatingIfNeeded: v[0]), UInt16(truncatingIfNeeded: v[1]),
                                        UInt16(truncatingIfNeeded: v[2]), UInt16(truncatingIfNeeded: v[3]),
                                        UInt16(truncatingIfNeeded: v[4]), UInt16(truncatingIfNeeded: v[5]),
                                        UInt16(truncatingIfNeeded: v[6]), UInt16(truncatingIfNeeded: v[7]))
                UnsafeMutableRawPointer(row + x).storeBytes(of: out, as: SIMD8<UInt16>.self)
                x &+= 8
            }
        }
    }
}
