/// The sample filters of HEVC deblocking (H.265 8.7.2.5.3-8.7.2.5.8) for one edge segment of
/// four lines, and the tables that turn QPs into β and tC.
///
/// One kernel serves both edge directions: `across` is the pointer step from p0 to q0 (1 for a
/// vertical edge, the stride for a horizontal one) and `along` the step from one line of the
/// segment to the next. The callers have checked that four samples on each side exist.
enum DeblockingKernels {
    /// β′ for Q = 0...51 (H.265 table 8-12).
    static let betaTable: [UInt8] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24,
        26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64,
    ]

    /// tC′ for Q = 0...53 (H.265 table 8-12).
    static let tcTable: [UInt8] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3,
        3, 3, 3, 4, 4, 4, 5, 5, 6, 6, 7, 8, 9, 10, 11, 13, 14, 16, 18, 20, 22, 24,
    ]

    /// β for an edge: `qpL` = (QpQ + QpP + 1) >> 1, `betaOffset` = slice_beta_offset_div2 << 1.
    @inline(__always)
    static func beta(qpL: Int, betaOffset: Int, bitDepth: Int) -> Int {
        let q = min(max(qpL &+ betaOffset, 0), 51)
        return Int(betaTable[q]) << (bitDepth &- 8)
    }

    /// tC for an edge of boundary strength 2: `qp` is qPL for luma or QpC for chroma,
    /// `tcOffset` = slice_tc_offset_div2 << 1.
    @inline(__always)
    static func tcForIntraEdge(qp: Int, tcOffset: Int, bitDepth: Int) -> Int {
        let q = min(max(qp &+ 2 &+ tcOffset, 0), 53)
        return Int(tcTable[q]) << (bitDepth &- 8)
    }

    /// QpC from qPi (H.265 table 8-10 when ChromaArrayType is 1, else Min(qPi, 51)).
    @inline(__always)
    static func chromaQp(_ qPi: Int, chromaArrayType: Int) -> Int {
        guard chromaArrayType == 1 else { return min(qPi, 51) }
        if qPi < 30 { return qPi }
        if qPi > 42 { return qPi &- 6 }
        // 30...42 -> 29 30 31 32 33 33 34 34 35 35 36 36 37
        return qPi < 35 ? qPi &- 1 : 33 &+ ((qPi &- 34) >> 1)
    }

    /// Decides (8.7.2.5.3, on lines 0 and 3) and filters (8.7.2.5.7) one luma edge segment of
    /// four lines. `q` points at q0 of line 0; `filterP`/`filterQ` false keeps that side.
    @inline(__always)
    static func lumaEdge(_ q: UnsafeMutablePointer<UInt16>, across a: Int, along l: Int, beta: Int, tc: Int,
                         filterP: Bool, filterQ: Bool, maxValue: Int) {
        let a2 = a &+ a, a3 = a2 &+ a, a4 = a3 &+ a
        let l3 = l &* 3
        let dp0 = abs(Int(q[-a3]) &- 2 &* Int(q[-a2]) &+ Int(q[-a]))
        let dq0 = abs(Int(q[a2]) &- 2 &* Int(q[a]) &+ Int(q[0]))
        let dp3 = abs(Int(q[l3 &- a3]) &- 2 &* Int(q[l3 &- a2]) &+ Int(q[l3 &- a]))
        let dq3 = abs(Int(q[l3 &+ a2]) &- 2 &* Int(q[l3 &+ a]) &+ Int(q[l3]))
        let dpq0 = dp0 &+ dq0, dpq3 = dp3 &+ dq3
        guard dpq0 &+ dpq3 < beta else { return }

        let tc5 = (5 &* tc &+ 1) >> 1
        @inline(__always) func strongLine(_ o: Int, _ dpq: Int) -> Bool {
            let p0 = Int(q[o &- a]), p3 = Int(q[o &- a4]), q0 = Int(q[o]), q3 = Int(q[o &+ a3])
            return 2 &* dpq < (beta >> 2) && abs(p3 &- p0) &+ abs(q0 &- q3) < (beta >> 3) && abs(p0 &- q0) < tc5
        }
        let strong = strongLine(0, dpq0) && strongLine(l3, dpq3)
        var o = 0
        if strong {
            let tc2 = tc &* 2
            for _ in 0..<4 {
                let p3 = Int(q[o &- a4]), p2 = Int(q[o &- a3]), p1 = Int(q[o &- a2]), p0 = Int(q[o &- a])
                let q0 = Int(q[o]), q1 = Int(q[o &+ a]), q2 = Int(q[o &+ a2]), q3 = Int(q[o &+ a3])
                if filterP {
                    q[o &- a] = clip((p2 &+ 2 &* p1 &+ 2 &* p0 &+ 2 &* q0 &+ q1 &+ 4) >> 3, p0, tc2)
                    q[o &- a2] = clip((p2 &+ p1 &+ p0 &+ q0 &+ 2) >> 2, p1, tc2)
                    q[o &- a3] = clip((2 &* p3 &+ 3 &* p2 &+ p1 &+ p0 &+ q0 &+ 4) >> 3, p2, tc2)
                }
                if filterQ {
                    q[o] = clip((p1 &+ 2 &* p0 &+ 2 &* q0 &+ 2 &* q1 &+ q2 &+ 4) >> 3, q0, tc2)
                    q[o &+ a] = clip((p0 &+ q0 &+ q1 &+ q2 &+ 2) >> 2, q1, tc2)
                    q[o &+ a2] = clip((p0 &+ q0 &+ q1 &+ 3 &* q2 &+ 2 &* q3 &+ 4) >> 3, q2, tc2)
                }
                o = o &+ l
            }
            return
        }
        let sideLimit = (beta &+ (beta >> 1)) >> 3
        let filterP1 = filterP && dp0 &+ dp3 < sideLimit
        let filterQ1 = filterQ && dq0 &+ dq3 < sideLimit
        let tc10 = tc &* 10, halfTc = tc >> 1
        for _ in 0..<4 {
            let p1 = Int(q[o &- a2]), p0 = Int(q[o &- a]), q0 = Int(q[o]), q1 = Int(q[o &+ a])
            var delta = (9 &* (q0 &- p0) &- 3 &* (q1 &- p1) &+ 8) >> 4
            if abs(delta) < tc10 {
                delta = min(max(delta, -tc), tc)
                if filterP {
                    q[o &- a] = UInt16(truncatingIfNeeded: min(max(p0 &+ delta, 0), maxValue))
                    if filterP1 {
                        let p2 = Int(q[o &- a3])
                        let dp = min(max((((p2 &+ p0 &+ 1) >> 1) &- p1 &+ delta) >> 1, -halfTc), halfTc)
                        q[o &- a2] = UInt16(truncatingIfNeeded: min(max(p1 &+ dp, 0), maxValue))
                    }
                }
                if filterQ {
                    q[o] = UInt16(truncatingIfNeeded: min(max(q0 &- delta, 0), maxValue))
                    if filterQ1 {
                        let q2 = Int(q[o &+ a2])
                        let dq = min(max((((q2 &+ q0 &+ 1) >> 1) &- q1 &- delta) >> 1, -halfTc), halfTc)
                        q[o &+ a] = UInt16(truncatingIfNeeded: min(max(q1 &+ dq, 0), maxValue))
                    }
                }
            }
            o = o &+ l
        }
    }

    /// The strong filter's Clip3(x − 2tC, x + 2tC, v). The weighted means of valid samples stay in
    /// the sample range, so no further clipping to the bit depth is needed.
    @inline(__always)
    private static func clip(_ value: Int, _ around: Int, _ limit: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: min(max(value, around &- limit), around &+ limit))
    }

    /// Filters one chroma edge segment of four lines (8.7.2.5.8); `q` points at q0 of line 0.
    @inline(__always)
    static func chromaEdge(_ q: UnsafeMutablePointer<UInt16>, across a: Int, along l: Int, tc: Int,
                           filterP: Bool, filterQ: Bool, maxValue: Int) {
        let a2 = a &+ a
        var o = 0
        for _ in 0..<4 {
            let p1 = Int(q[o &- a2]), p0 = Int(q[o &- a]), q0 = Int(q[o]), q1 = Int(q[o &+ a])
            let delta = min(max((((q0 &- p0) << 2) &+ p1 &- q1 &+ 4) >> 3, -tc), tc)
            if filterP { q[o &- a] = UInt16(truncatingIfNeeded: min(max(p0 &+ delta, 0), maxValue)) }
            if filterQ { q[o] = UInt16(truncatingIfNeeded: min(max(q0 &- delta, 0), maxValue)) }
            o = o &+ l
        }
    }
}
