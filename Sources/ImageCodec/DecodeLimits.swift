/// Bounds checked against the headers before any large allocation, so a hostile file fails
/// fast with `ImageCodecError.Kind.limitExceeded` instead of exhausting memory.
public struct DecodeLimits: Sendable, Equatable {
    /// Largest width × height of the stored image. 100 MP by default.
    public var maxPixels: Int
    /// Largest width or height in pixels. 65,500 by default (libjpeg's own bound).
    public var maxDimension: Int
    /// Most scans a progressive JPEG may have. 1,000 by default.
    public var maxScans: Int
    /// Largest input file in bytes. 256 MiB by default.
    public var maxInputBytes: Int
    /// Largest inflated size of one compressed metadata chunk (PNG zTXt, iTXt, iCCP). 8 MiB by default.
    public var maxMetadataBytes: Int

    public init(maxPixels: Int = 100_000_000, maxDimension: Int = 65_500, maxScans: Int = 1_000,
                maxInputBytes: Int = 256 << 20, maxMetadataBytes: Int = 8 << 20) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxScans = maxScans
        self.maxInputBytes = maxInputBytes
        self.maxMetadataBytes = maxMetadataBytes
    }

    public static let `default` = DecodeLimits()

    /// Throws unless a `width` × `height` image is within the limits.
    public func check(width: Int, height: Int) throws {
        guard width > 0, height > 0 else {
            throw ImageCodecError(.corrupt, "image size \(width)x\(height) is empty")
        }
        guard width <= maxDimension, height <= maxDimension else {
            throw ImageCodecError(.limitExceeded, "image size \(width)x\(height) exceeds the \(maxDimension) px limit")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw ImageCodecError(.limitExceeded, "image size \(width)x\(height) exceeds the \(maxPixels) pixel limit")
        }
    }

    /// Throws unless an input of `count` bytes is within the limits.
    public func check(inputBytes count: Int) throws {
        guard count <= maxInputBytes else {
            throw ImageCodecError(.limitExceeded, "input of \(count) bytes exceeds the \(maxInputBytes) byte limit")
        }
    }
}
