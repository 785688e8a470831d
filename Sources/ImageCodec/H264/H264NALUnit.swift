/// One H.264 NAL unit (7.3.1): its one-byte header decoded and its payload turned into RBSP
/// bytes (emulation prevention bytes removed). Splitting a stream or sample into units is
/// `HEVCNALSplitter`'s job, which frames both codecs the same way.
struct H264NALUnit {
    /// nal_unit_type (table 7-1).
    let type: Int
    /// nal_ref_idc: 0 for pictures nothing refers to.
    let refIdc: Int
    let rbsp: [UInt8]

    static let sliceNonIDR = 1, sliceIDR = 5, sps = 7, pps = 8, accessUnitDelimiter = 9
    static let partitionA = 2, partitionC = 4

    init(_ bytes: ArraySlice<UInt8>) throws {
        guard let b0 = bytes.first else { throw ImageCodecError(.corrupt, "H.264 NAL unit is empty") }
        guard b0 & 0x80 == 0 else { throw ImageCodecError(.corrupt, "H.264 NAL forbidden_zero_bit set") }
        type = Int(b0 & 0x1F)
        refIdc = Int(b0 >> 5) & 3
        rbsp = HEVCNALSplitter.unescaped(bytes, headerBytes: 1)
    }
}
