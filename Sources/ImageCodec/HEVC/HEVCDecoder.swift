/// The HEVC (H.265) still-picture decoder's entry points: one intra picture from parameter
/// sets and coded slices, as an HEIF image item or a raw Annex B stream carries it.
///
/// Decodes Main, Main 10, Main Still Picture and format-range-extension streams that use only
/// their Main tools: 4:2:0 or 4:0:0, 8 to 10 bits, I slices. Anything else (inter slices,
/// 4:2:2/4:4:4, higher bit depths, range extension coding tools) is refused with
/// `.unsupported` rather than decoded wrongly.
public enum HEVCDecoder {
    /// Decodes one intra picture from `parameterSets` (VPS, SPS, PPS and any SEI NAL units,
    /// without start codes or length prefixes, as hvcC lists them) and `data`: the item's NAL
    /// units, each preceded by a big-endian length of `lengthSize` (1, 2 or 4) bytes.
    public static func decode(parameterSets: [[UInt8]], data: ArraySlice<UInt8>, lengthSize: Int,
                              limits: DecodeLimits = .default) throws -> HEVCPicture {
        try decode(parameterSets: parameterSets, data: data, lengthSize: lengthSize, limits: limits, stop: nil)
    }

    /// `decode`, giving up with an error at the next CTB row once `stop()` is true: a grid
    /// decoded on several threads stops the tiles whose pixels a failed tile has made moot.
    static func decode(parameterSets: [[UInt8]], data: ArraySlice<UInt8>, lengthSize: Int, limits: DecodeLimits,
                       stop: (() -> Bool)?) throws -> HEVCPicture {
        try limits.check(inputBytes: data.count)
        let units = parameterSets.map { $0[...] } + (try HEVCNALSplitter.lengthPrefixed(data, lengthSize: lengthSize))
        return try decodeFirstPicture(units, limits: limits, loopFilters: true, stop: stop)
    }

    /// Decodes one intra picture like `decode`, handing it to `sink` in bands of finished lines
    /// from top to bottom (see `HEVCRowStream`) while holding only two CTB rows of it, or, when
    /// its CTBs do not come in raster order (more than one tile column), decoding it whole and
    /// handing it out as one band. The bands' pixels are those of `decode`.
    static func decodeRows(parameterSets: [[UInt8]], data: ArraySlice<UInt8>, lengthSize: Int, limits: DecodeLimits,
                           sink: @escaping (HEVCRowBand) throws -> Void) throws {
        try limits.check(inputBytes: data.count)
        let units = parameterSets.map { $0[...] } + (try HEVCNALSplitter.lengthPrefixed(data, lengthSize: lengthSize))
        let decoder = try decodeSlices(units, limits: limits, stop: nil, sink: sink, loopFilters: true)
        let frame = decoder.frame
        if frame.windowed {
            try decoder.stream?.finish()
            return
        }
        try sink(HEVCRowBand(sps: frame.sps, planes: try finishedPlanes(frame, loopFilters: true), top: 0, rows: 0..<frame.height))
    }

    /// Bytes `decodeRows` allocates for the picture `parameterSets` describe, or nil when it
    /// would decode it whole (or cannot tell): the estimate a streamed caller reserves.
    static func rowStreamBytes(parameterSets: [[UInt8]]) -> Int? {
        var sps: HEVCSequenceParameterSet?
        var ppss: [HEVCPictureParameterSet] = []
        for bytes in parameterSets {
            guard let unit = try? HEVCNALUnit(bytes[...]), unit.layerId == 0 else { continue }
            if unit.type == HEVCNALUnit.sps, sps == nil { sps = try? HEVCSequenceParameterSet.parse(unit.rbsp) }
            if unit.type == HEVCNALUnit.pps, let pps = try? HEVCPictureParameterSet.parse(unit.rbsp) { ppss.append(pps) }
        }
        guard let sps, !ppss.isEmpty else { return nil }
        for pps in ppss {
            guard let layout = try? HEVCTileLayout(sps: sps, pps: pps), HEVCFrame.canWindow(layout) else { return nil }
        }
        return HEVCFrame.windowBytes(sps)
    }

    /// Decodes the first picture of an Annex B byte stream (NAL units after 00 00 01 start
    /// codes), the form `.265` files and reference decoders use.
    public static func decodeAnnexB(_ stream: [UInt8], limits: DecodeLimits = .default) throws -> HEVCPicture {
        try limits.check(inputBytes: stream.count)
        return try decodeFirstPicture(HEVCNALSplitter.annexB(stream), limits: limits, loopFilters: true)
    }

