/// The sequence parameter set (H.265 7.3.2.2) with its profile_tier_level, short-term
/// reference picture sets (parsed only to reach the fields after them) and VUI.
struct HEVCSequenceParameterSet: Sendable {
    var id = 0
    var profile = 0
    var chromaFormat = HEVCChromaFormat.yuv420
    var width = 0
    var height = 0
    /// Conformance window in luma samples: left, right, top, bottom.
    var cropLeft = 0, cropRight = 0, cropTop = 0, cropBottom = 0
    var bitDepthLuma = 8
    var bitDepthChroma = 8
    var log2MaxPocLsb = 4
    var log2MinCbSize = 3
    var log2CtbSize = 4
    var log2MinTbSize = 2
    var log2MaxTbSize = 5
    var maxTransformHierarchyDepthIntra = 0
    /// nil when scaling_list_enabled_flag is 0 (flat m = 16).
    var scalingList: HEVCScalingList?
    var ampEnabled = false
    var saoEnabled = false
    var pcmEnabled = false
    var pcmBitDepthLuma = 8
    var pcmBitDepthChroma = 8
    var log2MinPcmCbSize = 3
    var log2MaxPcmCbSize = 3
    var pcmLoopFilterDisabled = false
    var numShortTermRefPicSets = 0
    /// NumDeltaPocs of each SPS short-term RPS, for inter-predicted sets in slice headers.
    var numDeltaPocs: [Int] = []
    var longTermRefPicsPresent = false
    var numLongTermRefPicsSps = 0
    var temporalMvpEnabled = false
    var strongIntraSmoothing = false
    var videoSignal = HEVCVideoSignal()

    var ctbSize: Int { 1 << log2CtbSize }
    var widthInCtbs: Int { (width + ctbSize - 1) >> log2CtbSize }
    var heightInCtbs: Int { (height + ctbSize - 1) >> log2CtbSize }

    /// The size after the conformance window.
    var croppedWidth: Int { width - cropLeft - cropRight }
    var croppedHeight: Int { height - cropTop - cropBottom }

