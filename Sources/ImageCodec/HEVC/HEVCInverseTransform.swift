/// Scaling (dequantisation, H.265 8.6.2-8.6.3) and the inverse transforms (8.6.4): the 4×4
/// DST of intra luma, the DCTs of 4 to 32 points with the clipping to 16 bits between the
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

    static let levelScale: [Int] = [40, 45, 51, 57, 64, 72]

    /// Dequantises `coefficients` (N×N, in place): TransCoeffLevel → d[x][y]. Levels are at
    /// most 2^15 in magnitude (the parser clamps them), so the products fit an Int.
    static func scale(_ coefficients: UnsafeMutablePointer<Int32>, log2Size: Int, qp: Int, bitDepth: Int,
                      factors: UnsafePointer<UInt8>?) {
        let count = 1 << (2 * log2Size)
        let bdShift = bitDepth + log2Size - 5
        let scale = levelScale[qp % 6] << (qp / 6)
        let round = 1 << (bdShift - 1)
        for i in 0..<count where coefficients[i] != 0 {
            let m = factors.map { Int($0[i]) } ?? 16
            let v = (Int(coefficients[i]) &* m &* scale &+ round) >> bdShift
            coefficients[i] = Int32(min(max(v, -32_768), 32_767))
        }
    }

    /// The residual of a transform-skipped 4×4 block (8.6.4.2, tsShift 7).
    static func transformSkip(_ d: UnsafeMutablePointer<Int32>, into r: UnsafeMutablePointer<Int32>, bitDepth: Int) {
        let bdShift = 20 - bitDepth
        let round = Int32(1 << (bdShift - 1))
        for i in 0..<16 { r[i] = ((d[i] << 7) + round) >> Int32(bdShift) }
    }

    /// The two-stage inverse transform of d (N×N) into the residual r.
    static func inverse(_ d: UnsafeMutablePointer<Int32>, into r: UnsafeMutablePointer<Int32>, log2Size: Int,
                        dst: Bool, bitDepth: Int) {
        let n = 1 << log2Size
        let matrix = dst ? dst4 : dct32
        let rowStep = dst ? 1 : 32 >> log2Size
        let columns = dst ? 4 : 32
        // Highest row and column holding a coefficient: the sums skip the zero rest.
        var maxRow = 0, maxColumn = 0
        for y in 0..<n {
            for x in 0..<n where d[y * n + x] != 0 {
                maxRow = max(maxRow, y)
                maxColumn = max(maxColumn, x)
            }
        }
        let bdShift = 20 - bitDepth
        let round = 1 << (bdShift - 1)
        matrix.withUnsafeBufferPointer { t in
            // Vertical pass: each column x of d to e, clipped into r as the intermediate g.
            for x in 0...maxColumn {
                for y in 0..<n {
                    // |d| ≤ 2^15 and |t| ≤ 90 over at most 32 terms: the sum fits an Int32.
                    var sum: Int32 = 0
                    for k in 0...maxRow {
                        sum &+= t[k &* rowStep &* columns &+ y] &* d[k &* n &+ x]
                    }
                    r[y * n + x] = min(max((sum &+ 64) >> 7, -32_768), 32_767)
                }
            }
            // Horizontal pass: each row y of g to the residual.
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 32) { g in
                for y in 0..<n {
                    for x in 0...maxColumn { g[x] = r[y * n + x] }
                    for x in 0..<n {
                        var sum: Int32 = 0
                        for k in 0...maxColumn {
                            sum &+= t[k &* rowStep &* columns &+ x] &* g[k]
                        }
                        r[y * n + x] = (sum &+ Int32(round)) >> Int32(bdShift)
                    }
                }
            }
        }
    }
}
