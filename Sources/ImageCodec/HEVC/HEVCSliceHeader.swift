/// The slice segment header (H.265 7.3.6.1) of intra slices. A dependent slice segment takes
/// the slice fields of the independent segment before it (`inheriting`).
struct HEVCSliceHeader: Sendable {
    var firstSliceSegmentInPic = true
    var ppsId = 0
    var dependent = false
    /// slice_segment_address: the first CTB, in raster scan.
    var segmentAddress = 0
    var saoLuma = false
    var saoChroma = false
    var qpDelta = 0
    var cbQpOffset = 0
    var crQpOffset = 0
    var deblockingDisabled = false
    var betaOffsetDiv2 = 0
    var tcOffsetDiv2 = 0
    var loopFilterAcrossSlices = false
    /// Byte position in the RBSP where slice_segment_data() starts.
    var dataOffset = 0
    /// entry_point_offset_minus1[i] + 1: the sizes in bytes, emulation prevention bytes
    /// included, of every substream but the last (`HEVCWavefront` locates rows with them).
    var entryPointOffsets: [Int] = []

    var sliceQp: Int = 26

    /// Reads the PPS id only, to find the parameter sets before the full parse.
    static func ppsId(_ unit: HEVCNALUnit) throws -> Int {
        var r = HEVCBitReader(unit.rbsp)
        try r.skip(1)
        if (16...23).contains(unit.type) { try r.skip(1) }
        return try r.ue(in: 0...63, "slice_pic_parameter_set_id")
    }

    static func parse(_ unit: HEVCNALUnit, sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet,
                      inheriting previous: HEVCSliceHeader?) throws -> HEVCSliceHeader {
        var r = HEVCBitReader(unit.rbsp)
        var h = HEVCSliceHeader()
        h.firstSliceSegmentInPic = try r.flag()
        if (16...23).contains(unit.type) { try r.skip(1) }
        h.ppsId = try r.ue(in: 0...63, "slice_pic_parameter_set_id")
        let ctbs = sps.widthInCtbs * sps.heightInCtbs
        if !h.firstSliceSegmentInPic {
            if pps.dependentSliceSegmentsEnabled { h.dependent = try r.flag() }
            var bits = 0
            while (1 << bits) < ctbs { bits += 1 }
            h.segmentAddress = try r.bits(bits)
            guard h.segmentAddress < ctbs else { throw ImageCodecError(.corrupt, "HEVC slice address past the picture") }
        }
        if h.dependent {
            guard let previous else { throw ImageCodecError(.corrupt, "HEVC dependent slice segment without a slice") }
            let address = h.segmentAddress
            h = previous
            h.firstSliceSegmentInPic = false
            h.dependent = true
            h.segmentAddress = address
        } else {
            try r.skip(pps.numExtraSliceHeaderBits)
            let sliceType = try r.ue(in: 0...2, "slice_type")
            guard sliceType == 2 else {
                throw ImageCodecError(.unsupported, "HEVC inter (P/B) slices are not supported")
            }
            if pps.outputFlagPresent { try r.skip(1) }
            if unit.type != 19 && unit.type != 20 {
                try r.skip(sps.log2MaxPocLsb)
                if try !r.flag() {
                    _ = try HEVCSequenceParameterSet.parseShortTermRefPicSet(
                        &r, index: sps.numShortTermRefPicSets, count: sps.numShortTermRefPicSets,
                        numDeltaPocs: sps.numDeltaPocs)
                } else if sps.numShortTermRefPicSets > 1 {
                    var bits = 0
                    while (1 << bits) < sps.numShortTermRefPicSets { bits += 1 }
                    try r.skip(bits)
                }
                if sps.longTermRefPicsPresent {
                    var fromSps = 0
                    if sps.numLongTermRefPicsSps > 0 {
                        fromSps = try r.ue(in: 0...sps.numLongTermRefPicsSps, "num_long_term_sps")
                    }
                    let pics = try r.ue(in: 0...32, "num_long_term_pics")
                    for i in 0..<(fromSps + pics) {
                        if i < fromSps {
                            if sps.numLongTermRefPicsSps > 1 {
                                var bits = 0
                                while (1 << bits) < sps.numLongTermRefPicsSps { bits += 1 }
                                try r.skip(bits)
                            }
                        } else {
                            try r.skip(sps.log2MaxPocLsb + 1)
                        }
                        if try r.flag() { _ = try r.ue() }
                    }
                }
                if sps.temporalMvpEnabled { try r.skip(1) }
            }
            if sps.saoEnabled {
                h.saoLuma = try r.flag()
                if sps.chromaFormat != .monochrome { h.saoChroma = try r.flag() }
            }
            h.qpDelta = try r.se()
            h.sliceQp = pps.initQp + h.qpDelta
            let minQp = -6 * (sps.bitDepthLuma - 8)
            guard h.sliceQp >= minQp, h.sliceQp <= 51 else { throw ImageCodecError(.corrupt, "HEVC slice QP out of range") }
            if pps.sliceChromaQpOffsetsPresent {
                h.cbQpOffset = try r.se(in: -12...12, "slice_cb_qp_offset")
                h.crQpOffset = try r.se(in: -12...12, "slice_cr_qp_offset")
                guard abs(pps.cbQpOffset + h.cbQpOffset) <= 12, abs(pps.crQpOffset + h.crQpOffset) <= 12 else {
                    throw ImageCodecError(.corrupt, "HEVC chroma QP offsets out of range")
                }
            }
            h.deblockingDisabled = pps.deblockingDisabled
            h.betaOffsetDiv2 = pps.betaOffsetDiv2
            h.tcOffsetDiv2 = pps.tcOffsetDiv2
            if pps.deblockingOverrideEnabled, try r.flag() {
                h.deblockingDisabled = try r.flag()
                if !h.deblockingDisabled {
                    h.betaOffsetDiv2 = try r.se(in: -6...6, "slice_beta_offset_div2")
                    h.tcOffsetDiv2 = try r.se(in: -6...6, "slice_tc_offset_div2")
                }
            }
            h.loopFilterAcrossSlices = pps.loopFilterAcrossSlices
            if pps.loopFilterAcrossSlices && (h.saoLuma || h.saoChroma || !h.deblockingDisabled) {
                h.loopFilterAcrossSlices = try r.flag()
            }
        }
        if pps.tilesEnabled || pps.entropyCodingSync {
            let count = try r.ue(in: 0...(sps.widthInCtbs * sps.heightInCtbs), "num_entry_point_offsets")
            if count > 0 {
                let bits = try r.ue(in: 0...31, "offset_len_minus1") + 1
                // The serial decoder finds substreams by decoding (see HEVCSliceDecoder); the
                // wavefront rows start where these say.
                h.entryPointOffsets.reserveCapacity(count)
                for _ in 0..<count { h.entryPointOffsets.append(try r.bits(bits) + 1) }
            }
        }
        if pps.sliceHeaderExtensionPresent {
            let length = try r.ue(in: 0...256, "slice_segment_header_extension_length")
            try r.skip(8 * length)
        }
        try r.byteAlignment()
        h.dataOffset = r.bytePosition
        return h
    }
}
