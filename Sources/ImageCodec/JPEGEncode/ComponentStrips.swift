/// One MCU row (8·Vmax image rows) of every component, ready for the FDCT: colour-converted,
/// edge-replicated and, for 4:2:0, chroma downsampled, exactly as cjpeg prepares its input
/// (`jccolor.c`, `jcprepct.c`, `jcsample.c`; docs/jpeg-encoding.md):
/// - RGB→YCbCr with libjpeg's 16-bit fixed-point weights (`RGBToYCbCr`);
/// - the last column is repeated out to the padded width, the last image row down to the
///   MCU row, *before* downsampling;
/// - downsampled chroma rows past the last real one repeat that row (not a fresh average);
///   the averaging itself is `ChromaDownsampler`.
///
/// The strips are allocated once per encode and refilled for each MCU row, so memory stays
/// at a few rows whatever the image height. Alpha, if any, is ignored.
struct ComponentStrips: ~Copyable {
    private let layout: FrameLayout
    /// Samples per full-resolution strip row: the MCU row width, covering every padded block.
    let stride: Int
    /// Rows per full-resolution strip (8 · Vmax).
    let rows: Int
    /// Samples per downsampled chroma row (4:2:0 only).
    let smallStride: Int
    private let planes: [UnsafeMutablePointer<UInt8>]
    private let small: [UnsafeMutablePointer<UInt8>]

    init(layout: FrameLayout) {
        self.layout = layout
        let stride = layout.mcusWide * 8 * layout.hMax
        let rows = 8 * layout.vMax
        let smallStride = layout.mcusWide * 8
        self.stride = stride
        self.rows = rows
        self.smallStride = smallStride
        let planeCount = layout.isGray ? 1 : 3
        planes = (0..<planeCount).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: stride * rows) }
        small = layout.isSubsampled ? (0..<2).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: smallStride * 8) } : []
    }

    deinit {
        for p in planes { p.deallocate() }
        for p in small { p.deallocate() }
    }

    /// Top-left sample and row stride of component `index`'s strip.
    func plane(_ index: Int) -> (base: UnsafePointer<UInt8>, stride: Int) {
        if index > 0 && layout.isSubsampled { return (UnsafePointer(small[index - 1]), smallStride) }
        return (UnsafePointer(planes[index]), stride)
    }

    /// Fills the strips for MCU row `mcuRow` from `pixels` (`channels` interleaved samples per
    /// pixel, `layout.width` × `layout.height`, rows tightly packed).
    mutating func fill(mcuRow: Int, pixels: UnsafePointer<UInt8>, channels: Int) {
        let width = layout.width
        let rowBytes = width &* channels
        for r in 0..<rows {
            let y = mcuRow &* rows &+ r
            let offset = r &* stride
            if y >= layout.height && r > 0 {
                for p in planes { (p + offset).update(from: p + (offset &- stride), count: stride) }
                continue
            }
            let src = pixels + min(y, layout.height &- 1) &* rowBytes
            if layout.isGray {
                let out = planes[0] + offset
                if channels == 1 {
                    out.update(from: src, count: width)
                } else {
                    for x in 0..<width { out[x] = src[x &* channels] }
                }
            } else {
                RGBToYCbCr.convertRow(src, channels: channels, width: width,
                                           y: planes[0] + offset, cb: planes[1] + offset, cr: planes[2] + offset)
            }
            for p in planes {
                let row = p + offset
                let last = row[width &- 1]
                if stride > width { (row + width).update(repeating: last, count: stride &- width) }
            }
        }
        guard layout.isSubsampled else { return }
        let chromaHeight = (layout.height + 1) / 2
        for (i, out) in small.enumerated() {
            let full = planes[i + 1]
            for r in 0..<8 {
                let row = out + r &* smallStride
                if mcuRow &* 8 &+ r < chromaHeight {
                    let top = full + (2 &* r) &* stride
                    ChromaDownsampler.h2v2(top: top, bottom: top + stride, out: row, outputWidth: smallStride)
                } else {
                    row.update(from: row - smallStride, count: smallStride)
                }
            }
        }
    }
}
