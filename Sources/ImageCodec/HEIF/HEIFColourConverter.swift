/// Decoded HEVC samples to 8-bit gray or RGB, the way libheif 1.23 does it with its default
/// options (pillow-heif's references match this exactly on every fixture):
/// - samples above 8 bits: for 4:2:0 full range each plane is first cut to 8 bits by a plain
///   right shift; every other case converts at the coded depth and shifts the RGB result
///   (no rounding either way);
/// - chroma is upsampled by repetition (nearest neighbour): libheif prefers bilinear but does
///   not insist, and its cheaper nearest-neighbour conversion wins;
/// - matrix and range come from the item's `nclx`, else from the SPS VUI (H.265 defaults when
///   absent: limited range, matrix 2); unknown matrices and matrix 2 mean BT.601;
/// - 4:2:0 full range uses 8-bit fixed point (coefficients × 256, rounded); every other case
///   the float formula with limited range expanded by 1.1689 (Y) and 1.1429 (Cb, Cr).
struct HEIFColourConverter {
    let chroma: HEVCChromaFormat
    let lumaShift: Int
    let chromaShift: Int
    let fullRange: Bool
    let matrix: Int
    /// R = Y + rCr·Cr, G = Y + gCb·Cb + gCr·Cr, B = Y + bCb·Cb.
    let rCr: Float, gCb: Float, gCr: Float, bCb: Float
    let fixedPoint: Bool
    let iR: Int, iGb: Int, iGr: Int, iB: Int

    init(chroma: HEVCChromaFormat, bitDepthLuma: Int, bitDepthChroma: Int, nclx: ColourCodePoints?, signal: HEVCVideoSignal) {
        self.chroma = chroma
        lumaShift = max(0, bitDepthLuma - 8)
        chromaShift = max(0, bitDepthChroma - 8)
        if let nclx {
            fullRange = nclx.fullRange
            matrix = nclx.matrix
        } else {
            fullRange = signal.fullRange ?? false
            matrix = signal.matrixCoefficients ?? 2
        }
        let primaries = nclx?.primaries ?? signal.colourPrimaries ?? 2
        let (kr, kb) = Self.krkb(matrix: matrix, primaries: primaries)
        rCr = 2 * (1 - kr)
        gCb = 2 * kb * (1 - kb) / (kb + kr - 1)
        gCr = 2 * kr * (1 - kr) / (kb + kr - 1)
        bCb = 2 * (1 - kb)
        fixedPoint = chroma == .yuv420 && fullRange && matrix != 0 && matrix != 8
        iR = Self.lround(256 * rCr); iGb = Self.lround(256 * gCb)
        iGr = Self.lround(256 * gCr); iB = Self.lround(256 * bCb)
    }

    /// Kr and Kb of H.273 matrix coefficients; BT.601 for 2 and anything unknown.
    static func krkb(matrix: Int, primaries: Int) -> (Float, Float) {
        switch matrix {
        case 1: return (0.2126, 0.0722)
        case 4: return (0.30, 0.11)
        case 7: return (0.212, 0.087)
        case 9, 10: return (0.2627, 0.0593)
        case 12, 13: return derived(primaries) ?? (0.299, 0.114)
        default: return (0.299, 0.114)
        }
    }

    /// Kr, Kb derived from colour primaries (H.273 equations 39-44).
    private static func derived(_ primaries: Int) -> (Float, Float)? {
        let p: [Float]
        switch primaries {
        case 1: p = [0.640, 0.330, 0.300, 0.600, 0.150, 0.060, 0.3127, 0.3290]
        case 4: p = [0.67, 0.33, 0.21, 0.71, 0.14, 0.08, 0.310, 0.316]
        case 5: p = [0.64, 0.33, 0.29, 0.60, 0.15, 0.06, 0.3127, 0.3290]
        case 6, 7: p = [0.630, 0.340, 0.310, 0.595, 0.155, 0.070, 0.3127, 0.3290]
        case 9: p = [0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290]
        case 12: p = [0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290]
        default: return nil
        }
        let (rx, ry, gx, gy, bx, by, wx, wy) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
        let zr = 1 - (rx + ry), zg = 1 - (gx + gy), zb = 1 - (bx + by), zw = 1 - (wx + wy)
        let denom = wy * (rx * (gy * zb - by * zg) + gx * (by * zr - ry * zb) + bx * (ry * zg - gy * zr))
        guard denom != 0 else { return nil }
        let kr = (ry * (wx * (gy * zb - by * zg) + wy * (bx * zg - gx * zb) + zw * (gx * by - bx * gy))) / denom
        let kb = (by * (wx * (ry * zg - gy * zr) + wy * (gx * zr - rx * zg) + zw * (rx * gy - gx * ry))) / denom
        return (kr, kb)
    }

