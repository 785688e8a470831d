/// The deblocking filter (8.7) over a decoded intra picture, macroblock by macroblock in
/// raster order: luma vertical edges left to right, then horizontal edges top to bottom, and
/// the same for chroma. Every macroblock is intra, so boundary strength is 4 on macroblock
/// edges and 3 inside (8.7.2.1); I_PCM macroblocks filter with qP 0.
enum H264Deblocking {
    static let alpha: [Int32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 5, 6, 7, 8, 9, 10, 12, 13,
        15, 17, 20, 22, 25, 28, 32, 36, 40, 45, 50, 56, 63, 71, 80, 90, 101, 113, 127, 144, 162, 182, 203, 226, 255, 255,
    ]
    static let beta: [Int32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4,
        6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18,
    ]
    /// tC0 for bS 3 (the only value below 4 an intra picture has), by indexA.
    static let tc0: [Int32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6, 6, 7, 8, 9, 10, 11, 13, 14, 16, 18, 20, 23, 25,
    ]

    /// Filters the whole picture.
    static func apply(_ f: H264Frame) {
        let t = makeTables()
        defer { t.deallocate() }
        filter(f, rows: 0..<f.heightInMbs, filters: f.sliceFilters, tables: t)
    }

    /// The tables as one local buffer: alpha, beta, tC0 (52 each), then QPc (52). The caller
    /// deallocates it.
    static func makeTables() -> UnsafeMutablePointer<Int32> {
        let t = UnsafeMutablePointer<Int32>.allocate(capacity: 4 * 52)
        for i in 0..<52 {
            t[i] = alpha[i]
            t[52 + i] = beta[i]
            t[104 + i] = tc0[i]
            t[156 + i] = Int32(H264Tables.chromaQP[i])
        }
        return t
    }

    /// Filters the macroblocks of macroblock rows `rows`, in raster order. Filtering row k
    /// writes samples of rows k - 1 and k only, so it may run while rows after k + 1 are
    /// being decoded (`H264DeblockingWorker`); `filters` must hold every slice of those rows.
    static func filter(_ f: H264Frame, rows: Range<Int>, filters: [H264SliceFilter], tables t: UnsafeMutablePointer<Int32>) {
        let w = f.widthInMbs
        for addr in rows.lowerBound * w..<rows.upperBound * w {
            let slice = Int(f.mbSlice[addr])
            guard slice >= 0 else { continue }
            let filter = filters[slice]
            guard filter.disable != 1 else { continue }
            let mbX = addr % w, mbY = addr / w
            let left = mbX > 0 && (filter.disable != 2 || f.mbSlice[addr - 1] == f.mbSlice[addr])
            let top = mbY > 0 && (filter.disable != 2 || f.mbSlice[addr - w] == f.mbSlice[addr])
            let qp = Int(f.mbQP[addr])
            let qpLeft = left ? Int(f.mbQP[addr - 1]) : 0, qpTop = top ? Int(f.mbQP[addr - w]) : 0
            // Luma edges inside the macroblock: every 4 samples, or only the middle one with 8x8 transforms.
            let step = f.mbKind[addr] == H264MbKind.intra8x8 ? 8 : 4
            let ls = f.lumaStride
            let luma = f.luma + mbY * 16 * ls + mbX * 16
            let a = filter.alphaOffset, b = filter.betaOffset
            if left { edge(luma, across: 1, along: ls, count: 16, strong: true, qp: (qp + qpLeft + 1) >> 1, a, b, chroma: false, t) }
            var x = step
            while x < 16 {
                edge(luma + x, across: 1, along: ls, count: 16, strong: false, qp: qp, a, b, chroma: false, t)
                x &+= step
            }
            if top { edge(luma, across: ls, along: 1, count: 16, strong: true, qp: (qp + qpTop + 1) >> 1, a, b, chroma: false, t) }
            var y = step
            while y < 16 {
                edge(luma + y &* ls, across: ls, along: 1, count: 16, strong: false, qp: qp, a, b, chroma: false, t)
                y &+= step
            }
            guard f.hasChroma else { continue }
            let cs = f.chromaStride
            for c in 0..<2 {
                let offset = c == 0 ? filter.cbQPOffset : filter.crQPOffset
                func qpc(_ q: Int) -> Int { Int(t[156 + max(0, min(51, q + offset))]) }
                let own = qpc(qp)
                let plane = (c == 0 ? f.cb : f.cr) + mbY * 8 * cs + mbX * 8
                if left { edge(plane, across: 1, along: cs, count: 8, strong: true, qp: (own + qpc(qpLeft) + 1) >> 1, a, b, chroma: true, t) }
                edge(plane + 4, across: 1, along: cs, count: 8, strong: false, qp: own, a, b, chroma: true, t)
                if top { edge(plane, across: cs, along: 1, count: 8, strong: true, qp: (own + qpc(qpTop) + 1) >> 1, a, b, chroma: true, t) }
                edge(plane + 4 * cs, across: cs, along: 1, count: 8, strong: false, qp: own, a, b, chroma: true, t)
            }
        }
    }

