/// Chroma sampling of an HEVC picture (`chroma_format_idc`, H.265 table 6-1).
public enum HEVCChromaFormat: Int, Sendable, Equatable {
    case monochrome = 0
    case yuv420 = 1
    case yuv422 = 2
    case yuv444 = 3

    /// Horizontal and vertical chroma subsampling factors (SubWidthC, SubHeightC).
    public var subsampling: (x: Int, y: Int) {
        switch self {
        case .monochrome, .yuv444: return (1, 1)
        case .yuv420: return (2, 2)
        case .yuv422: return (2, 1)
        }
    }

    /// Planes a picture of this format carries: 1 for monochrome, else 3.
    public var planeCount: Int { self == .monochrome ? 1 : 3 }
}

/// One plane of samples, row after row, `stride == width`. Samples hold `bitDepth` bits
/// (8-10 for the profiles we decode) in a `UInt16` each, so one code path serves every depth.
public struct HEVCPlane: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var samples: [UInt16]

    public init(width: Int, height: Int, samples: [UInt16]) {
        self.width = width
        self.height = height
        self.samples = samples
    }
}

/// A decoded intra picture, cropped to the SPS conformance window: what a viewer shows.
public struct HEVCPicture: Sendable, Equatable {
    /// Luma size after the conformance window.
    public let width: Int
    public let height: Int
    public let chromaFormat: HEVCChromaFormat
    public let bitDepthLuma: Int
    public let bitDepthChroma: Int
    /// Y, then Cb and Cr unless monochrome.
    public var planes: [HEVCPlane]
    /// Colour description from the SPS VUI, when present (nil fields mean "not signalled").
    public var videoSignal: HEVCVideoSignal

    public init(width: Int, height: Int, chromaFormat: HEVCChromaFormat, bitDepthLuma: Int, bitDepthChroma: Int,
                planes: [HEVCPlane], videoSignal: HEVCVideoSignal = HEVCVideoSignal()) {
        self.width = width
        self.height = height
        self.chromaFormat = chromaFormat
        self.bitDepthLuma = bitDepthLuma
        self.bitDepthChroma = bitDepthChroma
        self.planes = planes
        self.videoSignal = videoSignal
    }
}

/// The VUI's video signal type (H.265 E.2.1): range and H.273 colour code points.
public struct HEVCVideoSignal: Sendable, Equatable {
    public var fullRange: Bool?
    public var colourPrimaries: Int?
    public var transferCharacteristics: Int?
    public var matrixCoefficients: Int?

    public init(fullRange: Bool? = nil, colourPrimaries: Int? = nil, transferCharacteristics: Int? = nil,
                matrixCoefficients: Int? = nil) {
        self.fullRange = fullRange
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
    }
}