    /// C's lround (half away from zero), without libm: ImageCodec links no Foundation.
    private static func lround(_ v: Float) -> Int { v < 0 ? -Int(-v + 0.5) : Int(v + 0.5) }

    /// libheif's clip_f_u16 at the coded depth ((v + 0.5) truncated toward zero, clamped to
    /// 0...maximum), then cut to 8 bits. The inputs are bounded sums of samples of at most 16
    /// bits, so the conversion to Int cannot trap.
    @inline(__always)
    private static func clip(_ v: Float, _ maximum: Int, _ shift: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(Int(v + 0.5), 0), maximum) >> shift)
    }

    /// Converts `count` pixels of row `y` starting at column `x0` of `planes` (Y, Cb, Cr of
    /// one picture, `width` luma samples a row) into `out`, `channels` bytes a pixel (1 gray, 3
    /// RGB; alpha, when present, is written by the caller).
    func convertRow(y: UnsafePointer<UInt16>, cb: UnsafePointer<UInt16>?, cr: UnsafePointer<UInt16>?, row: Int, x0: Int, count: Int,
                    width: Int, chromaWidth: Int, out: UnsafeMutablePointer<UInt8>, stride: Int) {
        let yRow = y + row &* width
        if chroma == .monochrome || cb == nil || cr == nil {
            var o = out
            for i in 0..<count {
                o[0] = UInt8(truncatingIfNeeded: Int(yRow[x0 &+ i]) >> lumaShift)
                if stride >= 3 { o[1] = o[0]; o[2] = o[0] }
                o += stride
            }
            return
        }
        let sx = chroma.subsampling.x == 2 ? 1 : 0, sy = chroma.subsampling.y == 2 ? 1 : 0
        let cRow = (row >> sy) &* chromaWidth
        let cbRow = cb! + cRow, crRow = cr! + cRow
        let ls = lumaShift, cs = chromaShift
        var o = out
        if fixedPoint {
            for i in 0..<count {
                let x = x0 &+ i
                let yv = Int(yRow[x]) >> ls
                let u = (Int(cbRow[x >> sx]) >> cs) &- 128, v = (Int(crRow[x >> sx]) >> cs) &- 128
                o[0] = UInt8(clamping: yv &+ ((iR &* v &+ 128) >> 8))
                o[1] = UInt8(clamping: yv &+ ((iGb &* u &+ iGr &* v &+ 128) >> 8))
                o[2] = UInt8(clamping: yv &+ ((iB &* u &+ 128) >> 8))
                o += stride
            }
            return
        }
        // Float path at the coded depth (libheif's Op_YCbCr_to_RGB<uint16_t>), then >> shift.
        let maximum = (1 << (ls + 8)) - 1
        let half = 1 << (cs + 7)
        let offset = Float(16 << ls)
        for i in 0..<count {
            let x = x0 &+ i
            let yi = Int(yRow[x])
            let ui = Int(cbRow[x >> sx]) &- half, vi = Int(crRow[x >> sx]) &- half
            switch matrix {
            case 0:
                if fullRange {
                    o[0] = UInt8(truncatingIfNeeded: min(vi &+ half, maximum) >> ls)
                    o[1] = UInt8(truncatingIfNeeded: yi >> ls)
                    o[2] = UInt8(truncatingIfNeeded: min(ui &+ half, maximum) >> ls)
                } else {
                    o[0] = Self.clip((Float(vi &+ half) - offset) * 1.1429, maximum, ls)
                    o[1] = Self.clip((Float(yi) - offset) * 1.1689, maximum, ls)
                    o[2] = Self.clip((Float(ui &+ half) - offset) * 1.1429, maximum, ls)
                }
            case 8:
                o[0] = UInt8(truncatingIfNeeded: min(max(yi &- ui &+ vi, 0), maximum) >> ls)
                o[1] = UInt8(truncatingIfNeeded: min(max(yi &+ ui, 0), maximum) >> ls)
                o[2] = UInt8(truncatingIfNeeded: min(max(yi &- ui &- vi, 0), maximum) >> ls)
            default:
                var yf = Float(yi), u = Float(ui), v = Float(vi)
                if !fullRange { yf = (yf - offset) * 1.1689; u *= 1.1429; v *= 1.1429 }
                o[0] = Self.clip(yf + rCr * v, maximum, ls)
                o[1] = Self.clip(yf + gCb * u + gCr * v, maximum, ls)
                o[2] = Self.clip(yf + bCb * u, maximum, ls)
            }
            o += stride
        }
    }
}
