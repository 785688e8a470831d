/// The picture parameter set (H.265 7.3.2.3) and the tile layout it implies (6.5.1).
struct HEVCPictureParameterSet: Sendable {
    var id = 0
    var spsId = 0
    var dependentSliceSegmentsEnabled = false
    var outputFlagPresent = false
    var numExtraSliceHeaderBits = 0
    var signDataHiding = false
    var initQp = 26
    var transformSkipEnabled = false
    var cuQpDeltaEnabled = false
    var diffCuQpDeltaDepth = 0
    var cbQpOffset = 0
    var crQpOffset = 0
    var sliceChromaQpOffsetsPresent = false
    var transquantBypassEnabled = false
    var tilesEnabled = false
    var entropyCodingSync = false
    var numTileColumns = 1
    var numTileRows = 1
    var uniformSpacing = true
    var columnWidths: [Int] = []
    var rowHeights: [Int] = []
    var loopFilterAcrossTiles = true
    var loopFilterAcrossSlices = false
    var deblockingOverrideEnabled = false
    var deblockingDisabled = false
    var betaOffsetDiv2 = 0
    var tcOffsetDiv2 = 0
    var scalingList: HEVCScalingList?
    var sliceHeaderExtensionPresent = false
    var log2SaoOffsetScaleLuma = 0
    var log2SaoOffsetScaleChroma = 0

    static func parse(_ rbsp: [UInt8]) throws -> HEVCPictureParameterSet {
        var r = HEVCBitReader(rbsp)
        var p = HEVCPictureParameterSet()
        p.id = try r.ue(in: 0...63, "pps_pic_parameter_set_id")
        p.spsId = try r.ue(in: 0...15, "pps_seq_parameter_set_id")
        p.dependentSliceSegmentsEnabled = try r.flag()
        p.outputFlagPresent = try r.flag()
        p.numExtraSliceHeaderBits = try r.bits(3)
        p.signDataHiding = try r.flag()
        try r.skip(1)
        _ = try r.ue(in: 0...14, "num_ref_idx_l0_default_active_minus1")
        _ = try r.ue(in: 0...14, "num_ref_idx_l1_default_active_minus1")
        p.initQp = 26 + (try r.se(in: -62...25, "init_qp_minus26"))
        try r.skip(1)
        p.transformSkipEnabled = try r.flag()
        p.cuQpDeltaEnabled = try r.flag()
        if p.cuQpDeltaEnabled { p.diffCuQpDeltaDepth = try r.ue(in: 0...3, "diff_cu_qp_delta_depth") }
        p.cbQpOffset = try r.se(in: -12...12, "pps_cb_qp_offset")
        p.crQpOffset = try r.se(in: -12...12, "pps_cr_qp_offset")
        p.sliceChromaQpOffsetsPresent = try r.flag()
        try r.skip(2)
        p.transquantBypassEnabled = try r.flag()
        p.tilesEnabled = try r.flag()
        p.entropyCodingSync = try r.flag()
        if p.tilesEnabled {
            p.numTileColumns = try r.ue(in: 0...19, "num_tile_columns_minus1") + 1
            p.numTileRows = try r.ue(in: 0...21, "num_tile_rows_minus1") + 1
            p.uniformSpacing = try r.flag()
            if !p.uniformSpacing {
                for _ in 0..<(p.numTileColumns - 1) { p.columnWidths.append(try r.ue(in: 0...65_535, "column_width_minus1") + 1) }
                for _ in 0..<(p.numTileRows - 1) { p.rowHeights.append(try r.ue(in: 0...65_535, "row_height_minus1") + 1) }
            }
            p.loopFilterAcrossTiles = try r.flag()
        }
        p.loopFilterAcrossSlices = try r.flag()
        if try r.flag() {
            p.deblockingOverrideEnabled = try r.flag()
            p.deblockingDisabled = try r.flag()
            if !p.deblockingDisabled {
                p.betaOffsetDiv2 = try r.se(in: -6...6, "pps_beta_offset_div2")
                p.tcOffsetDiv2 = try r.se(in: -6...6, "pps_tc_offset_div2")
            }
        }
        if try r.flag() { p.scalingList = try HEVCScalingList.parse(&r) }
        try r.skip(1)
        _ = try r.ue(in: 0...4, "log2_parallel_merge_level_minus2")
        p.sliceHeaderExtensionPresent = try r.flag()
        if try r.flag() {
            let rangeExtension = try r.flag()
            _ = try r.bits(7)
            if rangeExtension {
                if p.transformSkipEnabled, try r.ue() != 0 {
                    throw ImageCodecError(.unsupported, "HEVC transform skip above 4x4 is not supported")
                }
                guard try !r.flag(), try !r.flag() else {
                    throw ImageCodecError(.unsupported, "HEVC cross-component prediction and chroma QP offset lists are not supported")
                }
                p.log2SaoOffsetScaleLuma = try r.ue(in: 0...6, "log2_sao_offset_scale_luma")
                p.log2SaoOffsetScaleChroma = try r.ue(in: 0...6, "log2_sao_offset_scale_chroma")
            }
        }
        return p
    }
}

