/// The HEVC (H.265) still-picture decoder's entry points: one intra picture from parameter
/// sets and coded slices, as an HEIF image item or a raw Annex B stream carries it.
public enum HEVCDecoder {
    /// Decodes one intra picture from `parameterSets` (VPS, SPS, PPS and any SEI NAL units,
    /// without start codes or length prefixes, as hvcC lists them) and `data`: the item's NAL
    /// units, each preceded by a big-endian length of `lengthSize` (1, 2 or 4) bytes.
    public static func decode(parameterSets: [[UInt8]], data: ArraySlice<UInt8>, lengthSize: Int,
                              limits: DecodeLimits = .default) throws -> HEVCPicture {
        throw ImageCodecError(.unsupported, "HEVC decoding is not available in this build")
    }

    /// Decodes the first picture of an Annex B byte stream (NAL units after 00 00 01 start
    /// codes), the form `.265` files and reference decoders use.
    public static func decodeAnnexB(_ stream: [UInt8], limits: DecodeLimits = .default) throws -> HEVCPicture {
        throw ImageCodecError(.unsupported, "HEVC decoding is not available in this build")
    }

    /// Size, chroma format and bit depths from the SPS among `parameterSets`, for probing and
    /// memory estimates; decodes no slice data.
    public static func streamInfo(parameterSets: [[UInt8]]) throws -> HEVCStreamInfo {
        throw ImageCodecError(.unsupported, "HEVC decoding is not available in this build")
    }
}

/// What an SPS says about the pictures it describes.
public struct HEVCStreamInfo: Sendable, Equatable {
    /// Luma size after the conformance window.
    public var width: Int
    public var height: Int
    public var chromaFormat: HEVCChromaFormat
    public var bitDepthLuma: Int
    public var bitDepthChroma: Int
    /// general_profile_idc (1 Main, 2 Main 10, 3 Main Still Picture, 4 range extensions).
    public var profile: Int
    public var videoSignal: HEVCVideoSignal

    public init(width: Int, height: Int, chromaFormat: HEVCChromaFormat, bitDepthLuma: Int, bitDepthChroma: Int,
                profile: Int, videoSignal: HEVCVideoSignal = HEVCVideoSignal()) {
        self.width = width
        self.height = height
        self.chromaFormat = chromaFormat
        self.bitDepthLuma = bitDepthLuma
        self.bitDepthChroma = bitDepthChroma
        self.profile = profile
        self.videoSignal = videoSignal
    }
}
