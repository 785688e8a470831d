/// Receives a decode's output a group of rows at a time (`ImageCodec.decodeRows`), so a caller
/// that writes rows out as they come (a PPM, an encoder that takes rows) never needs the whole
/// bitmap in memory.
public protocol DecodedRowSink: AnyObject {
    /// Called once, before any rows, with the output's size and layout (as `Bitmap` would have
    /// them). Throwing here ends the decode with that error.
    func begin(width: Int, height: Int, layout: Bitmap.Layout) throws

    /// `count` rows starting at output row `first`, tightly packed (`width × channels` bytes a
    /// row). The buffer is the decoder's and is reused for the next rows: copy what you keep.
    /// Rows come top to bottom, each group after the one above it, with one exception: a
    /// progressive JPEG whose scans turn out, after its last row, not to end where its
    /// layout said is decoded again the whole-image way, from row 0 (the rows of the second
    /// pass are the ones that count). Throwing here ends the decode with that error.
    func write(_ rows: UnsafeBufferPointer<UInt8>, first: Int, count: Int) throws
}

/// What `ImageCodec.decodeRows` returns once every row has gone to the sink.
public struct DecodedRows: Sendable {
    /// The header's description of the image, as `DecodedImage.info`.
    public var info: ImageInfo
    /// Recoverable problems, as `DecodedImage.warnings`.
    public var warnings: [String]

    public init(info: ImageInfo, warnings: [String] = []) {
        self.info = info
        self.warnings = warnings
    }
}

extension ImageCodec {
    /// `decode(_:scale:limits:cmyk:)` handing the pixels to `sink` a group of rows at a time
    /// instead of returning a bitmap; the rows are the same bytes, in stored orientation. A JPEG
    /// (baseline or progressive) is converted one iMCU row at a time into one reused buffer of
    /// about 128 KB, handed over each time it is full, so the whole bitmap is never allocated,
    /// and `limits.maxMemoryBytes` is checked against that buffer instead of the bitmap. A WebP
    /// at full size keeps its YUV planes (or ARGB pixels) and hands the RGB(A) rows over 16 at a
    /// time from one buffer, the limit counting that buffer too. Every other format (and a WebP
    /// at a reduced scale) is decoded whole and handed over as one group.
    public static func decodeRows(_ bytes: [UInt8], scale: DecodeScale = .full, limits: DecodeLimits = .default,
                                  cmyk: ColourTransform? = nil, into sink: any DecodedRowSink) throws -> DecodedRows {
        try limits.check(inputBytes: bytes.count)
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return try JPEGDecoder.decodeRows(bytes, scale: scale.numerator, limits: limits, cmyk: cmyk, into: sink)
        case .webp where scale == .full: return try WebPDecoder.decodeRows(bytes, limits: limits, into: sink)
        default: break
        }
        return try handOver(try decode(bytes, scale: scale, limits: limits, cmyk: cmyk), to: sink)
    }

    /// `decodeRows(_:scale:limits:cmyk:into:)` for a source (movies, TIFF and raws through
    /// positioned reads, as `decode(source:)` reads them, handed over as one group).
    public static func decodeRows(source: ByteSource, scale: DecodeScale = .full, limits: DecodeLimits = .default,
                                  cmyk: ColourTransform? = nil, into sink: any DecodedRowSink) throws -> DecodedRows {
        switch try sniff(source: source) {
        case .video, .tiff, .raw: return try handOver(try decode(source: source, scale: scale, limits: limits, cmyk: cmyk), to: sink)
        default: return try decodeRows(try wholeSource(source, limits: limits), scale: scale, limits: limits, cmyk: cmyk, into: sink)
        }
    }

    private static func handOver(_ decoded: DecodedImage, to sink: any DecodedRowSink) throws -> DecodedRows {
        let b = decoded.bitmap
        try sink.begin(width: b.width, height: b.height, layout: b.layout)
        try b.pixels.withUnsafeBufferPointer { try sink.write($0, first: 0, count: b.height) }
        return DecodedRows(info: decoded.info, warnings: decoded.warnings)
    }
}