/// CTB addressing for one SPS/PPS pair (6.5.1): tile boundaries and the raster-to-tile-scan
/// conversions the slice data walks in.
struct HEVCTileLayout: Sendable {
    let widthInCtbs: Int
    let heightInCtbs: Int
    /// Column and row boundaries in CTBs, numTileColumns + 1 and numTileRows + 1 entries.
    let columnBoundaries: [Int]
    let rowBoundaries: [Int]
    /// CtbAddrRsToTs, CtbAddrTsToRs and TileId (indexed by tile-scan address).
    let rsToTs: [Int]
    let tsToRs: [Int]
    let tileIdOfTs: [Int]

    init(sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet) throws {
        let w = sps.widthInCtbs, h = sps.heightInCtbs
        widthInCtbs = w
        heightInCtbs = h
        func boundaries(count: Int, total: Int, explicit: [Int]) throws -> [Int] {
            guard count <= total else { throw ImageCodecError(.corrupt, "HEVC has more tiles than CTBs") }
            var sizes: [Int]
            if pps.uniformSpacing {
                sizes = (0..<count).map { ($0 + 1) * total / count - $0 * total / count }
            } else {
                let used = explicit.reduce(0, +)
                guard used < total else { throw ImageCodecError(.corrupt, "HEVC tile sizes exceed the picture") }
                sizes = explicit + [total - used]
            }
            var b = [0]
            for s in sizes { b.append(b.last! + s) }
            return b
        }
        columnBoundaries = try boundaries(count: pps.numTileColumns, total: w, explicit: pps.columnWidths)
        rowBoundaries = try boundaries(count: pps.numTileRows, total: h, explicit: pps.rowHeights)
        var tsToRs = [Int]()
        var tileId = [Int]()
        tsToRs.reserveCapacity(w * h)
        var tile = 0
        for j in 0..<pps.numTileRows {
            for i in 0..<pps.numTileColumns {
                for y in rowBoundaries[j]..<rowBoundaries[j + 1] {
                    for x in columnBoundaries[i]..<columnBoundaries[i + 1] {
                        tsToRs.append(y * w + x)
                        tileId.append(tile)
                    }
                }
                tile += 1
            }
        }
        var rsToTs = [Int](repeating: 0, count: w * h)
        for (ts, rs) in tsToRs.enumerated() { rsToTs[rs] = ts }
        self.rsToTs = rsToTs
        self.tsToRs = tsToRs
        self.tileIdOfTs = tileId
    }

    /// The first CTB column of the tile holding CTB column `x`.
    func tileColumnStart(_ x: Int) -> Int {
        var start = 0
        for b in columnBoundaries where b <= x { start = b }
        return start
    }
}