    /// Size, chroma format and bit depths from the SPS among `parameterSets`, for probing and
    /// memory estimates; decodes no slice data.
    public static func streamInfo(parameterSets: [[UInt8]]) throws -> HEVCStreamInfo {
        for bytes in parameterSets {
            let unit = try HEVCNALUnit(bytes[...])
            guard unit.type == HEVCNALUnit.sps, unit.layerId == 0 else { continue }
            let sps = try HEVCSequenceParameterSet.parse(unit.rbsp)
            return HEVCStreamInfo(width: sps.croppedWidth, height: sps.croppedHeight, chromaFormat: sps.chromaFormat,
                                  bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma,
                                  profile: sps.profile, videoSignal: sps.videoSignal)
        }
        throw ImageCodecError(.corrupt, "HEVC parameter sets hold no SPS")
    }

    /// Whether `applyLoopFilters` runs deblocking and SAO.
    static let loopFiltersAvailable = true

    /// The in-loop filters on the decoded (uncropped) planes: the single call site of
    /// `HEVCLoopFilter.apply(to:map:chromaFormat:bitDepthLuma:bitDepthChroma:)`.
    static func applyLoopFilters(_ planes: inout [HEVCPlane], map: HEVCFilterMap, sps: HEVCSequenceParameterSet) {
        HEVCLoopFilter.apply(to: &planes, map: map, chromaFormat: sps.chromaFormat,
                             bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma)
    }

    /// Decodes the first picture among `units`. `loopFilters` false gives the reconstruction
    /// before deblocking and SAO (tests compare it with a reference decoder's).
    /// `wavefront` says whether wavefront rows may run on two threads (tests decode both ways).
    static func decodeFirstPicture(_ units: [ArraySlice<UInt8>], limits: DecodeLimits,
                                   loopFilters: Bool, stop: (() -> Bool)? = nil,
                                   wavefront: HEVCWavefrontMode = .automatic) throws -> HEVCPicture {
        let frame = try decodeSlices(units, limits: limits, stop: stop, sink: nil, loopFilters: loopFilters,
                                     wavefront: wavefront).frame
        return crop(try finishedPlanes(frame, loopFilters: loopFilters), sps: frame.sps)
    }

    /// The whole picture's planes, loop-filtered when asked, once every CTB has been decoded.
    private static func finishedPlanes(_ frame: HEVCFrame, loopFilters: Bool) throws -> [HEVCPlane] {
        try checkDecoded(frame, ctbRows: 0..<frame.layout.heightInCtbs)
        var planes = frame.planeArrays()
        if loopFilters && loopFiltersAvailable {
            applyLoopFilters(&planes, map: frame.filterMap(), sps: frame.sps)
        }
        return planes
    }

    /// Throws `.truncated` unless every CTB of `ctbRows` has been decoded.
    static func checkDecoded(_ frame: HEVCFrame, ctbRows: Range<Int>) throws {
        let w = frame.layout.widthInCtbs
        for i in (ctbRows.lowerBound * w)..<(ctbRows.upperBound * w) where frame.ctbSliceAddress[i] < 0 {
            throw ImageCodecError(.truncated, "HEVC picture is missing slice data")
        }
    }

