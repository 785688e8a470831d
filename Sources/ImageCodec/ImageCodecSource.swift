/// `ImageCodec` over a `ByteSource`: the entry points for originals that may be far larger
/// than what decoding them needs. A movie reads its `moov` and one sample with positioned
/// reads, a TIFF its IFDs and one block at a time, a camera raw its IFDs and the chosen
/// preview; every other format reads the whole source (after checking its size against
/// `limits.maxInputBytes`) and goes through the byte-array API.
extension ImageCodec {
    /// The format of `source`, from its first `ImageFormat.sniffBytes` bytes.
    public static func sniff(source: ByteSource) throws -> ImageFormat? {
        ImageFormat.sniff(try source.read(offset: 0, count: min(ImageFormat.sniffBytes, source.size)))
    }

    /// `probe(_:limits:)` for a source.
    public static func probe(source: ByteSource, limits: DecodeLimits = .default) throws -> ImageInfo {
        switch try sniff(source: source) {
        case .video: return try VideoPosterDecoder.probe(source, limits: limits)
        case .tiff, .raw:
            if let raw = try RawDecoder.open(source, limits: limits) { return try RawDecoder.probe(raw, source, limits: limits) }
            return try TIFFDecoder.probe(TIFFContainer(source), limits: limits)
        default: return try probe(try wholeSource(source, limits: limits), limits: limits)
        }
    }

    /// `decode(_:scale:limits:cmyk:)` for a source. A movie gives its poster (stored
    /// orientation, like every decode here).
    public static func decode(source: ByteSource, scale: DecodeScale = .full, limits: DecodeLimits = .default,
                              cmyk: ColourTransform? = nil) throws -> DecodedImage {
        switch try sniff(source: source) {
        case .video: return try VideoPosterDecoder.decode(source, reduction: 8 / scale.numerator, limits: limits)
        case .tiff, .raw:
            if let raw = try RawDecoder.open(source, limits: limits) {
                return try RawDecoder.decode(raw, source, scale: scale.numerator, limits: limits, cmyk: cmyk)
            }
            return try TIFFDecoder.decode(TIFFContainer(source), reduction: 8 / scale.numerator, limits: limits, cmyk: cmyk)
        default: return try decode(try wholeSource(source, limits: limits), scale: scale, limits: limits, cmyk: cmyk)
        }
    }

    /// `memoryEstimate(_:scale:limits:)` for a source. For a movie the estimate includes the
    /// input bytes the decode holds (the `moov` and the poster sample), for a raw its preview's
    /// bytes, for a TIFF the largest compressed block it reads; for other formats, as in the
    /// byte-array form, the input is the caller's and is not counted.
    public static func memoryEstimate(source: ByteSource, scale: DecodeScale = .full, limits: DecodeLimits = .default) throws -> Int {
        switch try sniff(source: source) {
        case .video: return try limits.check(VideoPosterDecoder.memoryEstimate(source, reduction: 8 / scale.numerator, limits: limits))
        case .tiff, .raw:
            if let raw = try RawDecoder.open(source, limits: limits) {
                return try limits.check(RawDecoder.memoryEstimate(raw, source, scale: scale.numerator, limits: limits))
            }
            return try limits.check(TIFFDecoder.memoryEstimate(TIFFContainer(source), reduction: 8 / scale.numerator, limits: limits))
        default: return try memoryEstimate(try wholeSource(source, limits: limits), scale: scale, limits: limits)
        }
    }

    /// `source` itself for formats decoded through positioned reads (movies, TIFF, camera raw);
    /// for every other format its bytes, read once, as a `MemoryByteSource`. `probe(source:)`,
    /// `memoryEstimate(source:)` and `decode(source:)` of such a still each read the whole
    /// source, so a caller making all three calls (a render) would read the file three times:
    /// for a 7 MB JPEG thumbnail that was three 7 MB copies and their page faults.
    public static func readingStillsOnce(_ source: ByteSource, limits: DecodeLimits) throws -> ByteSource {
        switch try sniff(source: source) {
        case .video, .tiff, .raw: return source
        default: return MemoryByteSource(try wholeSource(source, limits: limits))
        }
    }

    /// All of `source`, refused before reading when over `limits.maxInputBytes`.
    public static func wholeSource(_ source: ByteSource, limits: DecodeLimits) throws -> [UInt8] {
        if let memory = source as? MemoryByteSource { return memory.bytes }
        try limits.check(inputBytes: source.size)
        return try source.read(offset: 0, count: source.size)
    }
}

extension ImageCodec {
    /// For a movie, the byte ranges that identify its content for versioning: the `moov` box
    /// (every sample's size, offset and time, the codec configuration, the metadata) and the
    /// poster sample. Hashing these with the file size stands in for hashing gigabytes: an edit
    /// that changes any sample changes the sample tables. nil for anything that is not a movie
    /// (stills are hashed whole).
    public static func identifyingRanges(source: ByteSource, limits: DecodeLimits = .default) throws -> [Range<Int>]? {
        guard try sniff(source: source) == .video else { return nil }
        let demux = try MP4Demuxer(source, limits: limits)
        return [demux.moovRange, demux.sampleOffset..<(demux.sampleOffset + demux.sampleSize)]
    }
}
