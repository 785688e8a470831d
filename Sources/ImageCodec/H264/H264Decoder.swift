/// The H.264 (AVC) decoder's entry points: the first intra picture of a video sample or an
/// Annex B stream, for poster frames.
///
/// Decodes Baseline, Main and High profile I pictures: 8-bit 4:2:0 or 4:0:0, frame coding,
/// CAVLC or CABAC, 4x4/8x8/16x16 intra prediction, I_PCM, scaling matrices, several slices
/// and the deblocking filter. Refused with `.unsupported`: interlaced coding (field pictures,
/// MBAFF), 4:2:2 and 4:4:4, more than 8 bits, lossless macroblocks, slice groups, data
/// partitioning, and a first picture that is not intra (P, B, SP or SI slices).
public enum H264Decoder {
    /// Decodes the first picture (IDR, or an I picture at a recovery point) from `parameterSets`
    /// (SPS and PPS NAL units without start codes or length prefixes, as avcC lists them) and `data`:
    /// one sample's NAL units, each preceded by a big-endian length of `lengthSize` (1, 2 or 4) bytes.
    public static func decode(parameterSets: [[UInt8]], data: ArraySlice<UInt8>, lengthSize: Int,
                              limits: DecodeLimits = .default) throws -> HEVCPicture {
        try limits.check(inputBytes: data.count)
        let units = parameterSets.map { $0[...] } + (try HEVCNALSplitter.lengthPrefixed(data, lengthSize: lengthSize))
        return try decodeFirstPicture(units, limits: limits)
    }

    /// Decodes the first picture of an Annex B byte stream (00 00 01 start codes), as x264 writes `.264` files.
    public static func decodeAnnexB(_ stream: [UInt8], limits: DecodeLimits = .default) throws -> HEVCPicture {
        try limits.check(inputBytes: stream.count)
        return try decodeFirstPicture(HEVCNALSplitter.annexB(stream), limits: limits)
    }

    /// Size (after cropping), chroma format, bit depth and VUI colour description from the SPS, no slice data.
    public static func streamInfo(parameterSets: [[UInt8]]) throws -> HEVCStreamInfo {
        for bytes in parameterSets {
            let unit = try H264NALUnit(bytes[...])
            guard unit.type == H264NALUnit.sps else { continue }
            let sps = try H264SequenceParameterSet.parse(unit.rbsp)
            let format: HEVCChromaFormat = [.monochrome, .yuv420, .yuv422, .yuv444][sps.chromaFormatIdc]
            return HEVCStreamInfo(width: sps.croppedWidth, height: sps.croppedHeight, chromaFormat: format,
                                  bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma,
                                  profile: sps.profile, videoSignal: sps.videoSignal)
        }
        throw ImageCodecError(.corrupt, "H.264 parameter sets hold no SPS")
    }

    /// Decodes the slices of the first picture among `units`: parameter sets are collected until
    /// its first slice, which must be intra; the picture ends at the next picture's first slice
    /// or access unit delimiter. With `limits.maxThreads` of 2 or more, reconstruction and the
    /// deblocking filter run on a second thread behind the parsing one
    /// (`H264ReconstructionWorker`), with the same result; a failed decode stops that thread
    /// before the error is thrown.
    static func decodeFirstPicture(_ units: [ArraySlice<UInt8>], limits: DecodeLimits,
                                   deblock: Bool = true) throws -> HEVCPicture {
        var decoder: H264SliceDecoder?
        do {
            return try decodeSlices(units, limits: limits, deblock: deblock, decoder: &decoder)
        } catch {
            decoder?.worker?.cancel()
            throw error
        }
    }

