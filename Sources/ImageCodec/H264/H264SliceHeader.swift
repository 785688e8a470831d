/// The slice header fields an intra picture needs (7.3.3), read up to the start of slice data.
struct H264SliceHeader {
    var firstMb = 0
    /// slice_type % 5: 0 P, 1 B, 2 I, 3 SP, 4 SI.
    var sliceType = 2
    var ppsId = 0
    var qp = 26
    var disableDeblocking = 0
    var alphaOffset = 0
    var betaOffset = 0
    /// Byte position of slice data in the RBSP (CABAC) or bit position (CAVLC).
    var dataBitPosition = 0

    var isIntra: Bool { sliceType == 2 }

    /// first_mb_in_slice, slice_type and pic_parameter_set_id: enough to pick the parameter sets.
    static func parsePrefix(_ r: inout H264BitReader) throws -> H264SliceHeader {
        var h = H264SliceHeader()
        h.firstMb = try r.ue(in: 0...(1 << 24), "first_mb_in_slice")
        h.sliceType = try r.ue(in: 0...9, "slice_type") % 5
        h.ppsId = try r.ue(in: 0...255, "pic_parameter_set_id")
        return h
    }

    /// The rest of an I slice's header after `parsePrefix`.
    mutating func parseIntraRest(_ r: inout H264BitReader, nal: H264NALUnit, sps: H264SequenceParameterSet,
                                 pps: H264PictureParameterSet) throws {
        _ = try r.u(sps.log2MaxFrameNum)
        if nal.type == H264NALUnit.sliceIDR { _ = try r.ue(in: 0...65535, "idr_pic_id") }
        if sps.pocType == 0 {
            _ = try r.u(sps.log2MaxPocLsb)
            if pps.bottomFieldPicOrderPresent { _ = try r.se() }
        } else if sps.pocType == 1 && !sps.deltaPicOrderAlwaysZero {
            _ = try r.se()
            if pps.bottomFieldPicOrderPresent { _ = try r.se() }
        }
        if pps.redundantPicCntPresent {
            guard try r.ue(in: 0...127, "redundant_pic_cnt") == 0 else {
                throw ImageCodecError(.unsupported, "H.264 redundant pictures are not decoded")
            }
        }
        if nal.refIdc != 0 {
            if nal.type == H264NALUnit.sliceIDR {
                _ = try r.u(2)
            } else if try r.uFlag() {
                // dec_ref_pic_marking's operations: at most one per reference frame and a few more.
                var operations = 0
                while true {
                    let op = try r.ue(in: 0...6, "memory_management_control_operation")
                    if op == 0 { break }
                    operations += 1
                    guard operations <= 100 else { throw ImageCodecError(.corrupt, "H.264 too many memory management operations") }
                    if op == 1 || op == 3 { _ = try r.ue() }
                    if op == 2 { _ = try r.ue() }
                    if op == 3 || op == 6 { _ = try r.ue() }
                    if op == 4 { _ = try r.ue() }
                }
            }
        }
        qp = pps.initQP + (try r.se(in: -51...51, "slice_qp_delta"))
        guard (0...51).contains(qp) else { throw ImageCodecError(.corrupt, "H.264 slice QP \(qp) out of range") }
        if pps.deblockingControlPresent {
            disableDeblocking = try r.ue(in: 0...2, "disable_deblocking_filter_idc")
            if disableDeblocking != 1 {
                alphaOffset = try r.se(in: -6...6, "slice_alpha_c0_offset_div2") * 2
                betaOffset = try r.se(in: -6...6, "slice_beta_offset_div2") * 2
            }
        }
        dataBitPosition = r.position
    }
}
