/// Inverse transforms (8.5.10-8.5.13) on scaled coefficients in raster order, adding the
/// residual to the prediction already in the picture with clipping to 8 bits.
enum H264InverseTransform {
    /// 4x4 inverse transform of `c` (rows, then columns, then (x + 32) >> 6) added at `dst`.
    /// Clears `c` for the next block.
    @inline(__always)
    static func add4x4(_ c: UnsafeMutablePointer<Int32>, _ dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        for i in 0..<4 {
            let r = c + i &* 4
            let e0 = r[0] &+ r[2], e1 = r[0] &- r[2]
            let e2 = (r[1] >> 1) &- r[3], e3 = r[1] &+ (r[3] >> 1)
            r[0] = e0 &+ e3
            r[1] = e1 &+ e2
            r[2] = e1 &- e2
            r[3] = e0 &- e3
        }
        for j in 0..<4 {
            let d0 = c[j], d1 = c[4 &+ j], d2 = c[8 &+ j], d3 = c[12 &+ j]
            let e0 = d0 &+ d2, e1 = d0 &- d2
            let e2 = (d1 >> 1) &- d3, e3 = d1 &+ (d3 >> 1)
            addClipped(dst + j, (e0 &+ e3 &+ 32) >> 6)
            addClipped(dst + (stride &+ j), (e1 &+ e2 &+ 32) >> 6)
            addClipped(dst + (2 &* stride &+ j), (e1 &- e2 &+ 32) >> 6)
            addClipped(dst + (3 &* stride &+ j), (e0 &- e3 &+ 32) >> 6)
        }
        c.update(repeating: 0, count: 16)
    }

    /// 8x8 inverse transform (8.5.13) of `c` added at `dst`; clears `c`.
    static func add8x8(_ c: UnsafeMutablePointer<Int32>, _ dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        for i in 0..<8 {
            transform8(c + i &* 8, step: 1)
        }
        for j in 0..<8 {
            transform8(c + j, step: 8)
            for y in 0..<8 {
                addClipped(dst + (y &* stride &+ j), (c[j &+ 8 &* y] &+ 32) >> 6)
            }
        }
        c.update(repeating: 0, count: 64)
    }

    @inline(__always)
    private static func transform8(_ d: UnsafeMutablePointer<Int32>, step: Int) {
        let d0 = d[0], d1 = d[step], d2 = d[2 &* step], d3 = d[3 &* step]
        let d4 = d[4 &* step], d5 = d[5 &* step], d6 = d[6 &* step], d7 = d[7 &* step]
        let a0 = d0 &+ d4, a4 = d0 &- d4
        let a2 = (d2 >> 1) &- d6, a6 = d2 &+ (d6 >> 1)
        let b0 = a0 &+ a6, b2 = a4 &+ a2, b4 = a4 &- a2, b6 = a0 &- a6
        let a1 = d5 &- d3 &- d7 &- (d7 >> 1)
        let a3 = d1 &+ d7 &- d3 &- (d3 >> 1)
        let a5 = d7 &- d1 &+ d5 &+ (d5 >> 1)
        let a7 = d3 &+ d5 &+ d1 &+ (d1 >> 1)
        let b1 = a1 &+ (a7 >> 2), b7 = a7 &- (a1 >> 2)
        let b3 = a3 &+ (a5 >> 2), b5 = (a3 >> 2) &- a5
        d[0] = b0 &+ b7
        d[step] = b2 &+ b5
        d[2 &* step] = b4 &+ b3
        d[3 &* step] = b6 &+ b1
        d[4 &* step] = b6 &- b1
        d[5 &* step] = b4 &- b3
        d[6 &* step] = b2 &- b5
        d[7 &* step] = b0 &- b7
    }

    @inline(__always)
    private static func addClipped(_ p: UnsafeMutablePointer<UInt8>, _ r: Int32) {
        let v = Int32(p.pointee) &+ r
        p.pointee = UInt8(truncatingIfNeeded: v < 0 ? 0 : v > 255 ? 255 : v)
    }

    /// The 4x4 Hadamard transform of Intra_16x16 DC levels (8.5.10), in place (raster order).
    static func hadamard4x4(_ c: UnsafeMutablePointer<Int32>) {
        for i in 0..<4 {
            let r = c + i &* 4
            let s0 = r[0] &+ r[1], s1 = r[0] &- r[1], s2 = r[2] &+ r[3], s3 = r[2] &- r[3]
            r[0] = s0 &+ s2
            r[1] = s0 &- s2
            r[2] = s1 &- s3
            r[3] = s1 &+ s3
        }
        for j in 0..<4 {
            let s0 = c[j] &+ c[4 &+ j], s1 = c[j] &- c[4 &+ j]
            let s2 = c[8 &+ j] &+ c[12 &+ j], s3 = c[8 &+ j] &- c[12 &+ j]
            c[j] = s0 &+ s2
            c[4 &+ j] = s0 &- s2
            c[8 &+ j] = s1 &- s3
            c[12 &+ j] = s1 &+ s3
        }
    }
}