    static func parse(_ rbsp: [UInt8]) throws -> HEVCSequenceParameterSet {
        var r = HEVCBitReader(rbsp)
        var s = HEVCSequenceParameterSet()
        try r.skip(4)
        let maxSubLayersMinus1 = try r.bits(3)
        guard maxSubLayersMinus1 < 7 else { throw ImageCodecError(.corrupt, "HEVC SPS sub-layer count 8") }
        try r.skip(1)
        s.profile = try parseProfileTierLevel(&r, maxSubLayersMinus1: maxSubLayersMinus1)
        s.id = try r.ue(in: 0...15, "sps_seq_parameter_set_id")
        let chroma = try r.ue(in: 0...3, "chroma_format_idc")
        if chroma == 3, try r.flag() {
            throw ImageCodecError(.unsupported, "HEVC separate colour planes are not supported")
        }
        s.chromaFormat = HEVCChromaFormat(rawValue: chroma)!
        s.width = try r.ue(in: 1...65_535, "pic_width_in_luma_samples")
        s.height = try r.ue(in: 1...65_535, "pic_height_in_luma_samples")
        if try r.flag() {
            let (sx, sy) = s.chromaFormat.subsampling
            s.cropLeft = try r.ue(in: 0...65_535, "conf_win_left_offset") * sx
            s.cropRight = try r.ue(in: 0...65_535, "conf_win_right_offset") * sx
            s.cropTop = try r.ue(in: 0...65_535, "conf_win_top_offset") * sy
            s.cropBottom = try r.ue(in: 0...65_535, "conf_win_bottom_offset") * sy
            guard s.cropLeft + s.cropRight < s.width, s.cropTop + s.cropBottom < s.height else {
                throw ImageCodecError(.corrupt, "HEVC conformance window is empty")
            }
        }
        s.bitDepthLuma = try r.ue(in: 0...8, "bit_depth_luma_minus8") + 8
        s.bitDepthChroma = try r.ue(in: 0...8, "bit_depth_chroma_minus8") + 8
        s.log2MaxPocLsb = try r.ue(in: 0...12, "log2_max_pic_order_cnt_lsb_minus4") + 4
        let orderingInfo = try r.flag()
        for _ in (orderingInfo ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            _ = try r.ue()
            _ = try r.ue()
            _ = try r.ue()
        }
        s.log2MinCbSize = try r.ue(in: 0...3, "log2_min_luma_coding_block_size_minus3") + 3
        s.log2CtbSize = s.log2MinCbSize + (try r.ue(in: 0...3, "log2_diff_max_min_luma_coding_block_size"))
        s.log2MinTbSize = try r.ue(in: 0...3, "log2_min_luma_transform_block_size_minus2") + 2
        s.log2MaxTbSize = s.log2MinTbSize + (try r.ue(in: 0...3, "log2_diff_max_min_luma_transform_block_size"))
        guard s.log2CtbSize >= 4, s.log2CtbSize <= 6, s.log2MinTbSize < s.log2MinCbSize,
              s.log2MaxTbSize <= min(s.log2CtbSize, 5) else {
            throw ImageCodecError(.corrupt, "HEVC SPS block sizes are inconsistent")
        }
        // Coding units tile the picture exactly only when its size is a multiple of the
        // smallest one (7.4.3.2.1); every block write relies on it.
        let minCb = 1 << s.log2MinCbSize
        guard s.width % minCb == 0, s.height % minCb == 0 else {
            throw ImageCodecError(.corrupt, "HEVC picture size is not a multiple of the minimum coding block")
        }
        _ = try r.ue(in: 0...(s.log2CtbSize - s.log2MinTbSize), "max_transform_hierarchy_depth_inter")
        s.maxTransformHierarchyDepthIntra = try r.ue(in: 0...(s.log2CtbSize - s.log2MinTbSize),
                                                     "max_transform_hierarchy_depth_intra")
        if try r.flag() {
            s.scalingList = try r.flag() ? try HEVCScalingList.parse(&r) : HEVCScalingList.defaults
        }
        s.ampEnabled = try r.flag()
        s.saoEnabled = try r.flag()
        s.pcmEnabled = try r.flag()
        if s.pcmEnabled {
            s.pcmBitDepthLuma = try r.bits(4) + 1
            s.pcmBitDepthChroma = try r.bits(4) + 1
            s.log2MinPcmCbSize = try r.ue(in: 0...2, "log2_min_pcm_luma_coding_block_size_minus3") + 3
            s.log2MaxPcmCbSize = s.log2MinPcmCbSize + (try r.ue(in: 0...2, "log2_diff_max_min_pcm_luma_coding_block_size"))
            s.pcmLoopFilterDisabled = try r.flag()
            guard s.pcmBitDepthLuma <= s.bitDepthLuma, s.pcmBitDepthChroma <= s.bitDepthChroma,
                  s.log2MaxPcmCbSize <= min(s.log2CtbSize, 5), s.log2MinPcmCbSize >= s.log2MinCbSize else {
                throw ImageCodecError(.corrupt, "HEVC SPS PCM parameters are inconsistent")
            }
        }
        s.numShortTermRefPicSets = try r.ue(in: 0...64, "num_short_term_ref_pic_sets")
        for i in 0..<s.numShortTermRefPicSets {
            s.numDeltaPocs.append(try parseShortTermRefPicSet(&r, index: i, count: s.numShortTermRefPicSets,
                                                              numDeltaPocs: s.numDeltaPocs))
        }
        s.longTermRefPicsPresent = try r.flag()
        if s.longTermRefPicsPresent {
            s.numLongTermRefPicsSps = try r.ue(in: 0...32, "num_long_term_ref_pics_sps")
            for _ in 0..<s.numLongTermRefPicsSps { try r.skip(s.log2MaxPocLsb + 1) }
        }
        s.temporalMvpEnabled = try r.flag()
        s.strongIntraSmoothing = try r.flag()
        if try r.flag() { s.videoSignal = try parseVUI(&r, maxSubLayersMinus1: maxSubLayersMinus1) }
        if try r.flag() {
            let rangeExtension = try r.flag()
            _ = try r.bits(7)
            if rangeExtension {
                // transform_skip_rotation ... cabac_bypass_alignment: tools we do not decode.
                guard try r.bits(9) == 0 else {
                    throw ImageCodecError(.unsupported, "HEVC range extension coding tools are not supported")
                }
            }
        }
        guard s.bitDepthLuma <= 10, s.bitDepthChroma <= 10 else {
            throw ImageCodecError(.unsupported, "HEVC bit depth above 10 is not supported")
        }
        return s
    }