    private static func decodeSlices(_ units: [ArraySlice<UInt8>], limits: DecodeLimits, deblock: Bool,
                                     decoder: inout H264SliceDecoder?) throws -> HEVCPicture {
        var spss: [Int: H264SequenceParameterSet] = [:]
        var ppss: [Int: H264PictureParameterSet] = [:]
        for bytes in units {
            let unit = try H264NALUnit(bytes)
            switch unit.type {
            case H264NALUnit.sps where decoder == nil:
                let sps = try H264SequenceParameterSet.parse(unit.rbsp)
                spss[sps.id] = sps
            case H264NALUnit.pps where decoder == nil:
                let pps = try H264PictureParameterSet.parse(unit.rbsp)
                ppss[pps.id] = pps
            case H264NALUnit.accessUnitDelimiter where decoder != nil:
                return try finish(decoder!, deblock: deblock)
            case H264NALUnit.partitionA...H264NALUnit.partitionC:
                throw ImageCodecError(.unsupported, "H.264 data partitioning is not supported")
            case H264NALUnit.sliceNonIDR, H264NALUnit.sliceIDR:
                let storage = H264ByteStorage(unit.rbsp)
                var r = H264BitReader(storage)
                var header = try H264SliceHeader.parsePrefix(&r)
                if let d = decoder, header.firstMb == 0 || d.frame.mbSlice[min(header.firstMb, d.frame.mbCount - 1)] >= 0 {
                    return try finish(d, deblock: deblock)
                }
                guard let pps = ppss[header.ppsId], let sps = spss[pps.spsId] else {
                    throw ImageCodecError(.corrupt, "H.264 slice refers to a missing parameter set")
                }
                if let d = decoder, d.frame.sps.id != sps.id {
                    throw ImageCodecError(.corrupt, "H.264 slices of one picture use different sequence parameter sets")
                }
                guard header.isIntra else {
                    throw ImageCodecError(.unsupported, "H.264 picture is not intra (P, B, SP or SI slices are not decoded)")
                }
                try sps.checkSupported()
                try header.parseIntraRest(&r, nal: unit, sps: sps, pps: pps)
                if decoder == nil {
                    decoder = try makeDecoder(sps: sps, limits: limits)
                    if deblock && limits.maxThreads >= 2 { decoder!.worker = H264ReconstructionWorker.start(frame: decoder!.frame) }
                }
                try decoder!.decodeSlice(header, pps: pps, reader: r, rbsp: storage)
            default:
                continue
            }
        }
        guard let decoder else { throw ImageCodecError(.truncated, "H.264 stream holds no picture") }
        return try finish(decoder, deblock: deblock)
    }

    /// A slice decoder over a new frame, once the limits accept its size and buffers.
    private static func makeDecoder(sps: H264SequenceParameterSet, limits: DecodeLimits) throws -> H264SliceDecoder {
        try limits.check(width: sps.width, height: sps.height)
        var estimate = DecodeMemoryEstimate("H.264 \(sps.width)x\(sps.height)")
        estimate.add("picture buffers", bytes: H264Frame.bufferBytes(sps))
        estimate.add("output planes", bytes: H264Frame.outputBytes(sps))
        if limits.maxThreads >= 2 { estimate.add("reconstruction ring", bytes: H264ReconstructionWorker.ringBytes(widthInMbs: sps.widthInMbs)) }
        try limits.check(estimate)
        return H264SliceDecoder(frame: H264Frame(sps: sps))
    }

    /// Checks that every macroblock was decoded, deblocks and crops.
    private static func finish(_ decoder: H264SliceDecoder, deblock: Bool) throws -> HEVCPicture {
        let frame = decoder.frame
        for i in 0..<frame.mbCount where frame.mbSlice[i] < 0 {
            throw ImageCodecError(.truncated, "H.264 picture is missing macroblocks from \(i) on")
        }
        if let worker = decoder.worker {
            worker.finish()
        } else if deblock {
            H264Deblocking.apply(frame)
        }
        let sps = frame.sps
        return HEVCPicture(width: sps.croppedWidth, height: sps.croppedHeight, chromaFormat: sps.chromaFormat,
                           bitDepthLuma: 8, bitDepthChroma: 8, planes: frame.croppedPlanes(), videoSignal: sps.videoSignal)
    }
}
