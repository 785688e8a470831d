/// HDR video samples (BT.2100 HLG or PQ) to an SDR poster, per pixel:
///
/// 1. Y'CbCr → non-linear R'G'B' with the stream's matrix and range (BT.2100 Table 6 for
///    matrix 9), chroma repeated (nearest), as the SDR path does.
/// 2. Display light in cd/m²: PQ through its EOTF (SMPTE ST 2084, BT.2100 Table 4); HLG
///    through its inverse OETF and the OOTF for a 1000 cd/m² display, system gamma 1.2
///    (BT.2100 Table 5: F_D = L_W · Y_S^(γ−1) · E).
/// 3. The BT.2390 EETF (ITU-R BT.2390 §5.4.1, a Hermite knee in the PQ domain) on max(R, G, B),
///    mapping the source's 0-1000 cd/m² into 0-203 cd/m², where 203 cd/m² is HDR reference
///    white (ITU-R BT.2408 §2.2, the level SDR 100 % corresponds to); all three channels are
///    scaled by the same ratio, so hue and saturation stay and no channel clips.
/// 4. Divided by 203 (SDR white = 1.0) and encoded with the sRGB curve, 8 bits, keeping the
///    stream's primaries (BT.2020): the poster is tagged (primaries 9, transfer 13) and the
///    colour stage converts it to sRGB (clipping the few colours outside) or Display P3.
///
/// PQ content above 1000 cd/m² is clipped there first: without mastering metadata, 1000 cd/m²
/// is BT.2408's assumed peak. Every transfer function is a table built once (4096 entries on
/// the R'G'B' signal and the EETF gain, 65536 on the other linear quantities), so a pixel
/// costs a few multiplies and lookups.
struct VideoToneMapper: Sendable {
    let hlg: Bool
    let lumaShift: Int
    let chromaShift: Int
    let fullRange: Bool
    let maxCode: Float
    let rCr: Float, gCb: Float, gCr: Float, bCb: Float
    /// Luminance weights of the stream's primaries (BT.2100 for BT.2020).
    let wR: Float, wG: Float, wB: Float

    /// Source peak and SDR white, cd/m².
    static let sourcePeak: Double = 1000
    static let referenceWhite: Double = 203

    init(transfer: Int, primaries: Int, matrix: Int, fullRange: Bool, bitDepthLuma: Int, bitDepthChroma: Int) {
        hlg = transfer == 18
        lumaShift = bitDepthLuma - 8
        chromaShift = bitDepthChroma - 8
        self.fullRange = fullRange
        maxCode = Float((1 << bitDepthLuma) - 1)
        let (kr, kb) = HEIFColourConverter.krkb(matrix: matrix == 0 || matrix == 2 ? 9 : matrix, primaries: primaries)
        rCr = 2 * (1 - kr)
        gCb = 2 * kb * (1 - kb) / (kb + kr - 1)
        gCr = 2 * kr * (1 - kr) / (kb + kr - 1)
        bCb = 2 * (1 - kb)
        wR = kr; wB = kb; wG = 1 - kr - kb
    }

    // MARK: - Transfer functions (BT.2100), in Double while tables are built

    /// HLG inverse OETF: signal E' in 0...1 → scene light E in 0...1 (BT.2100 Table 5).
    static func hlgToScene(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * Double.ln(4 * a)
        return e <= 0.5 ? e * e / 3 : (Double.exp((e - c) / a) + b) / 12
    }

    static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32

    /// PQ EOTF: signal in 0...1 → cd/m² (SMPTE ST 2084).
    static func pqToNits(_ e: Double) -> Double {
        let p = max(e, 0).pow(1 / m2)
        return 10_000 * (max(p - c1, 0) / (c2 - c3 * p)).pow(1 / m1)
    }

    /// PQ inverse EOTF: cd/m² → signal in 0...1.
    static func nitsToPQ(_ l: Double) -> Double {
        let y = (max(l, 0) / 10_000).pow(m1)
        return ((c1 + c2 * y) / (1 + c3 * y)).pow(m2)
    }

    /// BT.2390 EETF (§5.4.1, black level 0): source luminance in cd/m² (0...sourcePeak) →
    /// target luminance in 0...referenceWhite.
    static func eetf(_ nits: Double) -> Double {
        let span = nitsToPQ(sourcePeak)
        let e1 = min(nitsToPQ(nits) / span, 1)
        let maxLum = nitsToPQ(referenceWhite) / span
        let ks = 1.5 * maxLum - 0.5
        var e2 = e1
        if e1 >= ks {
            let t = (e1 - ks) / (1 - ks), t2 = t * t, t3 = t2 * t
            e2 = (2 * t3 - 3 * t2 + 1) * ks + (t3 - 2 * t2 + t) * (1 - ks) + (-2 * t3 + 3 * t2) * maxLum
        }
        return pqToNits(e2 * span)
    }

    // MARK: - Tables