    /// Returns general_profile_idc, or throws for a profile outside Main, Main 10, Main Still
    /// Picture and the format range extensions (whose tools the SPS check refuses separately).
    private static func parseProfileTierLevel(_ r: inout HEVCBitReader, maxSubLayersMinus1: Int) throws -> Int {
        try r.skip(3)
        let profile = try r.bits(5)
        let compatibility = try r.bits(32)
        try r.skip(48 + 8)
        var profilePresent = [Bool](), levelPresent = [Bool]()
        for _ in 0..<maxSubLayersMinus1 {
            profilePresent.append(try r.flag())
            levelPresent.append(try r.flag())
        }
        if maxSubLayersMinus1 > 0 { try r.skip(2 * (8 - maxSubLayersMinus1)) }
        for i in 0..<maxSubLayersMinus1 {
            if profilePresent[i] { try r.skip(88) }
            if levelPresent[i] { try r.skip(8) }
        }
        let compatible = (1...4).contains { compatibility & (1 << (31 - $0)) != 0 }
        guard (1...4).contains(profile) || compatible else {
            throw ImageCodecError(.unsupported, "HEVC profile \(profile) is not supported")
        }
        return profile
    }

    /// st_ref_pic_set(index) (7.3.7); returns its NumDeltaPocs.
    static func parseShortTermRefPicSet(_ r: inout HEVCBitReader, index: Int, count: Int,
                                        numDeltaPocs: [Int]) throws -> Int {
        if index != 0, try r.flag() {
            var delta = 1
            if index == count { delta = try r.ue(in: 0...(index - 1), "delta_idx_minus1") + 1 }
            let ref = index - delta
            guard ref >= 0, ref < numDeltaPocs.count else { throw ImageCodecError(.corrupt, "HEVC RPS reference") }
            try r.skip(1)
            _ = try r.ue(in: 0...32_767, "abs_delta_rps_minus1")
            var n = 0
            for _ in 0...numDeltaPocs[ref] {
                var used = try r.flag()
                if !used { used = try r.flag() }
                if used { n += 1 }
            }
            guard n <= 32 else { throw ImageCodecError(.corrupt, "HEVC RPS too large") }
            return n
        }
        let negative = try r.ue(in: 0...16, "num_negative_pics")
        let positive = try r.ue(in: 0...16, "num_positive_pics")
        for _ in 0..<(negative + positive) {
            _ = try r.ue(in: 0...32_767, "delta_poc_minus1")
            try r.skip(1)
        }
        return negative + positive
    }

    private static func parseVUI(_ r: inout HEVCBitReader, maxSubLayersMinus1: Int) throws -> HEVCVideoSignal {
        var signal = HEVCVideoSignal()
        if try r.flag(), try r.bits(8) == 255 { try r.skip(32) }
        if try r.flag() { try r.skip(1) }
        if try r.flag() {
            try r.skip(3)
            signal.fullRange = try r.flag()
            if try r.flag() {
                signal.colourPrimaries = try r.bits(8)
                signal.transferCharacteristics = try r.bits(8)
                signal.matrixCoefficients = try r.bits(8)
            }
        }
        if try r.flag() {
            _ = try r.ue()
            _ = try r.ue()
        }
        try r.skip(3)
        if try r.flag() { for _ in 0..<4 { _ = try r.ue() } }
        if try r.flag() {
            try r.skip(64)
            if try r.flag() { _ = try r.ue() }
            if try r.flag() { try skipHRD(&r, maxSubLayersMinus1: maxSubLayersMinus1) }
        }
        if try r.flag() {
            try r.skip(3)
            for _ in 0..<5 { _ = try r.ue() }
        }
        return signal
    }

    private static func skipHRD(_ r: inout HEVCBitReader, maxSubLayersMinus1: Int) throws {
        let nal = try r.flag()
        let vcl = try r.flag()
        var subPic = false
        if nal || vcl {
            subPic = try r.flag()
            if subPic { try r.skip(8 + 5 + 1 + 5) }
            try r.skip(8)
            if subPic { try r.skip(4) }
            try r.skip(15)
        }
        for _ in 0...maxSubLayersMinus1 {
            var withinCvs = true
            if try !r.flag() { withinCvs = try r.flag() }
            var lowDelay = false
            if withinCvs { _ = try r.ue() } else { lowDelay = try r.flag() }
            var cpbCount = 1
            if !lowDelay { cpbCount = try r.ue(in: 0...31, "cpb_cnt_minus1") + 1 }
            for present in [nal, vcl] where present {
                for _ in 0..<cpbCount {
                    _ = try r.ue()
                    _ = try r.ue()
                    if subPic {
                        _ = try r.ue()
                        _ = try r.ue()
                    }
                    try r.skip(1)
                }
            }
        }
    }
}
