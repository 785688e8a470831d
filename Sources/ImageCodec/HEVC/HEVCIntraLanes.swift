/// Planar intra prediction (H.265 8.4.4.2.5) on 32-bit lanes, a row of eight (or four)
/// samples at a time: predSamples[x][y] = ((n − 1 − x)·p[−1][y] + (x + 1)·p[n][−1]
/// + (n − 1 − y)·p[x][−1] + (y + 1)·p[−1][n] + n) >> (log2(n) + 1), the scalar formula's own
/// integer terms, so the samples are identical. Planar is the most common intra mode of the
/// iPhone photos profiled (docs/performance.md); the AVX2 kernel target builds this file a
/// second time (a symlink).
enum HEVCIntraLanes {
    /// Writes the n×n planar prediction (n = 4...32) into `out` (rows `stride` apart) from the
    /// reference line `p` laid out as `predictIntra` keeps it: left(i) = p[2n − 1 − i],
    /// top(i) = p[2n + 1 + i], i = −1...n.
    static func planar(_ p: UnsafePointer<Int32>, log2Size: Int, out: UnsafeMutablePointer<UInt16>, stride: Int) {
        let n = 1 &<< log2Size
        let c = 2 &* n
        let top = p + (c &+ 1)
        let topRight = top[n], bottomLeft = p[c &- 1 &- n]
        let shift = Int32(log2Size &+ 1)
        if n == 4 {
            typealias Lanes = SIMD4<Int32>
            let x1 = Lanes(1, 2, 3, 4)
            let t = Lanes(top[0], top[1], top[2], top[3])
            let base = x1 &* topRight
            for y in 0..<4 {
                let left = p[c &- 1 &- y]
                let v = (Lanes(repeating: 4) &- x1) &* left &+ base &+ Int32(3 &- y) &* t &+ (Int32(y &+ 1) &* bottomLeft &+ 4)
                let s = v &>> shift
                let row = out + y &* stride
                row[0] = UInt16(truncatingIfNeeded: s[0]); row[1] = UInt16(truncatingIfNeeded: s[1])
                row[2] = UInt16(truncatingIfNeeded: s[2]); row[3] = UInt16(truncatingIfNeeded: s[3])
            }
            return
        }
        typealias Lanes = SIMD8<Int32>
        let count = Int32(n)
        let step = Lanes(0, 1, 2, 3, 4, 5, 6, 7)
        var x = 0
        while x < n {
            let x1 = step &+ Int32(x &+ 1)
            let t = UnsafeRawPointer(top + x).loadUnaligned(as: Lanes.self)
            let base = x1 &* topRight
            let leftWeight = Lanes(repeating: count) &- x1
            for y in 0..<n {
                let left = p[c &- 1 &- y]
                let v = leftWeight &* left &+ base &+ Int32(n &- 1 &- y) &* t &+ (Int32(y &+ 1) &* bottomLeft &+ count)
                let s = v &>> shift
                let samples = SIMD8<UInt16>(UInt16(truncatingIfNeeded: s[0]), UInt16(truncatingIfNeeded: s[1]),
                                            UInt16(truncatingIfNeeded: s[2]), UInt16(truncatingIfNeeded: s[3]),
                                            UInt16(truncatingIfNeeded: s[4]), UInt16(truncatingIfNeeded: s[5]),
                                            UInt16(truncatingIfNeeded: s[6]), UInt16(truncatingIfNeeded: s[7]))
                UnsafeMutableRawPointer(out + (y &* stride &+ x)).storeBytes(of: samples, as: SIMD8<UInt16>.self)
            }
            x &+= 8
        }
    }
}
