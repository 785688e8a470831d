/// CABAC tables (H.265 9.3.4.3.2) and the context variables of intra slices: where each
/// syntax element's contexts live in the context array and their initValues for initType 0
/// (tables 9-5 to 9-37).
enum HEVCCABACTables {
    /// rangeTabLps[pStateIdx][qRangeIdx], flattened (index pStateIdx * 4 + qRangeIdx).
    static let rangeLPS: [UInt8] = [
        128, 176, 208, 240, 128, 167, 197, 227, 128, 158, 187, 216, 123, 150, 178, 205, 116, 142, 169, 195,
        111, 135, 160, 185, 105, 128, 152, 175, 100, 122, 144, 166, 95, 116, 137, 158, 90, 110, 130, 150,
        85, 104, 123, 142, 81, 99, 117, 135, 77, 94, 111, 128, 73, 89, 105, 122, 69, 85, 100, 116,
        66, 80, 95, 110, 62, 76, 90, 104, 59, 72, 86, 99, 56, 69, 81, 94, 53, 65, 77, 89,
        51, 62, 73, 85, 48, 59, 69, 80, 46, 56, 66, 76, 43, 53, 63, 72, 41, 50, 59, 69,
        39, 48, 56, 65, 37, 45, 54, 62, 35, 43, 51, 59, 33, 41, 48, 56, 32, 39, 46, 53,
        30, 37, 43, 50, 29, 35, 41, 48, 27, 33, 39, 45, 26, 31, 37, 43, 24, 30, 35, 41,
        23, 28, 33, 39, 22, 27, 32, 37, 21, 26, 30, 35, 20, 24, 29, 33, 19, 23, 27, 31,
        18, 22, 26, 30, 17, 21, 25, 28, 16, 20, 23, 27, 15, 19, 22, 25, 14, 18, 21, 24,
        14, 17, 20, 23, 13, 16, 19, 22, 12, 15, 18, 21, 12, 14, 17, 20, 11, 14, 16, 19,
        11, 13, 15, 18, 10, 12, 15, 17, 10, 12, 14, 16, 9, 11, 13, 15, 9, 11, 12, 14,
        8, 10, 12, 14, 8, 9, 11, 13, 7, 9, 11, 12, 7, 9, 10, 12, 7, 8, 10, 11,
        6, 8, 9, 11, 6, 7, 9, 10, 6, 7, 8, 9, 2, 2, 2, 2,
    ]

    private static let transIdxLPS: [UInt8] = [
        0, 0, 1, 2, 2, 4, 4, 5, 6, 7, 8, 9, 9, 11, 11, 12, 13, 13, 15, 15, 16, 16, 18, 18, 19, 19, 21, 21,
        22, 22, 23, 24, 24, 25, 26, 26, 27, 27, 28, 29, 29, 30, 30, 30, 31, 32, 32, 33, 33, 33, 34, 34, 35,
        35, 35, 36, 36, 36, 37, 37, 37, 38, 38, 63,
    ]

    /// Next context state ((pStateIdx << 1) | valMps) after decoding the MPS / the LPS.
    static let nextStateMPS: [UInt8] = (0..<128).map { ctx in
        let s = ctx >> 1
        return UInt8((s >= 62 ? s : s + 1) << 1 | ctx & 1)
    }
    static let nextStateLPS: [UInt8] = (0..<128).map { ctx in
        let s = ctx >> 1, mps = ctx & 1
        return UInt8(Int(transIdxLPS[s]) << 1 | (s == 0 ? 1 - mps : mps))
    }

    /// rangeLPS (256 values), then the next state after an MPS (128), then after an LPS (128),
    /// in one block allocated once for the process: the engine keeps its address in a register
    /// instead of going through the lazily initialised arrays above for every bin.
    nonisolated(unsafe) static let stateTable: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 512)
        table.initialize(repeating: 0, count: 512)
        for i in 0..<256 { table[i] = rangeLPS[i] }
        for i in 0..<128 {
            table[256 + i] = nextStateMPS[i]
            table[384 + i] = nextStateLPS[i]
        }
        return UnsafePointer(table)
    }()

    // Offsets of each syntax element's contexts in the context array.
    static let saoMerge = 0
    static let saoTypeIdx = 1
    static let splitCuFlag = 2
    static let cuTransquantBypass = 5
    static let partMode = 6
    static let prevIntraLumaPred = 7
    static let intraChromaPredMode = 8
    static let splitTransformFlag = 9
    static let cbfLuma = 12
    static let cbfChroma = 14
    static let cuQpDeltaAbs = 19
    static let transformSkipFlag = 21
    static let lastXPrefix = 23
    static let lastYPrefix = 41
    static let codedSubBlockFlag = 59
    static let sigCoeffFlag = 63
    static let greater1Flag = 107
    static let greater2Flag = 131
    static let count = 137

    /// initValue of every context, in the order of the offsets above.
    static let initValues: [UInt8] = {
        var v: [UInt8] = []
        v += [153]                       // sao_merge_left_flag / sao_merge_up_flag
        v += [200]                       // sao_type_idx_luma / sao_type_idx_chroma
        v += [139, 141, 157]             // split_cu_flag
        v += [154]                       // cu_transquant_bypass_flag
        v += [184]                       // part_mode
        v += [184]                       // prev_intra_luma_pred_flag
        v += [63]                        // intra_chroma_pred_mode
        v += [153, 138, 138]             // split_transform_flag
        v += [111, 141]                  // cbf_luma
        v += [94, 138, 182, 154, 154]    // cbf_cb, cbf_cr
        v += [154, 154]                  // cu_qp_delta_abs
        v += [139, 139]                  // transform_skip_flag (luma, chroma)
        let last: [UInt8] = [110, 110, 124, 125, 140, 153, 125, 127, 140, 109, 111, 143, 127, 111, 79, 108, 123, 63]
        v += last                        // last_sig_coeff_x_prefix
        v += last                        // last_sig_coeff_y_prefix
        v += [91, 171, 134, 141]         // coded_sub_block_flag
        v += [111, 111, 125, 110, 110, 94, 124, 108, 124, 107, 125, 141, 179, 153, 125, 107, 125, 141,
              179, 153, 125, 107, 125, 141, 179, 153, 125, 140, 139, 182, 182, 152, 136, 152, 136, 153,
              136, 139, 111, 136, 139, 111, 141, 111]   // sig_coeff_flag
        v += [140, 92, 137, 138, 140, 152, 138, 139, 153, 74, 149, 92, 139, 107, 122, 152, 140, 179,
              166, 182, 140, 227, 122, 197]             // coeff_abs_level_greater1_flag
        v += [138, 153, 136, 167, 152, 152]             // coeff_abs_level_greater2_flag
        precondition(v.count == count)
        return v
    }()

    /// Initialises `contexts` for a slice with SliceQpY `qp` (9.3.2.2).
    static func initialise(_ contexts: UnsafeMutablePointer<UInt8>, sliceQp qp: Int) {
        let q = min(max(qp, 0), 51)
        for i in 0..<count {
            let initValue = Int(initValues[i])
            let m = (initValue >> 4) * 5 - 45
            let n = ((initValue & 15) << 3) - 16
            let pre = min(max(((m * q) >> 4) + n, 1), 126)
            contexts[i] = pre <= 63 ? UInt8((63 - pre) << 1) : UInt8((pre - 64) << 1 | 1)
        }
    }
}
