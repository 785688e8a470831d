/// Sequence and picture parameter sets (7.3.2.1, 7.3.2.2), with what this decoder refuses
/// checked where it is read.
struct H264SequenceParameterSet {
    var id = 0
    var profile = 0
    var chromaFormatIdc = 1
    var bitDepthLuma = 8
    var bitDepthChroma = 8
    /// The eight 4x4 (0...5) and 8x8 (6, 7) scaling lists in zig-zag order after fall-back
    /// rule A, or nil when the SPS sends none (Flat_16).
    var scalingLists: [[UInt8]]?
    var log2MaxFrameNum = 4
    var pocType = 0
    var log2MaxPocLsb = 4
    var deltaPicOrderAlwaysZero = false
    var widthInMbs = 0
    var heightInMbs = 0
    var frameMbsOnly = true
    var cropLeft = 0, cropRight = 0, cropTop = 0, cropBottom = 0
    var videoSignal = HEVCVideoSignal()

    var chromaFormat: HEVCChromaFormat { chromaFormatIdc == 0 ? .monochrome : .yuv420 }
    var width: Int { widthInMbs * 16 }
    var height: Int { heightInMbs * 16 }
    var croppedWidth: Int { width - cropLeft - cropRight }
    var croppedHeight: Int { height - cropTop - cropBottom }

    static func parse(_ rbsp: [UInt8]) throws -> H264SequenceParameterSet {
        var r = H264BitReader(rbsp)
        var s = H264SequenceParameterSet()
        s.profile = try r.u(8)
        _ = try r.u(16)  // constraint flags, level_idc
        s.id = try r.ue(in: 0...31, "seq_parameter_set_id")
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(s.profile) {
            s.chromaFormatIdc = try r.ue(in: 0...3, "chroma_format_idc")
            if s.chromaFormatIdc == 3 { _ = try r.u(1) }
            s.bitDepthLuma = try r.ue(in: 0...6, "bit_depth_luma_minus8") + 8
            s.bitDepthChroma = try r.ue(in: 0...6, "bit_depth_chroma_minus8") + 8
            if try r.uFlag() {
                throw ImageCodecError(.unsupported, "H.264 lossless (qpprime_y_zero_transform_bypass) is not supported")
            }
            if try r.uFlag() {
                s.scalingLists = try H264ScalingLists.parse(&r, count: s.chromaFormatIdc == 3 ? 12 : 8, fallback: nil)
            }
        }
        s.log2MaxFrameNum = try r.ue(in: 0...12, "log2_max_frame_num_minus4") + 4
        s.pocType = try r.ue(in: 0...2, "pic_order_cnt_type")
        if s.pocType == 0 {
            s.log2MaxPocLsb = try r.ue(in: 0...12, "log2_max_pic_order_cnt_lsb_minus4") + 4
        } else if s.pocType == 1 {
            s.deltaPicOrderAlwaysZero = try r.uFlag()
            _ = try r.se()
            _ = try r.se()
            let cycle = try r.ue(in: 0...255, "num_ref_frames_in_pic_order_cnt_cycle")
            for _ in 0..<cycle { _ = try r.se() }
        }
        _ = try r.ue()  // max_num_ref_frames
        _ = try r.u(1)
        s.widthInMbs = try r.ue(in: 0...4095, "pic_width_in_mbs_minus1") + 1
        s.heightInMbs = try r.ue(in: 0...4095, "pic_height_in_map_units_minus1") + 1
        s.frameMbsOnly = try r.uFlag()
        if !s.frameMbsOnly { _ = try r.u(1) }
        _ = try r.u(1)  // direct_8x8_inference_flag
        if try r.uFlag() {
            let limit = 8 * 4096
            let l = try r.ue(in: 0...limit, "frame_crop_left_offset"), rt = try r.ue(in: 0...limit, "frame_crop_right_offset")
            let t = try r.ue(in: 0...limit, "frame_crop_top_offset"), b = try r.ue(in: 0...limit, "frame_crop_bottom_offset")
            let unitX = s.chromaFormatIdc == 0 || s.chromaFormatIdc == 3 ? 1 : 2
            let unitY = (s.chromaFormatIdc == 1 ? 2 : 1) * (s.frameMbsOnly ? 1 : 2)
            s.cropLeft = l * unitX
            s.cropRight = rt * unitX
            s.cropTop = t * unitY
            s.cropBottom = b * unitY
        }
        guard s.cropLeft + s.cropRight < s.widthInMbs * 16,
              s.cropTop + s.cropBottom < s.heightInMbs * 16 * (s.frameMbsOnly ? 1 : 2) else {
            throw ImageCodecError(.corrupt, "H.264 frame cropping leaves no picture")
        }
        if try r.uFlag() { s.videoSignal = try parseVUIColour(&r) }
        return s
    }

    /// The colour part of the VUI (E.1.1): everything after it is not needed for a picture.
    private static func parseVUIColour(_ r: inout H264BitReader) throws -> HEVCVideoSignal {
        var signal = HEVCVideoSignal()
        if try r.uFlag() {
            if try r.u(8) == 255 { _ = try r.u(32) }
        }
        if try r.uFlag() { _ = try r.u(1) }
        if try r.uFlag() {
            _ = try r.u(3)
            signal.fullRange = try r.uFlag()
            if try r.uFlag() {
                signal.colourPrimaries = try r.u(8)
                signal.transferCharacteristics = try r.u(8)
                signal.matrixCoefficients = try r.u(8)
            }
        }
        return signal
    }

