/// Intra sample prediction (H.265 8.4.4.2): reference samples with availability and
/// substitution, their smoothing (including strong intra smoothing of 32×32 luma), and the
/// planar, DC and 33 angular modes with the DC and pure horizontal/vertical edge filters.
///
/// References are kept in one line of 4N + 1 values: index 0 is p[-1][2N-1] (bottom of the
/// left column), 2N - 1 is p[-1][0], 2N the corner p[-1][-1], 2N + 1 + x is p[x][-1]. That is
/// the order in which 8.4.4.2.2 substitutes missing samples and in which the [1 2 1] filter runs.
extension HEVCSliceDecoder {
    /// Writes the prediction of the N×N block at (x, y) of `component` into its plane.
    func predictIntra(component: Int, x: Int, y: Int, log2Size: Int, mode: Int) {
        let n = 1 << log2Size
        // The block's first row: rows above it (and the left column) are reached from here.
        let plane = frame.sample(component, x: 0, y: y)
        let rowStride = component == 0 ? frame.width : frame.chromaWidth
        let shiftX = component == 0 ? 0 : chromaShiftX, shiftY = component == 0 ? 0 : chromaShiftY
        let bitDepth = component == 0 ? sps.bitDepthLuma : sps.bitDepthChroma
        // One 4×4 luma block spans unitX columns and unitY rows of this plane.
        let unitX = 4 >> shiftX, unitY = 4 >> shiftY
        let ref = references
        let avail = referenceAvailable
        let total = 4 * n + 1
        let xL = x << shiftX, yL = y << shiftY
        var any = false
        // Left column, bottom to top, in units of one 4×4 luma block.
        var u = 2 &* n &- unitY
        while u >= 0 {
            let ok = frame.available(xCur: xL, yCur: yL, xN: xL &- 1, yN: (y &+ u) << shiftY)
            for k in 0..<unitY {
                let idx = 2 &* n &- 1 &- (u &+ k)
                avail[idx] = ok
                if ok { ref[idx] = Int32(plane[(u &+ k) &* rowStride &+ x &- 1]) }
            }
            any = any || ok
            u &-= unitY
        }
        let cornerOK = frame.available(xCur: xL, yCur: yL, xN: xL - 1, yN: yL - 1)
        avail[2 * n] = cornerOK
        if cornerOK { ref[2 * n] = Int32(plane[x - 1 - rowStride]) }
        any = any || cornerOK
        u = 0
        while u < 2 &* n {
            let ok = frame.available(xCur: xL, yCur: yL, xN: (x &+ u) << shiftX, yN: yL &- 1)
            for k in 0..<unitX {
                let idx = 2 &* n &+ 1 &+ u &+ k
                avail[idx] = ok
                if ok { ref[idx] = Int32(plane[x &+ u &+ k &- rowStride]) }
            }
            any = any || ok
            u &+= unitX
        }
        if !any {
            for i in 0..<total { ref[i] = Int32(1 << (bitDepth - 1)) }
        } else {
            if !avail[0] {
                var k = 1
                while !avail[k] { k += 1 }
                ref[0] = ref[k]
            }
            for i in 1..<total where !avail[i] { ref[i] = ref[i - 1] }
        }

        var p = ref
        // 8.4.4.2.3: references are smoothed for luma, and for chroma only in 4:4:4.
        if (component == 0 || chromaArrayType == 3) && mode != 1 && n != 4 {
            let minDist = min(abs(mode - 26), abs(mode - 10))
            let threshold = n == 8 ? 7 : (n == 16 ? 1 : 0)
            if minDist > threshold {
                let f = filteredReferences
                let corner = ref[2 * n], bottom = ref[0], right = ref[4 * n]
                let limit = Int32(1 << (bitDepth - 5))
                if component == 0 && sps.strongIntraSmoothing && n == 32 && abs(corner + right - 2 * ref[3 * n]) < limit
                    && abs(corner + bottom - 2 * ref[n]) < limit {
                    f[0] = bottom
                    for k in 1..<64 { f[k] = (Int32(k) * corner + Int32(64 - k) * bottom + 32) >> 6 }
                    f[64] = corner
                    for xx in 0..<63 { f[65 + xx] = (Int32(63 - xx) * corner + Int32(xx + 1) * right + 32) >> 6 }
                    f[128] = right
                } else {
                    f[0] = ref[0]
                    f[total - 1] = ref[total - 1]
                    for k in 1..<(total - 1) { f[k] = (ref[k &- 1] &+ 2 &* ref[k] &+ ref[k &+ 1] &+ 2) >> 2 }
                }
                p = f
            }
        }
        let out = plane + x
        let maxValue = Int32((1 << bitDepth) - 1)
        let edgeFilters = component == 0 && n < 32
        // left(i) = p[-1][i] = p[2n - 1 - i]; top(i) = p[i][-1] = p[2n + 1 + i] (i = -1: corner).
        let c = 2 * n
        if mode == 0 {
            kernels.intraPlanar(p, log2Size, out, rowStride)
        } else if mode == 1 {
            var sum = Int32(n)
            for i in 0..<n { sum += p[c + 1 + i] + p[c - 1 - i] }
            let dc = sum >> Int32(log2Size + 1)
            for yy in 0..<n {
                (out + yy &* rowStride).update(repeating: UInt16(truncatingIfNeeded: dc), count: n)
            }
            if edgeFilters {
                out[0] = UInt16(truncatingIfNeeded: (p[c - 1] + 2 * dc + p[c + 1] + 2) >> 2)
                for xx in 1..<n { out[xx] = UInt16(truncatingIfNeeded: (p[c + 1 + xx] + 3 * dc + 2) >> 2) }
                for yy in 1..<n { out[yy * rowStride] = UInt16(truncatingIfNeeded: (p[c - 1 - yy] + 3 * dc + 2) >> 2) }
            }
        } else {
            predictAngular(p: p, n: n, mode: mode, out: out, stride: rowStride, edgeFilters: edgeFilters, maxValue: maxValue)
        }
    }

