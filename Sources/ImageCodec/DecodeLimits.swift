/// Bounds checked against the headers before any large allocation, so a hostile file fails
/// fast with `ImageCodecError.Kind.limitExceeded` instead of exhausting memory.
public struct DecodeLimits: Sendable, Equatable {
    /// Largest width × height of the stored image. 256 MP by default.
    ///
    /// Why 256 MP: 200 MP phone sensors (Samsung's 16320×12240, 16384×12288 with margins)
    /// write HEIC grids and JPEGs of that size, and people keep them. The pixel count is not
    /// what protects the server: `maxMemoryBytes` is, because every decoder estimates its
    /// buffers at the requested scale from the headers and refuses before allocating. A 480 px
    /// thumbnail of a 200 MP grid reduces each tile into the 1/8 output as it arrives (about
    /// 50 MB of buffers); a sequential 200 MP JPEG at 1/8 holds a 9 MB output and a few MCU
    /// rows; a PNG reduces its rows as they are inflated; a WebP is at most 16383×16383 and
    /// its lossless form holds the full ARGB picture, which the estimate refuses above
    /// `maxMemoryBytes`. What a bigger limit could cost is time, and time follows the
    /// coded bytes, not the headers: JPEG and PNG data must be there to be decoded (a
    /// truncated JPEG's missing MCUs are grey and cheap), and HEIF grids, which can name
    /// tiny coded items many times, are bounded by `maxPixelsPerCodedByte`. The format's
    /// own bounds stay below it: 65535×65535 is refused by `maxDimension` and the pixel count.
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
    /// Why 768 MiB: the pixel limit alone lets a file of a few hundred bytes claim 256 MP of
    /// 4:4:4 progressive JPEG, whose full-size decode would hold 1.6 GB of coefficients plus a
    /// 770 MB bitmap; already at 100 MP that is 640 MB (850 MB with four components) plus a
    /// 300 MB bitmap. Under this default a 100 MP image still
    /// decodes at full size as a sequential JPEG (300 MB), a 4:2:0 or 4:2:2 progressive JPEG
    /// (620 and 730 MB) or a PNG (at most 400 MB), and in any form at 4/8 (worst, four-component
    /// 4:4:4 progressive: 740 MB), the scale the pipeline uses for its largest render of it.
    /// Refused at full size: 4:4:4 multi-scan JPEGs above about 85 MP (70 MP with four
    /// components); streamed by `ImageCodec.decodeRows`, which counts a group of rows of about
    /// 128 KB instead of the bitmap, above about 126 MP (95 MP with four components).
    /// A 200 MP image decodes at 4/8 as a sequential JPEG, a PNG or a HEIF grid,
    /// and at 1/8 (thumbnails) in any form. A server's worst case is this times the decodes
    /// it runs at once.
    public var maxMemoryBytes: Int
    /// Most threads one decode may use, the calling thread included. Only HEIF grids use more
    /// than one (their tiles decode in parallel; each thread in flight holds one tile's
    /// buffers, counted in the memory estimate). 2 by default: the cores of the machines this
    /// runs on, and a fixed number so that estimates do not change from machine to machine.
    /// A server that already runs as many renders as it has cores gains nothing from more and
    /// may set 1 (values below 1 count as 1).
    public var maxThreads: Int
    /// The work bound of HEIF images made of several coded pictures (grid tiles, overlay
    /// inputs, alpha): the pixels of all pictures one decode would decode may exceed
    /// `freeDecodedPixels` (16.7 MP) by at most this many per byte of coded data they are
    /// decoded from, counted once however often it is used. 16,384 by default.
    ///
    /// Why: a file of a few KB can name one small coded tile (or several items sharing one
    /// byte range through `iloc`, or overlapping ranges) hundreds of times, and each use is a
    /// full HEVC decode: 768 uses of a 512×512 tile are 200 MP, seconds of CPU from 3 KB.
    /// The pixel and memory limits do not see it (one tile in flight at a time). Real photos
    /// are far inside the bound: x265's cheapest 512×512 tile (one flat colour) takes 110
    /// bytes, 2,400 pixels per byte, so even a black 200 MP photo (87 KB of tiles) passes,
    /// and camera photos spend 1-4 bits per pixel. Anything below 16.7 MP passes whatever its
    /// size (a single HEVC picture of that size costs well under a second). A refused file
    /// throws `.limitExceeded` while its items are resolved, before anything is decoded.
    public var maxPixelsPerCodedByte: Int

    /// Decoded pixels a HEIF decode may spend without any coded bytes behind them (2^24,
    /// 16.7 MP): see `maxPixelsPerCodedByte`.
    public static let freeDecodedPixels = 1 << 24

    public init(maxPixels: Int = 256_000_000, maxDimension: Int = 65_500, maxScans: Int = 1_000,
                maxInputBytes: Int = 256 << 20, maxMetadataBytes: Int = 8 << 20, maxMemoryBytes: Int = 768 << 20,
                maxThreads: Int = 2, maxPixelsPerCodedByte: Int = 16_384) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxScans = maxScans
        self.maxInputBytes = maxInputBytes
        self.maxMetadataBytes = maxMetadataBytes
        self.maxMemoryBytes = maxMemoryBytes
        self.maxThreads = maxThreads
        self.maxPixelsPerCodedByte = maxPixelsPerCodedByte
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
