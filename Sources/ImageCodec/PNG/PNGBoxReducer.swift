/// Shrinks an image by a factor f of 1, 2, 4 or 8 while its pixels arrive: each output pixel
/// is the rounded mean of an f×f block (edge blocks average the pixels they have), so the
/// output is ceil(W/f) × ceil(H/f).
///
/// Rows in order (`add`) need one row of running sums. Adam7 passes (`scatter`) deliver
/// pixels all over the image, so that mode keeps sums for every output pixel: 4·C bytes per
/// output pixel, a sixteenth of the full image at 1/8 instead of the whole image.
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
    private let sumCount: Int
    private let shift: Int
    private var rowsAdded = 0

    /// `width` × `height` input of `layout`, reduced by `factor` (1, 2, 4 or 8). With
    /// `scattered`, sums are kept for the whole output (for `scatter` and `finish`).
    init(width: Int, height: Int, layout: Bitmap.Layout, factor: Int, scattered: Bool = false) {
        self.factor = factor
        shift = factor.trailingZeroBitCount
        self.width = width
        self.height = height
        channels = layout.channels
        hasAlpha = layout.hasAlpha
        outWidth = (width + factor - 1) / factor
        outHeight = (height + factor - 1) / factor
        // The decoder's memory estimate (`sumBytes`) has checked this product already.
        sumCount = outWidth * channels * (scattered ? outHeight : 1)
        sums = .allocate(capacity: sumCount)
        sums.initialize(repeating: 0, count: sumCount)
    }

    deinit { sums.deallocate() }

    /// Bytes of sums `init` allocates for the same arguments; nil when that overflows.
    static func sumBytes(width: Int, height: Int, channels: Int, factor: Int, scattered: Bool) -> Int? {
        let outWidth = (width + factor - 1) / factor
        let outHeight = (height + factor - 1) / factor
        return DecodeMemoryEstimate.product([outWidth, channels, scattered ? outHeight : 1, MemoryLayout<UInt32>.size])
    }

    /// Adds the next input row (`width × channels` bytes). When it completes a band of
    /// blocks, writes output row `y / factor` into `output` (`outWidth × channels` bytes a row).
    func add(_ row: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>) {
        // One loop per layout so each inner step is straight-line code.
        switch (channels, hasAlpha) {
        case (1, _): accumulate(row, 1) { s, p in s[0] &+= UInt32(p[0]) }
        case (3, _): accumulate(row, 3) { s, p in
            s[0] &+= UInt32(p[0]); s[1] &+= UInt32(p[1]); s[2] &+= UInt32(p[2])
        }
        case (2, _): accumulate(row, 2) { s, p in
            let a = UInt32(p[1])
            s[0] &+= UInt32(p[0]) &* a; s[1] &+= a
        }
        default: accumulate(row, 4) { s, p in
            let a = UInt32(p[3])
            s[0] &+= UInt32(p[0]) &* a; s[1] &+= UInt32(p[1]) &* a; s[2] &+= UInt32(p[2]) &* a; s[3] &+= a
        }
        }
        rowsAdded &+= 1
        if rowsAdded % factor == 0 || rowsAdded == height {
            emit(row: (rowsAdded &- 1) / factor, blockHeight: rowsAdded &- ((rowsAdded &- 1) / factor) &* factor,
                 sums: sums, output: output)
        }
    }

    /// Adds `count` pixels that sit on image row `y` at columns x0, x0 + dx, ... (one row of
    /// an Adam7 pass). Only in `scattered` mode.
    func scatter(_ pixels: UnsafePointer<UInt8>, count: Int, y: Int, x0: Int, dx: Int) {
        let c = channels
        let band = sums + (y >> shift) &* outWidth &* c
        var x = x0
        var p = pixels
        for _ in 0..<count {
            let s = band + (x >> shift) &* c
            if hasAlpha {
                let a = UInt32(p[c &- 1])
                for k in 0..<(c &- 1) { s[k] &+= UInt32(p[k]) &* a }
                s[c &- 1] &+= a
            } else {
                for k in 0..<c { s[k] &+= UInt32(p[k]) }
            }
            x &+= dx
            p += c
        }
    }

    /// Writes every output row after the last `scatter`.
    func finish(output: UnsafeMutablePointer<UInt8>) {
        for oy in 0..<outHeight {
            emit(row: oy, blockHeight: min(factor, height &- oy &* factor),
                 sums: sums + oy &* outWidth &* channels, output: output)
        }
    }

    /// Runs `step(sums of the block, pixel)` over every pixel of `row`, block by block.
    @inline(__always)
    private func accumulate(_ row: UnsafePointer<UInt8>, _ c: Int,
                            _ step: (UnsafeMutablePointer<UInt32>, UnsafePointer<UInt8>) -> Void) {
        var p = row
        var s = sums
        let full = width / factor
        for _ in 0..<full {
            for _ in 0..<factor {
                step(s, p)
                p += c
            }
            s += c
        }
        for _ in 0..<(width &- full &* factor) {
            step(s, p)
            p += c
        }
    }

    /// Output row `oy` from one row of block sums, which are cleared for reuse.
    private func emit(row oy: Int, blockHeight: Int, sums: UnsafeMutablePointer<UInt32>, output: UnsafeMutablePointer<UInt8>) {
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