    static let signalSteps = 4096
    static let linearSteps = 65536
    /// The EETF gain is flat below the knee and changes slowly above it: 4,096 steps of
    /// 0.24 cd/m² move no output code, and its table (six powers an entry) builds 16× faster.
    static let toneSteps = 4096

    struct Tables: Sendable {
        /// R'G'B' signal (0...1 in `signalSteps`) → HLG scene light (0...1) or PQ display light / sourcePeak.
        let signalToLinear: [Float]
        /// HLG: scene luminance Y_S (0...1 in `linearSteps`) → Y_S^(γ−1), γ = 1.2.
        let ootfGain: [Float]
        /// max(R, G, B) / sourcePeak (0...1 in `toneSteps`) → SDR gain: EETF(m)/(m·203) · sourcePeak.
        let toneGain: [Float]
        /// SDR linear (0...1 in `linearSteps`) → sRGB-encoded 8-bit value.
        let encode: [UInt8]
    }

    static let hlgTables = makeTables(hlg: true)
    static let pqTables = makeTables(hlg: false)

    private static func makeTables(hlg: Bool) -> Tables {
        let n = Double(signalSteps - 1), l = Double(linearSteps - 1)
        let signal = (0..<signalSteps).map { i -> Float in
            let e = Double(i) / n
            return Float(hlg ? hlgToScene(e) : min(pqToNits(e), sourcePeak) / sourcePeak)
        }
        let gain = (0..<linearSteps).map { i -> Float in Float((Double(max(i, 1)) / l).pow(0.2)) }
        let tone = (0..<toneSteps).map { i -> Float in
            let m = Double(max(i, 1)) / Double(toneSteps - 1) * sourcePeak
            return Float(eetf(m) / m / referenceWhite * sourcePeak)
        }
        let encode = (0..<linearSteps).map { i -> UInt8 in UInt8(nearest(linearToSRGB(Double(i) / l) * 255)) }
        return Tables(signalToLinear: signal, ootfGain: hlg ? gain : [], toneGain: tone, encode: encode)
    }

    // MARK: - Rows

    /// Converts `count` pixels of row `row` starting at column `x0` into RGB bytes at `out`
    /// (3 bytes a pixel), like `HEIFColourConverter.convertRow`.
    func convertRow(y: UnsafePointer<UInt16>, cb: UnsafePointer<UInt16>, cr: UnsafePointer<UInt16>, row: Int, x0: Int, count: Int,
                    width: Int, chromaWidth: Int, subsampling: (x: Int, y: Int), out: UnsafeMutablePointer<UInt8>) {
        let tables = hlg ? Self.hlgTables : Self.pqTables
        let sx = subsampling.x == 2 ? 1 : 0, sy = subsampling.y == 2 ? 1 : 0
        let yRow = y + row &* width
        let cRow = (row >> sy) &* chromaWidth
        let ls = Float(1 << lumaShift), cs = Float(1 << chromaShift)
        let sMax = Float(Self.signalSteps - 1), lMax = Float(Self.linearSteps - 1), tMax = Float(Self.toneSteps - 1)
        tables.signalToLinear.withUnsafeBufferPointer { sig in
            tables.ootfGain.withUnsafeBufferPointer { ootf in
                tables.toneGain.withUnsafeBufferPointer { tone in
                    tables.encode.withUnsafeBufferPointer { enc in
                        var o = out
                        for i in 0..<count {
                            let x = x0 &+ i
                            let yv = Float(yRow[x]), u = Float(cb[cRow &+ (x >> sx)]), v = Float(cr[cRow &+ (x >> sx)])
                            let luma: Float, pb: Float, pr: Float
                            if fullRange {
                                luma = yv / maxCode; pb = (u - (maxCode + 1) / 2) / maxCode; pr = (v - (maxCode + 1) / 2) / maxCode
                            } else {
                                luma = (yv / ls - 16) / 219; pb = (u / cs - 128) / 224; pr = (v / cs - 128) / 224
                            }
                            let rs = min(max(luma + rCr * pr, 0), 1)
                            let gs = min(max(luma + gCb * pb + gCr * pr, 0), 1)
                            let bs = min(max(luma + bCb * pb, 0), 1)
                            var r = sig[Int(rs * sMax + 0.5)], g = sig[Int(gs * sMax + 0.5)], b = sig[Int(bs * sMax + 0.5)]
                            if hlg {
                                let ys = min(max(wR * r + wG * g + wB * b, 0), 1)
                                let k = ootf[Int(ys * lMax + 0.5)]
                                r *= k; g *= k; b *= k
                            }
                            let m = min(max(r, g, b), 1)
                            let t = tone[Int(m * tMax + 0.5)]
                            o[0] = enc[Int(min(r * t, 1) * lMax + 0.5)]
                            o[1] = enc[Int(min(g * t, 1) * lMax + 0.5)]
                            o[2] = enc[Int(min(b * t, 1) * lMax + 0.5)]
                            o += 3
                        }
                    }
                }
            }
        }
    }
}
