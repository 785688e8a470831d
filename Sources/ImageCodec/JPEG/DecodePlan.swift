/// The colour model of the stored components (libjpeg `default_decompress_parms`).
enum JPEGColorSpace: String {
    case gray = "Gray"
    case ycbcr = "YCbCr"
    case rgb = "RGB"
    case cmyk = "CMYK"
    case ycck = "YCCK"

    /// 1 component: gray. 3: JFIF → YCbCr; else Adobe transform 0 → RGB, other → YCbCr; else
    /// component ids 'R','G','B' → RGB, anything else YCbCr. 4: Adobe transform 2 (or unknown)
    /// → YCCK; transform 0 or no Adobe marker → CMYK.
    init(frame: JPEGFrame, metadata: JPEGMetadata) {
        switch frame.components.count {
        case 1:
            self = .gray
        case 3:
            if metadata.sawJFIF {
                self = .ycbcr
            } else if let t = metadata.adobeTransform {
                self = t == 0 ? .rgb : .ycbcr
            } else {
                let ids = frame.components.map(\.id)
                self = ids == [0x52, 0x47, 0x42] ? .rgb : .ycbcr
            }
        default:
            if let t = metadata.adobeTransform {
                self = t == 0 ? .cmyk : .ycck
            } else {
                self = .cmyk
            }
        }
    }
}

/// How a component plane is stretched to the output grid (`jdsample.c jinit_upsampler`).
enum UpsampleMethod {
    case none
    case fancyH2V1
    case fancyH1V2
    case fancyH2V2
    /// Plain replication by `hFactor` × `vFactor` (libjpeg `int_upsample`, `h2v1_upsample`, ...).
    case replicate
}

/// Per-component geometry at the chosen scale (docs/jpeg-decoding.md "Output size and IDCT
/// size per component", "Upsampling").
struct ComponentPlan {
    let h: Int
    let v: Int
    /// IDCT output size per block: 1, 2, 4 or 8.
    let idctSize: Int
    /// Blocks per row / column of the MCU grid (padded to whole MCUs).
    let blocksWide: Int
    let blocksHigh: Int
    /// Blocks holding image data, as a non-interleaved scan walks them.
    let dataBlocksWide: Int
    let dataBlocksHigh: Int
    /// libjpeg's downsampled_width/height at this scale: the real samples of the plane.
    let planeWidth: Int
    let planeHeight: Int
    /// Bytes per plane row (`blocksWide · idctSize`).
    let rowStride: Int
    /// Plane rows per iMCU row (`v · idctSize`).
    let bandRows: Int
    let hFactor: Int
    let vFactor: Int
    let method: UpsampleMethod
}

/// Everything decided once from the headers and the requested scale.
struct DecodePlan {
    /// M in M/8.
    let scale: Int
    let outWidth: Int
    let outHeight: Int
    let components: [ComponentPlan]
    /// Output rows per iMCU row (Vmax · M).
    let bandOutputRows: Int
    /// iMCU rows in the image.
    let bands: Int
    let colorSpace: JPEGColorSpace

    init(frame: JPEGFrame, scale k: Int, colorSpace: JPEGColorSpace) throws {
        guard [1, 2, 4, 8].contains(k) else { throw ImageCodecError(.invalidArgument, "JPEG scale \(k)/8 is not 1, 2, 4 or 8") }
        scale = k
        outWidth = (frame.width * k + 7) / 8
        outHeight = (frame.height * k + 7) / 8
        bandOutputRows = frame.vMax * k
        bands = frame.mcuRows
        self.colorSpace = colorSpace
        var plans: [ComponentPlan] = []
        for (ci, c) in frame.components.enumerated() {
            // jdmaster.c jpeg_calc_output_dimensions: one size for both axes.
            var s = k
            while s < 8 && (frame.hMax * k) % (c.h * s * 2) == 0 && (frame.vMax * k) % (c.v * s * 2) == 0 {
                s *= 2
            }
            let hNum = frame.hMax * k, hDen = c.h * s
            let vNum = frame.vMax * k, vDen = c.v * s
            guard hNum % hDen == 0, vNum % vDen == 0 else {
                throw ImageCodecError(.unsupported, "fractional sampling \(c.h)x\(c.v) in a \(frame.hMax)x\(frame.vMax) frame")
            }
            let hf = hNum / hDen, vf = vNum / vDen
            let planeWidth = (frame.width * c.h * s + frame.hMax * 8 - 1) / (frame.hMax * 8)
            let planeHeight = (frame.height * c.v * s + frame.vMax * 8 - 1) / (frame.vMax * 8)
            let fancy = k > 1
            let method: UpsampleMethod
            switch (hf, vf) {
            case (1, 1): method = .none
            case (2, 1): method = fancy && planeWidth > 2 ? .fancyH2V1 : .replicate
            case (1, 2): method = fancy ? .fancyH1V2 : .replicate
            case (2, 2): method = fancy && planeWidth > 2 ? .fancyH2V2 : .replicate
            default: method = .replicate
            }
            let blocksWide = frame.mcusPerLine * c.h
            plans.append(ComponentPlan(
                h: c.h, v: c.v, idctSize: s,
                blocksWide: blocksWide, blocksHigh: frame.mcuRows * c.v,
                dataBlocksWide: frame.componentBlocksWide(ci), dataBlocksHigh: frame.componentBlocksHigh(ci),
                planeWidth: planeWidth, planeHeight: planeHeight,
                rowStride: blocksWide * s, bandRows: c.v * s,
                hFactor: hf, vFactor: vf, method: method))
        }
        components = plans
    }
}
