/// The edges an intra prediction reads, gathered from a plane into small buffers: `top[0]`
/// the above-left pixel, `top[1...size]` the row above, `left[0..<size]` the column to the
/// left. Outside the frame they take the decoder's constants (RFC 6386 §12.2, as libwebp
/// fills its borders): 127 for the whole row above the first row, corner included; 129 for
/// the column left of the first column, and for the corner of a first-column block below
/// the first row. One routine for the segment analysis (which predicts from the source) and
/// the mode decision (from the reconstruction), so both see the edges a decoder sees.
enum PredictionEdges {
    /// - Parameters: `x`, `y`: the block's top-left pixel; `size`: 16 (luma) or 8 (chroma).
    @inline(__always)
    static func gather(_ plane: UnsafePointer<UInt8>, stride: Int, x: Int, y: Int, size: Int,
                       top: UnsafeMutablePointer<UInt8>, left: UnsafeMutablePointer<UInt8>) {
        if y == 0 {
            top.update(repeating: 127, count: size &+ 1)
        } else {
            let above = plane + ((y &- 1) &* stride &+ x)
            (top + 1).update(from: above, count: size)
            top[0] = x > 0 ? above[-1] : 129
        }
        if x == 0 {
            left.update(repeating: 129, count: size)
        } else {
            let column = plane + (y &* stride &+ x &- 1)
            for i in 0..<size { left[i] = column[i &* stride] }
        }
    }
}