    /// Filters the `count` sample lines crossing one edge; `p` is q0 of the first line,
    /// `across` steps from p0 to q0, `along` to the next line. `strong` is bS 4, else bS 3.
    @inline(__always)
    private static func edge(_ p: UnsafeMutablePointer<UInt8>, across: Int, along: Int, count: Int, strong: Bool,
                             qp: Int, _ alphaOffset: Int, _ betaOffset: Int, chroma: Bool, _ t: UnsafeMutablePointer<Int32>) {
        let indexA = max(0, min(51, qp + alphaOffset)), indexB = max(0, min(51, qp + betaOffset))
        let al = t[indexA], be = t[52 &+ indexB]
        guard al != 0 && be != 0 else { return }
        let t0 = t[104 &+ indexA]
        for i in 0..<count {
            let q = p + i &* along
            let p0 = Int32(q[-across]), q0 = Int32(q[0])
            let p1 = Int32(q[-2 &* across]), q1 = Int32(q[across])
            guard abs(p0 &- q0) < al && abs(p1 &- p0) < be && abs(q1 &- q0) < be else { continue }
            if chroma {
                if strong {
                    q[-across] = UInt8((2 &* p1 &+ p0 &+ q1 &+ 2) >> 2)
                    q[0] = UInt8((2 &* q1 &+ q0 &+ p1 &+ 2) >> 2)
                } else {
                    let tc = t0 &+ 1
                    let delta = max(-tc, min(tc, (((q0 &- p0) << 2) &+ (p1 &- q1) &+ 4) >> 3))
                    q[-across] = clip(p0 &+ delta)
                    q[0] = clip(q0 &- delta)
                }
                continue
            }
            let p2 = Int32(q[-3 &* across]), q2 = Int32(q[2 &* across])
            let ap = abs(p2 &- p0) < be, aq = abs(q2 &- q0) < be
            if strong {
                let small = abs(p0 &- q0) < (al >> 2) &+ 2
                if ap && small {
                    let p3 = Int32(q[-4 &* across])
                    q[-across] = UInt8((p2 &+ 2 &* p1 &+ 2 &* p0 &+ 2 &* q0 &+ q1 &+ 4) >> 3)
                    q[-2 &* across] = UInt8((p2 &+ p1 &+ p0 &+ q0 &+ 2) >> 2)
                    q[-3 &* across] = UInt8((2 &* p3 &+ 3 &* p2 &+ p1 &+ p0 &+ q0 &+ 4) >> 3)
                } else {
                    q[-across] = UInt8((2 &* p1 &+ p0 &+ q1 &+ 2) >> 2)
                }
                if aq && small {
                    let q3 = Int32(q[3 &* across])
                    q[0] = UInt8((p1 &+ 2 &* p0 &+ 2 &* q0 &+ 2 &* q1 &+ q2 &+ 4) >> 3)
                    q[across] = UInt8((p0 &+ q0 &+ q1 &+ q2 &+ 2) >> 2)
                    q[2 &* across] = UInt8((2 &* q3 &+ 3 &* q2 &+ q1 &+ q0 &+ p0 &+ 4) >> 3)
                } else {
                    q[0] = UInt8((2 &* q1 &+ q0 &+ p1 &+ 2) >> 2)
                }
            } else {
                var tc = t0
                if ap {
                    q[-2 &* across] = UInt8(truncatingIfNeeded: p1 &+ max(-t0, min(t0, (p2 &+ ((p0 &+ q0 &+ 1) >> 1) &- (p1 << 1)) >> 1)))
                    tc &+= 1
                }
                if aq {
                    q[across] = UInt8(truncatingIfNeeded: q1 &+ max(-t0, min(t0, (q2 &+ ((p0 &+ q0 &+ 1) >> 1) &- (q1 << 1)) >> 1)))
                    tc &+= 1
                }
                let delta = max(-tc, min(tc, (((q0 &- p0) << 2) &+ (p1 &- q1) &+ 4) >> 3))
                q[-across] = clip(p0 &+ delta)
                q[0] = clip(q0 &- delta)
            }
        }
    }

    @inline(__always)
    private static func clip(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: v < 0 ? 0 : v > 255 ? 255 : v) }
}
