/// Item properties (ISO/IEC 23008-12 §6.5 and ISO/IEC 14496-15 §8.3.3) parsed from `ipco`.
/// Properties we do not know are kept as `.other` so that an essential one can make its item
/// unsupported instead of being silently ignored.

/// `hvcC`: the HEVC decoder configuration of a coded item.
struct HEVCConfiguration: Equatable {
    /// VPS, SPS, PPS and SEI NAL units without length prefixes, in the order listed.
    var parameterSets: [[UInt8]]
    /// Bytes of the big-endian length before each NAL unit of the item data: 1, 2 or 4.
    var lengthSize: Int
    var chromaFormat: HEVCChromaFormat
    var bitDepthLuma: Int
    var bitDepthChroma: Int
}

/// `clap` as fractions (all denominators positive).
struct CleanAperture: Equatable {
    var widthN: Int64, widthD: Int64
    var heightN: Int64, heightD: Int64
    var horizOffN: Int64, horizOffD: Int64
    var vertOffN: Int64, vertOffD: Int64
}

enum HEIFProperty: Equatable {
    case hvcC(HEVCConfiguration)
    case ispe(width: Int, height: Int)
    case pixi(bitsPerChannel: [Int])
    case nclx(ColourCodePoints)
    case icc([UInt8])
    /// Anticlockwise rotation in quarter turns (0-3).
    case irot(Int)
    /// `imir` axis as stored: 0 or 1 (see `HEIFGeometry` for what libheif makes of it).
    case imir(Int)
    case clap(CleanAperture)
    case auxC(String)
    /// A property we do not interpret (or one whose body we could not read).
    case other(FourCC)

    var isTransform: Bool {
        switch self {
        case .irot, .imir, .clap: return true
        default: return false
        }
    }

    /// Parses one property box. Malformed bodies of properties we need throw `.corrupt`.
    static func parse(_ bytes: [UInt8], box: HEIFBox) throws -> HEIFProperty {
        var r = HEIFByteReader(bytes, box: box)
        switch box.type {
        case FourCC("hvcC"): return .hvcC(try parseHVCC(&r))
        case FourCC("ispe"):
            _ = try r.fullBoxHeader()
            return .ispe(width: try r.u32(), height: try r.u32())
        case FourCC("pixi"):
            _ = try r.fullBoxHeader()
            let n = try r.u8()
            var bits: [Int] = []
            for _ in 0..<n { bits.append(try r.u8()) }
            return .pixi(bitsPerChannel: bits)
        case FourCC("colr"):
            let kind = try r.fourCC()
            switch kind {
            case FourCC("nclx"):
                let p = try r.u16(), t = try r.u16(), m = try r.u16()
                let full = try r.u8() & 0x80 != 0
                return .nclx(ColourCodePoints(primaries: p, transfer: t, matrix: m, fullRange: full))
            case FourCC("prof"), FourCC("rICC"):
                return .icc(Array(try r.slice(r.remaining)))
            default:
                return .other(box.type)
            }
        case FourCC("irot"): return .irot(try r.u8() & 3)
        case FourCC("imir"): return .imir(try r.u8() & 1)
        case FourCC("clap"):
            var v: [Int64] = []
            for i in 0..<8 {
                // Widths and heights are unsigned, offsets signed; denominators unsigned.
                v.append(i == 4 || i == 6 ? Int64(try r.i32()) : Int64(try r.u32()))
            }
            guard v[1] > 0, v[3] > 0, v[5] > 0, v[7] > 0, v[0] > 0, v[2] > 0 else {
                throw ImageCodecError(.corrupt, "'clap' has a zero size or denominator")
            }
            return .clap(CleanAperture(widthN: v[0], widthD: v[1], heightN: v[2], heightD: v[3],
                                       horizOffN: v[4], horizOffD: v[5], vertOffN: v[6], vertOffD: v[7]))
        case FourCC("auxC"):
            _ = try r.fullBoxHeader()
            return .auxC(r.cString())
        default:
            return .other(box.type)
        }
    }

    /// ISO/IEC 14496-15 §8.3.3.1.2 HEVCDecoderConfigurationRecord.
    private static func parseHVCC(_ r: inout HEIFByteReader) throws -> HEVCConfiguration {
        try r.skip(16)
        let chroma = try r.u8() & 3
        let depthLuma = (try r.u8() & 7) + 8
        let depthChroma = (try r.u8() & 7) + 8
        try r.skip(2)
        let lengthSize = (try r.u8() & 3) + 1
        guard lengthSize != 3 else { throw ImageCodecError(.corrupt, "'hvcC' gives a NAL length size of 3 bytes") }
        let arrays = try r.u8()
        var sets: [[UInt8]] = []
        for _ in 0..<arrays {
            _ = try r.u8()
            let count = try r.u16()
            for _ in 0..<count {
                let length = try r.u16()
                sets.append(Array(try r.slice(length)))
            }
        }
        guard let format = HEVCChromaFormat(rawValue: chroma) else {
            throw ImageCodecError(.corrupt, "'hvcC' chroma format \(chroma)")
        }
        return HEVCConfiguration(parameterSets: sets, lengthSize: lengthSize, chromaFormat: format,
                                 bitDepthLuma: depthLuma, bitDepthChroma: depthChroma)
    }
}

/// The auxC types that mark an alpha plane (HEIF for HEVC, and MIAF's generic one).
let heifAlphaURNs: Set<String> = ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
                                  "urn:mpeg:avc:2015:auxid:1"]
