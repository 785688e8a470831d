/// The geometry of the frame we write, decided once from the image size and subsampling:
/// components, sampling factors, block and MCU counts (T.81 A.2; "MCU grid" in
/// docs/jpeg-decoding.md).
struct FrameLayout {
    struct Component {
        /// Component identifier in SOF/SOS: 1 = Y, 2 = Cb, 3 = Cr (as cjpeg numbers them).
        var id: UInt8
        /// Sampling factors.
        var h: Int
        var v: Int
        /// Quantisation and Huffman table index: 0 luma, 1 chroma.
        var table: Int
        /// Blocks holding real samples (libjpeg's width_in_blocks / height_in_blocks); MCU
        /// blocks past these are dummy blocks.
        var blocksWide: Int
        var blocksHigh: Int
    }

    let width: Int
    let height: Int
    let components: [Component]
    let hMax: Int
    let vMax: Int
    let mcusWide: Int
    let mcusHigh: Int
    /// Blocks in one MCU over all components.
    let blocksPerMCU: Int

    /// `gray` gives one component (a non-interleaved scan: one block per MCU); otherwise
    /// YCbCr with luma sampled 2×2 (`subsample`) or 1×1 and chroma 1×1.
    init(width: Int, height: Int, gray: Bool, subsample: Bool) {
        self.width = width
        self.height = height
        let lumaFactor = (!gray && subsample) ? 2 : 1
        hMax = lumaFactor
        vMax = lumaFactor
        func component(_ id: UInt8, _ f: Int, _ table: Int) -> Component {
            let w = (width * f + lumaFactor - 1) / lumaFactor
            let h = (height * f + lumaFactor - 1) / lumaFactor
            return Component(id: id, h: f, v: f, table: table, blocksWide: (w + 7) / 8, blocksHigh: (h + 7) / 8)
        }
        components = gray ? [component(1, 1, 0)]
            : [component(1, lumaFactor, 0), component(2, 1, 1), component(3, 1, 1)]
        mcusWide = (width + 8 * hMax - 1) / (8 * hMax)
        mcusHigh = (height + 8 * vMax - 1) / (8 * vMax)
        blocksPerMCU = components.reduce(0) { $0 + $1.h * $1.v }
    }

    var isGray: Bool { components.count == 1 }
    var isSubsampled: Bool { hMax == 2 }
}
