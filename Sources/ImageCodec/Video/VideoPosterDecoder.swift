/// The poster of a movie: its first sync picture (or the sync picture where the edit list
/// starts), decoded from one sample read with a positioned read, converted to RGB and
/// box-averaged to the requested scale. The bitmap is in stored orientation, like a JPEG's;
/// `info.orientation` carries the display matrix and the caller turns the small result.
///
/// SDR pictures go through `HEIFColourConverter` (the HEIC path: matrix, range and code
/// points from `colr`, else the SPS VUI). HLG and PQ pictures go through `VideoToneMapper`
/// and come out tagged BT.2020 primaries with the sRGB curve.
enum VideoPosterDecoder {
    static func probe(_ source: ByteSource, limits: DecodeLimits) throws -> ImageInfo {
        let demux = try MP4Demuxer(source, limits: limits)
        return info(demux, stream: try streamInfo(demux, source))
    }

    /// Size, chroma format, depth and signal of the poster's coded pictures.
    static func streamInfo(_ demux: MP4Demuxer, _ source: ByteSource) throws -> HEVCStreamInfo {
        switch demux.entry.coding {
        case .hevc: return try HEVCDecoder.streamInfo(parameterSets: try hevcConfiguration(demux, source).parameterSets)
        case .avc(let config): return try h264StreamInfo(config, entry: demux.entry)
        case .other: throw ImageCodecError(.unsupported, "'\(demux.entry.format)' video is not decoded")
        }
    }

    /// The track's `hvcC`, with the poster sample's own VPS, SPS and PPS added when `hvcC`
    /// lists no SPS (`hev1` allows parameter sets in the stream only); costs the probe one
    /// sample read in that case.
    static func hevcConfiguration(_ demux: MP4Demuxer, _ source: ByteSource, sample known: [UInt8]? = nil) throws -> HEVCConfiguration {
        guard case .hevc(var config) = demux.entry.coding else { throw ImageCodecError(.invalidArgument, "not an HEVC track") }
        let isSPS = { (unit: [UInt8]) in unit.first.map { ($0 >> 1) & 0x3F == 33 } ?? false }
        guard !config.parameterSets.contains(where: isSPS) else { return config }
        let sample = try known ?? demux.readSample(source)
        for unit in try HEVCNALSplitter.lengthPrefixed(sample[...], lengthSize: config.lengthSize) {
            guard let first = unit.first, (32...34).contains((first >> 1) & 0x3F) else { continue }
            config.parameterSets.append(Array(unit))
        }
        return config
    }

    /// The stream's own colour description: `colr`, else the VUI.
    static func streamCodePoints(_ demux: MP4Demuxer, _ stream: HEVCStreamInfo) -> ColourCodePoints? {
        if let c = demux.entry.colour { return c }
        let s = stream.videoSignal
        guard s.colourPrimaries != nil || s.transferCharacteristics != nil || s.matrixCoefficients != nil else { return nil }
        return ColourCodePoints(primaries: s.colourPrimaries ?? 2, transfer: s.transferCharacteristics ?? 2,
                                matrix: s.matrixCoefficients ?? 2, fullRange: s.fullRange ?? false)
    }

    static func isHDR(_ codePoints: ColourCodePoints?) -> Bool { codePoints?.transfer == 16 || codePoints?.transfer == 18 }

    static func info(_ demux: MP4Demuxer, stream: HEVCStreamInfo) -> ImageInfo {
        let code = streamCodePoints(demux, stream)
        let sampling: String
        switch stream.chromaFormat {
        case .monochrome: sampling = "4:0:0"
        case .yuv420: sampling = "4:2:0"
        case .yuv422: sampling = "4:2:2"
        case .yuv444: sampling = "4:4:4"
        }
        // The poster's pixels: tone-mapped HDR is BT.2020 (or the stream's primaries) with the sRGB curve.
        let posterCode = isHDR(code) ? ColourCodePoints(primaries: code!.primaries == 2 ? 9 : code!.primaries, transfer: 13, matrix: 0, fullRange: true) : code
        var info = ImageInfo(format: .video, width: stream.width, height: stream.height, components: stream.chromaFormat == .monochrome ? 1 : 3,
                             hasAlpha: false, bitDepth: stream.bitDepthLuma, progressive: false,
                             colorSpace: stream.chromaFormat == .monochrome ? "Gray" : "YCbCr", sampling: [sampling], exif: demux.exif,
                             codePoints: posterCode)
        info.video = demux.videoInfo(codePoints: code)
        return info
    }