    /// Throws `.unsupported` for what this decoder does not decode: interlaced coding,
    /// 4:2:2 and 4:4:4, and more than 8 bits.
    func checkSupported() throws {
        guard frameMbsOnly else {
            throw ImageCodecError(.unsupported, "H.264 interlaced coding (frame_mbs_only_flag 0: fields or MBAFF) is not supported")
        }
        guard chromaFormatIdc <= 1 else {
            throw ImageCodecError(.unsupported, "H.264 chroma format \(chromaFormatIdc == 2 ? "4:2:2" : "4:4:4") is not supported")
        }
        guard bitDepthLuma == 8, bitDepthChroma == 8 || chromaFormatIdc == 0 else {
            throw ImageCodecError(.unsupported, "H.264 bit depth \(max(bitDepthLuma, bitDepthChroma)) is not supported (8 only)")
        }
    }
}

struct H264PictureParameterSet {
    var id = 0
    var spsId = 0
    var cabac = false
    var bottomFieldPicOrderPresent = false
    var redundantPicCntPresent = false
    var initQP = 26
    var chromaQPOffset = 0
    var secondChromaQPOffset = 0
    var deblockingControlPresent = false
    var constrainedIntraPred = false
    var transform8x8Mode = false
    /// The picture's lists as sent (nil entries not sent), resolved against the SPS by
    /// `scalingLists(sps:)`; nil when the PPS sends no matrix.
    var sentLists: [[UInt8]?]?

    static func parse(_ rbsp: [UInt8]) throws -> H264PictureParameterSet {
        var r = H264BitReader(rbsp)
        var p = H264PictureParameterSet()
        p.id = try r.ue(in: 0...255, "pic_parameter_set_id")
        p.spsId = try r.ue(in: 0...31, "seq_parameter_set_id")
        p.cabac = try r.uFlag()
        p.bottomFieldPicOrderPresent = try r.uFlag()
        guard try r.ue(in: 0...7, "num_slice_groups_minus1") == 0 else {
            throw ImageCodecError(.unsupported, "H.264 slice groups (FMO) are not supported")
        }
        _ = try r.ue(in: 0...31, "num_ref_idx_l0_default_active_minus1")
        _ = try r.ue(in: 0...31, "num_ref_idx_l1_default_active_minus1")
        _ = try r.u(3)  // weighted_pred_flag, weighted_bipred_idc
        p.initQP = try r.se(in: -26...25, "pic_init_qp_minus26") + 26
        _ = try r.se(in: -26...25, "pic_init_qs_minus26")
        p.chromaQPOffset = try r.se(in: -12...12, "chroma_qp_index_offset")
        p.secondChromaQPOffset = p.chromaQPOffset
        p.deblockingControlPresent = try r.uFlag()
        p.constrainedIntraPred = try r.uFlag()
        p.redundantPicCntPresent = try r.uFlag()
        if r.moreRBSPData() {
            p.transform8x8Mode = try r.uFlag()
            if try r.uFlag() {
                // 4:4:4 would send 6 8x8 lists; refused with the SPS, so 2 here.
                p.sentLists = try H264ScalingLists.parseSent(&r, count: 6 + (p.transform8x8Mode ? 2 : 0))
            }
            p.secondChromaQPOffset = try r.se(in: -12...12, "second_chroma_qp_index_offset")
        }
        return p
    }

    /// The scaling lists in force for a picture of this PPS under `sps` (7.4.2.2 fall-back
    /// rules A and B), in zig-zag order, or nil for Flat_16 throughout.
    func scalingLists(sps: H264SequenceParameterSet) -> [[UInt8]]? {
        guard let sentLists else { return sps.scalingLists }
        return H264ScalingLists.resolve(sentLists, fallback: sps.scalingLists)
    }
}

/// scaling_list() syntax (7.3.2.1.1.1) and the fall-back rules of table 7-2.
enum H264ScalingLists {
    /// Lists 0...count-1 of an SPS, fall-back rule A applied (`fallback` nil).
    static func parse(_ r: inout H264BitReader, count: Int, fallback: [[UInt8]]?) throws -> [[UInt8]] {
        resolve(try parseSent(&r, count: count), fallback: fallback)
    }

    /// The lists as sent: nil where not present, the default list where signalled.
    static func parseSent(_ r: inout H264BitReader, count: Int) throws -> [[UInt8]?] {
        var lists: [[UInt8]?] = []
        for i in 0..<count {
            guard try r.uFlag() else {
                lists.append(nil)
                continue
            }
            let size = i < 6 ? 16 : 64
            var list = [UInt8](repeating: 0, count: size)
            var last = 8, next = 8
            var useDefault = false
            for j in 0..<size {
                if next != 0 {
                    let delta = try r.se(in: -128...127, "delta_scale")
                    next = (last + delta + 256) % 256
                    useDefault = j == 0 && next == 0
                }
                list[j] = UInt8(next == 0 ? last : next)
                last = Int(list[j])
            }
            lists.append(useDefault ? defaultList(i) : list)
        }
        return lists
    }

    static func defaultList(_ i: Int) -> [UInt8] {
        switch i {
        case 0...2: return H264Tables.default4Intra
        case 3...5: return H264Tables.default4Inter
        default: return i % 2 == 0 ? H264Tables.default8Intra : H264Tables.default8Inter
        }
    }

    /// Fills the lists not sent: from the previous list of the same kind, or for the first
    /// of each kind from the default (rule A, `fallback` nil) or the SPS's list (rule B).
    static func resolve(_ sent: [[UInt8]?], fallback: [[UInt8]]?) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for i in 0..<8 {
            if i < sent.count, let list = sent[i] {
                out.append(list)
            } else if i == 0 || i == 3 || i >= 6 {
                out.append(fallback?[i] ?? defaultList(i))
            } else {
                out.append(out[i - 1])
            }
        }
        return out
    }
}
