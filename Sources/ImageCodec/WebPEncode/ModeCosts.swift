/// Header cost (1/256 bit) of each intra mode on a key frame, from the fixed key-frame
/// probabilities (RFC 6386 §11.2-11.4): the i16/i4 flag (145), the 16×16 luma tree (156,
/// 163, 128), the chroma tree (142, 114, 183), and the 4×4 tree given the modes above and
/// to the left. Built once per encode; the 4×4 table is 10 × 10 × 10 entries.
struct ModeCosts: ~Copyable {
    /// [mode] for `IntraMode16` order, including the i16 flag.
    let i16: InlineArray<4, Int>
    /// [mode] DC, TM, V, H (the chroma tree codes DC, V, H, TM; costs are per our numbering).
    let uv: InlineArray<4, Int>
    /// The i4 flag alone.
    let i4Flag: Int
    /// [(above · 10 + left) · 10 + mode].
    let i4: UnsafeMutablePointer<Int32>

    init() {
        @inline(__always) func b(_ bit: Bool, _ p: Int) -> Int { Int(TokenCosts.bit(bit, p)) }
        let flag16 = b(true, 145)
        i16 = [flag16 + b(false, 156) + b(false, 163), // DC
               flag16 + b(true, 156) + b(true, 128),   // TM
               flag16 + b(false, 156) + b(true, 163),  // V
               flag16 + b(true, 156) + b(false, 128)]  // H
        uv = [b(false, 142),
              b(true, 142) + b(true, 114) + b(true, 183),
              b(true, 142) + b(false, 114),
              b(true, 142) + b(true, 114) + b(false, 183)]
        i4Flag = b(false, 145)
        i4 = .allocate(capacity: 1000)
        let probabilities = VP8Tables.subblockModeProbabilities
        for context in 0..<100 {
            for mode in 0..<10 {
                var cost: Int32 = 0
                ModeCosts.walkSubblockTree(mode) { bit, node in
                    cost += TokenCosts.bit(bit, Int(probabilities[context * 9 + node]))
                }
                i4[context * 10 + mode] = cost
            }
        }
    }

    deinit { i4.deallocate() }

    /// The decisions (bit, tree node 0...8) that code sub-block mode `mode` (`predict4`'s
    /// numbering: DC, TM, VE, HE, RD, VR, LD, VL, HD, HU), in order.
    @inline(__always)
    static func walkSubblockTree(_ mode: Int, _ emit: (Bool, Int) -> Void) {
        emit(mode != 0, 0)
        if mode == 0 { return }
        emit(mode != 1, 1)
        if mode == 1 { return }
        emit(mode != 2, 2)
        if mode == 2 { return }
        let upper = mode >= 6 // LD, VL, HD, HU
        emit(upper, 3)
        if !upper {
            emit(mode != 3, 4)
            if mode != 3 { emit(mode != 4, 5) }
        } else {
            emit(mode != 6, 6)
            if mode != 6 {
                emit(mode != 7, 7)
                if mode != 7 { emit(mode != 8, 8) }
            }
        }
    }
}
