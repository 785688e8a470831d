/// The inverse transforms (H.265 8.6.4; scaling happens as levels are parsed, see
/// `HEVCDequantiser`): the 4×4 DST of intra luma, the DCTs of 4 to 32 points with the clipping to 16 bits between the
/// vertical and horizontal passes, and transform skip.
enum HEVCInverseTransform {
    /// transMatrix of 8.6.4.2 (32×32, row k is the basis function of frequency k); a DCT of
    /// N points uses rows k·32/N and the first N columns.
    static let dct32: [Int32] = {
        // Distinct magnitudes of cos(mπ/64) scaled as the standard rounds them, m = 0...32.
        let table: [Int32] = [64, 90, 90, 90, 89, 88, 87, 85, 83, 82, 80, 78, 75, 73, 70, 67, 64, 61, 57, 54, 50,
                              46, 43, 38, 36, 31, 25, 22, 18, 13, 9, 4, 0]
        var m = [Int32](repeating: 0, count: 1024)
        for k in 0..<32 {
            for n in 0..<32 {
                var theta = ((2 * n + 1) * k) % 128
                if theta > 64 { theta = 128 - theta }
                m[k * 32 + n] = theta <= 32 ? table[theta] : -table[64 - theta]
            }
        }
        return m
    }()

    static let dst4: [Int32] = [29, 55, 74, 84, 74, 74, 0, -74, 84, -29, -74, 55, 55, -84, 74, -29]

    /// The residual of a transform-skipped 4×4 block (8.6.4.2, tsShift 7).
    static func transformSkip(_ d: UnsafeMutablePointer<Int32>, into r: UnsafeMutablePointer<Int32>, bitDepth: Int) {
        let bdShift = 20 - bitDepth
        let round = Int32(1 << (bdShift - 1))
        for i in 0..<16 { r[i] = ((d[i] << 7) + round) >> Int32(bdShift) }
    }

    /// The two-stage inverse transform of d (N×N) into the residual r. Only the coefficients in
    /// rows 0...maxRow and columns 0...maxColumn may be non-zero (the caller knows them from
    /// parsing); the zero rest is never read.
    static func inverse(_ d: UnsafeMutablePointer<Int32>, into r: UnsafeMutablePointer<Int32>, log2Size: Int,
                        dst: Bool, bitDepth: Int, maxRow: Int, maxColumn: Int) {
        let n = 1 << log2Size
        let bdShift = Int32(20 - bitDepth)
        let round = Int32(1) << (bdShift - 1)
        if dst {
            inverseDST(d, into: r, bdShift: bdShift, round: round)
            return
        }
        if maxRow == 0 && maxColumn == 0 {
            // DC only: both passes give one value, computed exactly as the passes would.
            let g = min(max((64 &* d[0] &+ 64) >> 7, -32_768), 32_767)
            r.update(repeating: (64 &* g &+ round) >> bdShift, count: n &* n)
            return
        }
        dct32.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 96) { buffer in
                let line = buffer.baseAddress!, scratch = line + 32
                // Vertical pass: columns 0...maxColumn of d into r as the clipped intermediate g;
                // the other columns of g are zero and never read.
                for x in 0...maxColumn {
                    partialButterfly(n, d + x, stride: n, count: maxRow &+ 1, t, line, scratch: scratch)
                    for y in 0..<n { r[y &* n &+ x] = min(max((line[y] &+ 64) >> 7, -32_768), 32_767) }
                }
                // Horizontal pass: each row of g to the residual.
                for y in 0..<n {
                    let row = r + y &* n
                    partialButterfly(n, row, stride: 1, count: maxColumn &+ 1, t, line, scratch: scratch)
                    for x in 0..<n { row[x] = (line[x] &+ round) >> bdShift }
                }
            }
        }
    }

    /// One inverse DCT of n points (4...32) by even-odd decomposition: the inputs src[0],
    /// src[stride], ... of which only the first `count` may be non-zero, to out[0..<n] before
    /// rounding. The even-frequency half is the DCT of n/2 points; each odd frequency adds
    /// to the first n/2 outputs and, by symmetry, subtracts from the mirrored ones. `scratch`
    /// holds 2n values. Sums stay within Int32: |input| ≤ 2^15 and a row's weights add to
    /// at most 32 × 90.
    private static func partialButterfly(_ n: Int, _ src: UnsafePointer<Int32>, stride: Int, count: Int,
                                         _ t: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<Int32>,
                                         scratch: UnsafeMutablePointer<Int32>) {
        if n == 4 {
            let a0 = src[0]
            let a1 = count > 1 ? src[stride] : 0
            let a2 = count > 2 ? src[2 &* stride] : 0
            let a3 = count > 3 ? src[3 &* stride] : 0
            let o0 = 83 &* a1 &+ 36 &* a3, o1 = 36 &* a1 &- 83 &* a3
            let e0 = 64 &* (a0 &+ a2), e1 = 64 &* (a0 &- a2)
            out[0] = e0 &+ o0
            out[1] = e1 &+ o1
            out[2] = e1 &- o1
            out[3] = e0 &- o0
            return
        }
        let half = n >> 1
        let even = scratch, odd = scratch + half
        partialButterfly(half, src, stride: stride &* 2, count: (count &+ 1) >> 1, t, even, scratch: scratch + n)
        odd.update(repeating: 0, count: half)
        // Frequency j of an n-point DCT is row j · 32/n of the 32-point matrix.
        let rowStep = (32 / n) &* 32
        var j = 1
        while j < count {
            let a = src[j &* stride]
            if a != 0 {
                let row = t + j &* rowStep
                for k in 0..<half { odd[k] = odd[k] &+ row[k] &* a }
            }
            j &+= 2
        }
        for k in 0..<half {
            out[k] = even[k] &+ odd[k]
            out[n &- 1 &- k] = even[k] &- odd[k]
        }
    }

    /// The 4×4 DST of intra luma (8.6.4.2, transMatrix of equation 8-315), both passes.
    private static func inverseDST(_ d: UnsafeMutablePointer<Int32>, into r: UnsafeMutablePointer<Int32>,
                                   bdShift: Int32, round: Int32) {
        dst4.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            for x in 0..<4 {
                for y in 0..<4 {
                    var sum: Int32 = 0
                    for k in 0..<4 { sum &+= t[k &* 4 &+ y] &* d[k &* 4 &+ x] }
                    r[y &* 4 &+ x] = min(max((sum &+ 64) >> 7, -32_768), 32_767)
                }
            }
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4) { buffer in
                let g = buffer.baseAddress!
                for y in 0..<4 {
                    for x in 0..<4 { g[x] = r[y &* 4 &+ x] }
                    for x in 0..<4 {
                        var sum: Int32 = 0
                        for k in 0..<4 { sum &+= t[k &* 4 &+ x] &* g[k] }
                        r[y &* 4 &+ x] = (sum &+ round) >> bdShift
                    }
                }
            }
        }
    }
}
