/// The one entry point the rest of the product uses: sniff, probe and decode any supported
/// image, at full size or reduced while decoding. Callers never reach into format internals.
public enum ImageCodec {
    /// Header-only probe: size, components, orientation, EXIF. Cheap; allocates no pixels.
    public static func probe(_ bytes: [UInt8], limits: DecodeLimits = .default) throws -> ImageInfo {
        try limits.check(inputBytes: bytes.count)
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return try JPEGDecoder.probe(bytes, limits: limits)
        case .png: return try PNGDecoder.probe(bytes, limits: limits)
        case .heif: return try HEIFDecoder.probe(bytes, limits: limits)
        case .webp: return try WebPDecoder.probe(bytes, limits: limits)
        case .video: return try VideoPosterDecoder.probe(MemoryByteSource(bytes), limits: limits)
        case .gif: return try GIFDecoder.probe(bytes, limits: limits)
        case .tiff, .raw: return try probe(source: MemoryByteSource(bytes), limits: limits)
        case nil: throw ImageCodecError(.notAnImage, "not a JPEG, PNG, HEIF, WebP, GIF, TIFF, camera raw or movie file")
        }
    }

    /// Decodes at `scale` of the stored size. JPEG scales in the DCT domain (libjpeg's
    /// ceil(size × M / 8)); PNG and WebP box-average rows by 8 / M as they are produced; HEIF
    /// box-averages each decoded tile into the output (its size is the displayed one).
    /// No EXIF orientation is applied: see `Orientation.apply(to:)`.
    ///
    /// `cmyk`: for CMYK and YCCK JPEGs, a transform made from their embedded profile
    /// (`ColourTransform.make(for:)` with `convertsCMYK`) replaces the naive ink inversion, so
    /// the bitmap comes out in the transform's destination; ignored for every other image.
    public static func decode(_ bytes: [UInt8], scale: DecodeScale = .full, limits: DecodeLimits = .default,
                              cmyk: ColourTransform? = nil) throws -> DecodedImage {
        try limits.check(inputBytes: bytes.count)
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return try JPEGDecoder.decode(bytes, scale: scale.numerator, limits: limits, cmyk: cmyk)
        case .png: return try PNGDecoder.decode(bytes, reduction: 8 / scale.numerator, limits: limits)
        case .heif: return try HEIFDecoder.decode(bytes, reduction: 8 / scale.numerator, limits: limits)
        case .webp: return try WebPDecoder.decode(bytes, reduction: 8 / scale.numerator, limits: limits)
        case .video: return try VideoPosterDecoder.decode(MemoryByteSource(bytes), reduction: 8 / scale.numerator, limits: limits)
        case .gif: return try GIFDecoder.decode(bytes, reduction: 8 / scale.numerator, limits: limits)
        case .tiff, .raw: return try decode(source: MemoryByteSource(bytes), scale: scale, limits: limits, cmyk: cmyk)
        case nil: throw ImageCodecError(.notAnImage, "not a JPEG, PNG, HEIF, WebP, GIF, TIFF, camera raw or movie file")
        }
    }

    /// The bytes `decode(bytes, scale:, limits:)` would allocate for its buffers (the figure
    /// it checks against `limits.maxMemoryBytes`), from the headers alone: nothing is
    /// inflated or decoded. Callers that run several decodes at once use it to share a memory
    /// budget before starting one. Throws what `decode` would throw for damaged or
    /// unsupported headers and `.limitExceeded` when the decode would be refused; problems in
    /// the compressed data itself show up only when decoding.
    public static func memoryEstimate(_ bytes: [UInt8], scale: DecodeScale = .full, limits: DecodeLimits = .default) throws -> Int {
        try limits.check(inputBytes: bytes.count)
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return try limits.check(JPEGDecoder.memoryEstimate(bytes, scale: scale.numerator, limits: limits))
        case .png: return try limits.check(PNGDecoder.memoryEstimate(bytes, reduction: 8 / scale.numerator, limits: limits))
        case .heif: return try limits.check(HEIFDecoder.memoryEstimate(bytes, reduction: 8 / scale.numerator, limits: limits))
        case .webp: return try limits.check(WebPDecoder.memoryEstimate(bytes, reduction: 8 / scale.numerator, limits: limits))
        case .video: return try limits.check(VideoPosterDecoder.memoryEstimate(MemoryByteSource(bytes), reduction: 8 / scale.numerator, limits: limits))
        case .gif: return try limits.check(GIFDecoder.memoryEstimate(bytes, reduction: 8 / scale.numerator, limits: limits))
        case .tiff, .raw: return try memoryEstimate(source: MemoryByteSource(bytes), scale: scale, limits: limits)
        case nil: throw ImageCodecError(.notAnImage, "not a JPEG, PNG, HEIF, WebP, GIF, TIFF, camera raw or movie file")
        }
    }

    /// Decodes an embedded thumbnail (one of `probe(bytes).embeddedThumbnails`) at `scale` of
    /// its own size, transforms applied. Use it instead of `decode` when the thumbnail covers
    /// the pixels a render needs: a 480 px render of an iPhone photo from its 320 px item is
    /// not good enough, a 240 px one is, and costs a single small HEVC picture.
    public static func decodeThumbnail(_ bytes: [UInt8], _ thumbnail: EmbeddedThumbnail, scale: DecodeScale = .full,
                                       limits: DecodeLimits = .default) throws -> DecodedImage {
        try limits.check(inputBytes: bytes.count)
        guard ImageFormat.sniff(bytes) == .heif else { throw ImageCodecError(.invalidArgument, "only HEIF files carry embedded thumbnails") }
        return try HEIFDecoder.decodeThumbnail(bytes, index: thumbnail.index, reduction: 8 / scale.numerator, limits: limits)
    }

    /// The bytes `decodeThumbnail` would allocate (see `memoryEstimate`).
    public static func thumbnailMemoryEstimate(_ bytes: [UInt8], _ thumbnail: EmbeddedThumbnail, scale: DecodeScale = .full,
                                               limits: DecodeLimits = .default) throws -> Int {
        try limits.check(inputBytes: bytes.count)
        guard ImageFormat.sniff(bytes) == .heif else { throw ImageCodecError(.invalidArgument, "only HEIF files carry embedded thumbnails") }
        return try limits.check(HEIFDecoder.thumbnailMemoryEstimate(bytes, index: thumbnail.index, reduction: 8 / scale.numerator, limits: limits))
    }

    /// The smallest reduction whose output is still at least `minWidth` × `minHeight` in stored
    /// orientation: what a thumbnail needs before an exact resample.
    public static func scale(for info: ImageInfo, minWidth: Int, minHeight: Int) -> DecodeScale {
        for candidate in [DecodeScale.eighth, .quarter, .half] {
            let (w, h) = candidate.outputSize(width: info.width, height: info.height)
            if w >= minWidth && h >= minHeight { return candidate }
        }
        return .full
    }
}

/// A decode-time reduction of M/8, for M in 1, 2, 4, 8.
public struct DecodeScale: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// M in M/8.
    public let numerator: Int

    public init(numerator: Int) throws {
        guard [1, 2, 4, 8].contains(numerator) else {
            throw ImageCodecError(.invalidArgument, "scale \(numerator)/8 is not one of 1/8, 2/8, 4/8, 8/8")
        }
        self.numerator = numerator
    }

    private init(unchecked numerator: Int) { self.numerator = numerator }

    public static let full = DecodeScale(unchecked: 8)
    public static let half = DecodeScale(unchecked: 4)
    public static let quarter = DecodeScale(unchecked: 2)
    public static let eighth = DecodeScale(unchecked: 1)

    /// libjpeg's output size for this scale: ceil(size × M / 8). PNG reduction gives the same.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width * numerator + 7) / 8, (height * numerator + 7) / 8)
    }

    public var description: String { "\(numerator)/8" }
}