    /// Output bitmap, the decoded picture's 16-bit planes (coded size, up to a CTB larger than
    /// the cropped one), the converted row and block sums, and the input bytes held: `moov`
    /// and the poster sample.
    static func estimate(_ demux: MP4Demuxer, stream: HEVCStreamInfo, reduction f: Int) -> DecodeMemoryEstimate {
        let w = stream.width, h = stream.height
        let channels = stream.chromaFormat == .monochrome ? 1 : 3
        let (cx, cy) = stream.chromaFormat.subsampling
        let outW = (w + f - 1) / f, outH = (h + f - 1) / f
        var e = DecodeMemoryEstimate("video poster \(w)x\(h) at \(8 / f)/8")
        e.add("output", outW, outH, channels)
        let coded = DecodeMemoryEstimate.product([w + 64, h + 64])
        e.add("luma plane", bytes: coded.flatMap { DecodeMemoryEstimate.product([$0, 2]) })
        if stream.chromaFormat != .monochrome {
            e.add("chroma planes", bytes: coded.flatMap { DecodeMemoryEstimate.product([$0 / (cx * cy) + w + h + 129, 4]) })
        }
        e.add("row", w, channels)
        if f > 1 { e.add("block sums", outW, channels, 4) }
        e.add("moov", demux.moovBytes.count)
        e.add("sample", demux.sampleSize)
        return e
    }

    static func memoryEstimate(_ source: ByteSource, reduction: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        let demux = try MP4Demuxer(source, limits: limits)
        let stream = try streamInfo(demux, source)
        try limits.check(width: stream.width, height: stream.height)
        return estimate(demux, stream: stream, reduction: reduction)
    }

    static func decode(_ source: ByteSource, reduction: Int, limits: DecodeLimits) throws -> DecodedImage {
        let demux = try MP4Demuxer(source, limits: limits)
        let stream = try streamInfo(demux, source)
        try limits.check(width: stream.width, height: stream.height)
        try limits.check(estimate(demux, stream: stream, reduction: reduction))
        let sample = try demux.readSample(source)
        // The decoder may not claim more than the SPS it was probed with.
        var tight = limits
        tight.maxPixels = min(limits.maxPixels, (stream.width + 64) * (stream.height + 64))
        tight.maxDimension = min(limits.maxDimension, max(stream.width, stream.height) + 64)
        let picture: HEVCPicture
        switch demux.entry.coding {
        case .hevc:
            let config = try hevcConfiguration(demux, source, sample: sample)
            picture = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: sample[...], lengthSize: config.lengthSize, limits: tight)
        case .avc(let config):
            picture = try decodeH264(config, data: sample[...], limits: tight)
        case .other:
            throw ImageCodecError(.unsupported, "'\(demux.entry.format)' video is not decoded")
        }
        let info = info(demux, stream: stream)
        let bitmap = try VideoPosterRows.render(picture, expected: stream, codePoints: streamCodePoints(demux, stream), reduction: reduction)
        return DecodedImage(bitmap: bitmap, info: info)
    }

    // MARK: - H.264

    /// The poster picture of an `avc1`/`avc3` track: our H.264 intra decoder (docs/h264.md).
    static func decodeH264(_ config: AVCConfiguration, data: ArraySlice<UInt8>, limits: DecodeLimits) throws -> HEVCPicture {
        try H264Decoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize, limits: limits)
    }

    /// Size, chroma format, bit depth and colour description from the track's SPS; a track
    /// whose SPS does not parse is refused as the decode would refuse it.
    static func h264StreamInfo(_ config: AVCConfiguration, entry: MP4SampleEntry) throws -> HEVCStreamInfo {
        try H264Decoder.streamInfo(parameterSets: config.parameterSets)
    }
}
