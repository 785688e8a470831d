/// What the in-loop filters (deblocking, then SAO) need to know about a decoded picture, filled
/// by the slice decoder as it reconstructs coding units and read by the filters afterwards.
///
/// Coordinates are in the decoded (uncropped) picture. Block-level facts are kept per 4×4 luma
/// block (`widthIn4` × `heightIn4`, row-major); slice and SAO facts per CTB (`widthInCtbs` ×
/// `heightInCtbs`, raster order). Intra pictures only: every coded edge has boundary strength 2.
struct HEVCFilterMap: Sendable {
    /// Bits of `edges`.
    static let verticalEdge: UInt8 = 1 << 0
    static let horizontalEdge: UInt8 = 1 << 1

    let widthIn4: Int
    let heightIn4: Int
    let log2CtbSize: Int
    let widthInCtbs: Int
    let heightInCtbs: Int

    /// Per 4×4: `verticalEdge` when the edge along this block's left side is a transform or
    /// prediction block edge that deblocking must filter, `horizontalEdge` likewise for its top
    /// side. The slice decoder has already applied every rule that switches an edge off
    /// (picture border, slice_deblocking_filter_disabled_flag, slice and tile borders with
    /// filtering across them disabled), and sets bits only on the 8×8 luma grid.
    var edges: [UInt8]
    /// Per 4×4: QpY of the coding unit covering it.
    var qpY: [Int8]
    /// Per 4×4: deblocking and SAO leave these samples as reconstructed (cu_transquant_bypass,
    /// or PCM with pcm_loop_filter_disabled_flag).
    var keepsSamples: [Bool]

    /// Per CTB: index into `slices` of the slice segment's independent slice that holds it.
    var sliceOfCtb: [Int32]
    /// Per CTB: tile index, raster order over tiles.
    var tileOfCtb: [Int32]
    /// Per CTB: SAO parameters (SaoTypeIdx 0 everywhere when SAO is off for the slice).
    var sao: [HEVCSAOParameters]
    /// Slice header values the filters read, one per independent slice in decoding order.
    var slices: [HEVCSliceFilterParameters]

    /// pps_loop_filter_across_tiles_enabled_flag.
    var loopFilterAcrossTiles: Bool
    /// pps_cb_qp_offset and pps_cr_qp_offset (cQpPicOffset for chroma deblocking).
    var cbQpOffset: Int
    var crQpOffset: Int

    init(width: Int, height: Int, log2CtbSize: Int, loopFilterAcrossTiles: Bool, cbQpOffset: Int, crQpOffset: Int) {
        widthIn4 = (width + 3) / 4
        heightIn4 = (height + 3) / 4
        self.log2CtbSize = log2CtbSize
        let ctb = 1 << log2CtbSize
        widthInCtbs = (width + ctb - 1) / ctb
        heightInCtbs = (height + ctb - 1) / ctb
        let blocks = widthIn4 * heightIn4
        let ctbs = widthInCtbs * heightInCtbs
        edges = [UInt8](repeating: 0, count: blocks)
        qpY = [Int8](repeating: 0, count: blocks)
        keepsSamples = [Bool](repeating: false, count: blocks)
        sliceOfCtb = [Int32](repeating: 0, count: ctbs)
        tileOfCtb = [Int32](repeating: 0, count: ctbs)
        sao = [HEVCSAOParameters](repeating: HEVCSAOParameters(), count: ctbs)
        slices = []
        self.loopFilterAcrossTiles = loopFilterAcrossTiles
        self.cbQpOffset = cbQpOffset
        self.crQpOffset = crQpOffset
    }
}

/// The slice header fields deblocking and SAO depend on.
struct HEVCSliceFilterParameters: Sendable, Equatable {
    /// slice_deblocking_filter_disabled_flag (after PPS defaults and overrides).
    var deblockingDisabled: Bool
    /// slice_beta_offset_div2 and slice_tc_offset_div2 (after PPS defaults and overrides).
    var betaOffsetDiv2: Int
    var tcOffsetDiv2: Int
    /// slice_loop_filter_across_slices_enabled_flag.
    var loopFilterAcrossSlices: Bool
    /// slice_sao_luma_flag and slice_sao_chroma_flag.
    var saoLuma: Bool
    var saoChroma: Bool
}

/// SAO parameters of one CTB (H.265 7.4.9.3), per colour component (0 Y, 1 Cb, 2 Cr).
struct HEVCSAOParameters: Sendable, Equatable {
    /// SaoTypeIdx: 0 not applied, 1 band offset, 2 edge offset.
    var typeIndex: (UInt8, UInt8, UInt8) = (0, 0, 0)
    /// SaoOffsetVal[1...4], already signed and scaled by `<< log2OffsetScale`.
    var offsets: (SIMD4<Int16>, SIMD4<Int16>, SIMD4<Int16>) = (.zero, .zero, .zero)
    /// sao_band_position (band offset).
    var bandPosition: (UInt8, UInt8, UInt8) = (0, 0, 0)
    /// SaoEoClass (edge offset): 0 horizontal, 1 vertical, 2 135°, 3 45°.
    var edgeClass: (UInt8, UInt8, UInt8) = (0, 0, 0)

    static func == (a: HEVCSAOParameters, b: HEVCSAOParameters) -> Bool {
        a.typeIndex == b.typeIndex && a.offsets == b.offsets && a.bandPosition == b.bandPosition && a.edgeClass == b.edgeClass
    }
}
