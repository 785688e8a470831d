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
    /// Largest total of the buffers one decode allocates at the requested scale: the output
    /// bitmap, a multi-scan JPEG's coefficient store, row and band buffers, a reduced Adam7
    /// PNG's block sums. Estimated from the headers before the first of them is allocated.
    /// The input bytes and fixed-size tables (Huffman, zlib state: well under 1 MiB) are not
    /// counted. 768 MiB by default.
    ///
    /// Why 768 MiB: the pixel limit alone lets a file of a few hundred bytes claim 100 MP of
    /// 4:4:4 progressive JPEG, whose full-size decode holds 640 MB of coefficients (850 MB
    /// with four components) plus a 300 MB bitmap. Under this default a 100 MP image still
    /// decodes at full size as a sequential JPEG (300 MB), a 4:2:0 or 4:2:2 progressive JPEG
    /// (620 and 730 MB) or a PNG (at most 400 MB), and in any form at 4/8 (worst, four-component
    /// 4:4:4 progressive: 740 MB), the scale the pipeline uses for its largest render of it.
    /// Refused at full size: 4:4:4 multi-scan JPEGs above about 85 MP (70 MP with four
    /// components). A server's worst case is this times the decodes it runs at once.
    public var maxMemoryBytes: Int
    /// Most threads one decode may use, the calling thread included. Only HEIF grids use more
    /// than one (their tiles decode in parallel; each thread in flight holds one tile's
    /// buffers, counted in the memory estimate). 2 by default: the cores of the machines this
    /// runs on, and a fixed number so that estimates do not change from machine to machine.
    /// A server that already runs as many renders as it has cores gains nothing from more and
    /// may set 1 (values below 1 count as 1).
    public var maxThreads: Int

    public init(maxPixels: Int = 100_000_000, maxDimension: Int = 65_500, maxScans: Int = 1_000,
                maxInputBytes: Int = 256 << 20, maxMetadataBytes: Int = 8 << 20, maxMemoryBytes: Int = 768 << 20,
                maxThreads: Int = 2) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxScans = maxScans
        self.maxInputBytes = maxInputBytes
        self.maxMetadataBytes = maxMetadataBytes
        self.maxMemoryBytes = maxMemoryBytes
        self.maxThreads = maxThreads
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

    /// Throws unless the buffers of `estimate` fit in `maxMemoryBytes`; returns their total.
    /// Decoders call it after reading the headers and before allocating any of those buffers,
    /// and `ImageCodec.memoryEstimate` calls it for the same answer without decoding.
    @discardableResult
    func check(_ estimate: DecodeMemoryEstimate) throws -> Int {
        guard let total = estimate.total, total <= maxMemoryBytes else {
            throw ImageCodecError(.limitExceeded, "\(estimate), over the \(maxMemoryBytes) byte memory limit")
        }
        return total
    }
}