    /// Runs the slices of the first picture among `units` through one slice decoder. With a
    /// `sink`, the frame is windowed when the picture allows it and its rows go to the sink as
    /// they finish (through the decoder's `stream`).
    static func decodeSlices(_ units: [ArraySlice<UInt8>], limits: DecodeLimits, stop: (() -> Bool)?,
                                     sink: ((HEVCRowBand) throws -> Void)?, loopFilters: Bool,
                                     wavefront: HEVCWavefrontMode = .automatic) throws -> HEVCSliceDecoder {
        var spss: [Int: HEVCSequenceParameterSet] = [:]
        var ppss: [Int: HEVCPictureParameterSet] = [:]
        var decoder: HEVCSliceDecoder?
        var previous: HEVCSliceHeader?
        nalUnits: for bytes in units {
            let unit = try HEVCNALUnit(bytes)
            guard unit.layerId == 0 else { continue }
            switch unit.type {
            case HEVCNALUnit.sps:
                let sps = try HEVCSequenceParameterSet.parse(unit.rbsp)
                if decoder == nil { spss[sps.id] = sps }
            case HEVCNALUnit.pps:
                let pps = try HEVCPictureParameterSet.parse(unit.rbsp)
                if decoder == nil { ppss[pps.id] = pps }
            case 0...21:
                guard (0...9).contains(unit.type) || (16...21).contains(unit.type) else { continue }
                let firstInPicture = unit.rbsp.first.map { $0 & 0x80 != 0 } ?? false
                if decoder == nil {
                    guard firstInPicture else { continue }
                    let ppsId = try HEVCSliceHeader.ppsId(unit)
                    guard let pps = ppss[ppsId], let sps = spss[pps.spsId] else {
                        throw ImageCodecError(.corrupt, "HEVC slice refers to a missing parameter set")
                    }
                    let d = try makeDecoder(sps: sps, pps: pps, limits: limits, windowed: sink != nil)
                    d.stop = stop
                    // A caller that allows one thread (a busy server, or a grid whose tiles
                    // already run on several) keeps the rows on its own.
                    d.wavefront = limits.maxThreads >= 2 ? wavefront : .serial
                    if let sink, d.frame.windowed {
                        let stream = HEVCRowStream(frame: d.frame, loopFilters: loopFilters, sink: sink)
                        d.stream = stream
                        d.startRow = { try stream.start(row: $0) }
                    }
                    decoder = d
                } else if firstInPicture {
                    break nalUnits
                }
                guard let d = decoder else { continue }
                if try HEVCSliceHeader.ppsId(unit) != d.pps.id {
                    throw ImageCodecError(.unsupported, "HEVC picture switches parameter sets between slices")
                }
                let header = try HEVCSliceHeader.parse(unit, sps: d.sps, pps: d.pps, inheriting: previous)
                try d.decode(unit, header: header)
                previous = header
            default:
                continue
            }
        }
        guard let decoder else { throw ImageCodecError(.truncated, "HEVC stream holds no picture") }
        return decoder
    }

    /// A slice decoder over a new frame, windowed when asked for and the layout allows it,
    /// once the limits accept what that frame and its filtering allocate.
    private static func makeDecoder(sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet,
                                    limits: DecodeLimits, windowed: Bool) throws -> HEVCSliceDecoder {
        try limits.check(width: sps.width, height: sps.height)
        let layout = try HEVCTileLayout(sps: sps, pps: pps)
        let window = windowed && HEVCFrame.canWindow(layout)
        var estimate = DecodeMemoryEstimate("HEVC \(sps.width)x\(sps.height)")
        if window {
            estimate.add("two CTB rows and their filtering", bytes: HEVCFrame.windowBytes(sps))
        } else {
            estimate.add("picture buffers", bytes: HEVCFrame.bufferBytes(sps))
            estimate.add("output planes", bytes: HEVCFrame.sampleBytes(sps))
            estimate.add("filter map", bytes: DecodeMemoryEstimate.product([(sps.width + 3) / 4, (sps.height + 3) / 4, 4]))
        }
        try limits.check(estimate)
        return HEVCSliceDecoder(frame: HEVCFrame(sps: sps, pps: pps, layout: layout, windowed: window))
    }

    /// Crops the decoded planes to the conformance window.
    private static func crop(_ planes: [HEVCPlane], sps: HEVCSequenceParameterSet) -> HEVCPicture {
        let (sx, sy) = sps.chromaFormat.subsampling
        var out: [HEVCPlane] = []
        for (i, plane) in planes.enumerated() {
            let dx = i == 0 ? 1 : sx, dy = i == 0 ? 1 : sy
            let left = sps.cropLeft / dx, top = sps.cropTop / dy
            let w = (sps.width - sps.cropLeft - sps.cropRight) / dx
            let h = (sps.height - sps.cropTop - sps.cropBottom) / dy
            if left == 0 && top == 0 && w == plane.width && h == plane.height {
                out.append(plane)
                continue
            }
            var samples = [UInt16]()
            samples.reserveCapacity(w * h)
            for y in 0..<h {
                let start = (top + y) * plane.width + left
                samples.append(contentsOf: plane.samples[start..<(start + w)])
            }
            out.append(HEVCPlane(width: w, height: h, samples: samples))
        }
        return HEVCPicture(width: sps.croppedWidth, height: sps.croppedHeight, chromaFormat: sps.chromaFormat,
                           bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma, planes: out,
                           videoSignal: sps.videoSignal)
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
