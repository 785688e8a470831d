/// Shrinks an image by an integer factor f while its rows arrive: each output pixel is the
/// rounded mean of an f×f block (edge blocks average the pixels they have), so the output is
/// ceil(W/f) × ceil(H/f) and only one row of running sums is held.
///
/// Alpha: colour is averaged premultiplied, i.e. weighted by alpha, then divided by the
/// summed alpha (straight alpha out); a fully transparent block gets colour 0. This keeps
/// invisible pixels from darkening or tinting the edges of visible ones.
final class PNGBoxReducer {
    let factor: Int
    let width: Int
    let height: Int
    let channels: Int
    let hasAlpha: Bool
    let outWidth: Int
    let outHeight: Int
    private let sums: UnsafeMutablePointer<UInt32>
    private var rowsAdded = 0

    /// `width` × `height` input of `layout`, reduced by `factor` ≥ 1.
    init(width: Int, height: Int, layout: Bitmap.Layout, factor: Int) {
        self.factor = factor
        self.width = width
        self.height = height
        channels = layout.channels
        hasAlpha = layout.hasAlpha
        outWidth = (width + factor - 1) / factor
        outHeight = (height + factor - 1) / factor
        sums = .allocate(capacity: outWidth * channels)
        sums.initialize(repeating: 0, count: outWidth * channels)
    }

    deinit { sums.deallocate() }

    /// Adds the next input row (`width × channels` bytes). When it completes a band of
    /// blocks, writes output row `y / factor` into `output` (`outWidth × channels` bytes a row).
    func add(_ row: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>) {
        let c = channels, f = factor
        var x = 0
        for bx in 0..<outWidth {
            let end = min(x &+ f, width)
            let s = sums + bx &* c
            if hasAlpha {
                let colours = c &- 1
                while x < end {
                    let p = row + x &* c
                    let a = UInt32(p[colours])
                    for k in 0..<colours { s[k] &+= UInt32(p[k]) &* a }
                    s[colours] &+= a
                    x &+= 1
                }
            } else {
                while x < end {
                    let p = row + x &* c
                    for k in 0..<c { s[k] &+= UInt32(p[k]) }
                    x &+= 1
                }
            }
        }
        rowsAdded &+= 1
        if rowsAdded % f == 0 || rowsAdded == height {
            emit(row: (rowsAdded &- 1) / f, blockHeight: rowsAdded &- ((rowsAdded &- 1) / f) &* f, output: output)
        }
    }

    private func emit(row oy: Int, blockHeight: Int, output: UnsafeMutablePointer<UInt8>) {
        let c = channels
        let out = output + oy &* outWidth &* c
        for bx in 0..<outWidth {
            let blockWidth = min(factor, width &- bx &* factor)
            let n = UInt32(blockWidth &* blockHeight)
            let s = sums + bx &* c
            let q = out + bx &* c
            if hasAlpha {
                let alphaSum = s[c &- 1]
                for k in 0..<(c &- 1) {
                    q[k] = alphaSum == 0 ? 0 : UInt8(truncatingIfNeeded: (s[k] &+ alphaSum / 2) / alphaSum)
                }
                q[c &- 1] = UInt8(truncatingIfNeeded: (alphaSum &+ n / 2) / n)
            } else {
                for k in 0..<c { q[k] = UInt8(truncatingIfNeeded: (s[k] &+ n / 2) / n) }
            }
            for k in 0..<c { s[k] = 0 }
        }
    }
}