    private func predictAngular(p: UnsafeMutablePointer<Int32>, n: Int, mode: Int, out: UnsafeMutablePointer<UInt16>,
                                stride: Int, edgeFilters: Bool, maxValue: Int32) {
        let angle = HEVCIntraTables.angle[mode]
        let c = 2 * n
        let vertical = mode >= 18
        // refMain[k] for k in -n...2n, stored at angularLine[k + n].
        do {
            let m = angularLine + n
            // side(i): the reference line the mode projects from (top for vertical modes).
            for k in 0...(2 * n) {
                m[k] = vertical ? p[c + k] : p[c - k]
            }
            if angle < 0 {
                let last = (n * angle) >> 5
                if last < -1 {
                    let inv = HEVCIntraTables.inverseAngle[mode]
                    for k in last...(-1) {
                        let i = -1 + ((k * inv + 128) >> 8)
                        m[k] = vertical ? p[c - 1 - i] : p[c + 1 + i]
                    }
                }
            }
            // Indices stay in -n...2n: |angle| ≤ 32 and (j + 1) · angle >> 5 ≥ -n.
            let (outerStep, innerStep) = vertical ? (stride, 1) : (1, stride)
            for j in 0..<n {
                let pos = (j &+ 1) &* angle
                let line = m + ((pos >> 5) &+ 1), fact = Int32(pos & 31)
                let target = out + j &* outerStep
                if fact != 0 {
                    for i in 0..<n {
                        let v = ((32 &- fact) &* line[i] &+ fact &* line[i &+ 1] &+ 16) >> 5
                        target[i &* innerStep] = UInt16(truncatingIfNeeded: v)
                    }
                } else {
                    for i in 0..<n { target[i &* innerStep] = UInt16(truncatingIfNeeded: line[i]) }
                }
            }
        }
        if edgeFilters && mode == 26 {
            for yy in 0..<n {
                let v = p[c + 1] + ((p[c - 1 - yy] - p[c]) >> 1)
                out[yy * stride] = UInt16(truncatingIfNeeded: min(max(v, 0), maxValue))
            }
        } else if edgeFilters && mode == 10 {
            for xx in 0..<n {
                let v = p[c - 1] + ((p[c + 1 + xx] - p[c]) >> 1)
                out[xx] = UInt16(truncatingIfNeeded: min(max(v, 0), maxValue))
            }
        }
    }
}

enum HEVCIntraTables {
    /// intraPredAngle per mode (table 8-4); modes 0 and 1 unused.
    static let angle: [Int] = [0, 0, 32, 26, 21, 17, 13, 9, 5, 2, 0, -2, -5, -9, -13, -17, -21, -26,
                               -32, -26, -21, -17, -13, -9, -5, -2, 0, 2, 5, 9, 13, 17, 21, 26, 32]
    /// invAngle per mode (table 8-5), for modes 11...25.
    static let inverseAngle: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -4096, -1638, -910, -630, -482, -390, -315,
                                      -256, -315, -390, -482, -630, -910, -1638, -4096, 0, 0, 0, 0, 0, 0, 0, 0, 0]
}
