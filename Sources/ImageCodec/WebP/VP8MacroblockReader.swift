/// What the bitstream says about one macroblock: its segment, prediction modes and the
/// dequantised coefficients of its 16 luma and 8 chroma 4×4 blocks (RFC 6386 sections 10-13).
struct VP8Macroblock {
    var segment = 0
    var skip = false
    var is4x4 = false
    /// Luma mode of a 16×16-predicted macroblock, or the 16 sub-block modes in raster order
    /// (numbered DC, TM, VE, HE, RD, VR, LD, VL, HD, HU; 16×16 modes use DC, TM, VE, HE).
    var lumaModes: InlineArray<16, UInt8> = .init(repeating: 0)
    var chromaMode: UInt8 = 0
    /// Bit b set when block b (0-15 luma, 16-19 U, 20-23 V) has a non-zero coefficient.
    var nonZeroBlocks: UInt32 = 0
    /// Bit b set when block b may have a non-zero coefficient past the DC (needs the full
    /// IDCT); a block with only `nonZeroBlocks` set adds its rounded DC to every pixel.
    var acBlocks: UInt32 = 0
}

/// Mode numbers shared by 16×16, chroma and 4×4 prediction.
enum VP8Mode {
    static let dc: UInt8 = 0, tm: UInt8 = 1, vertical: UInt8 = 2, horizontal: UInt8 = 3
}

/// Parses macroblock headers from the first partition and coefficient tokens from a token
/// partition, keeping the above/left contexts (modes and non-zero flags) a macroblock needs.
///
/// Why one raw allocation: the token loop reads a probability, a band and a zigzag position
/// per decision, and the contexts per block. As Swift arrays each read paid a bounds check
/// and each write a uniqueness check (6.5 M instructions on a 2560×1600 frame); here they
/// are plain loads through pointers fixed at `init`. The token probabilities are laid out per
/// coefficient position (bands expanded, libwebp's `bands_ptr` idea), so the walk reads
/// `probabilities + position · 33 + context · 11` with no band lookup.
final class VP8MacroblockReader {
    private let header: VP8FrameHeader
    private let storage: UnsafeMutablePointer<UInt8>
    /// [type 4][position 17][context 3][node 11]; position 16 is never read for a decision.
    private let probabilities: UnsafeMutablePointer<UInt8>
    /// Extra-bit probabilities of categories 3-6 (3, 4, 5 and 11 of them).
    private let extraBits: UnsafeMutablePointer<UInt8>
    /// `WebPTables.subblockModeProbabilities`: [above 10][left 10][node 9].
    private let subblockProbabilities: UnsafeMutablePointer<UInt8>
    /// Sub-block modes along the bottom of the macroblock row above, 4 per column.
    private let topModes: UnsafeMutablePointer<UInt8>
    private let leftModes: UnsafeMutablePointer<UInt8>
    /// Non-zero flags of the blocks touching the next macroblock below: 4 Y, 2 U, 2 V, Y2.
    private let topNonZero: UnsafeMutablePointer<UInt8>
    private let leftNonZero: UnsafeMutablePointer<UInt8>

    private static let positions = 17, typeSize = 17 * 33
    /// Band of each coefficient position; position 16 is a sentinel.
    private static let bands: [Int] = [0, 1, 2, 3, 6, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 0]
    /// Zigzag position n → natural index, one nibble per position (n = 0 in the low nibble).
    private static let zigzagNibbles: UInt64 = 0xFEB7_ADC9_6325_8410
    /// The sub-block mode tree (RFC 6386 11.2): positive entries point at the next node pair,
    /// others are negated modes.
    private static let subblockTree: [Int] = [0, 1, -1, 2, -2, 3, 4, 6, -3, 5, -4, -5, -6, 7, -7, 8, -8, -9]
    private static let extraBitProbabilities: [UInt8] = [
        173, 148, 140, 176, 155, 140, 135, 180, 157, 141, 134, 130,
        254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129,
    ]

    init(header: VP8FrameHeader) {
        self.header = header
        let columns = header.macroblockColumns
        let tokenBytes = 4 * Self.typeSize, subblockBytes = 900
        let count = tokenBytes + 23 + subblockBytes + columns * 13 + 13
        storage = .allocate(capacity: count)
        storage.initialize(repeating: 0, count: count)
        probabilities = storage
        extraBits = storage + tokenBytes
        subblockProbabilities = extraBits + 23
        topModes = subblockProbabilities + subblockBytes
        topNonZero = topModes + columns * 4
        leftModes = topNonZero + columns * 9
        leftNonZero = leftModes + 4
        header.coefficientProbabilities.withUnsafeBufferPointer { source in
            for type in 0..<4 {
                for position in 0..<Self.positions {
                    (probabilities + type * Self.typeSize + position * 33).update(
                        from: source.baseAddress! + type * 264 + Self.bands[position] * 33, count: 33)
                }
            }
        }
        for i in 0..<23 { extraBits[i] = Self.extraBitProbabilities[i] }
        for i in 0..<subblockBytes { subblockProbabilities[i] = WebPTables.subblockModeProbabilities[i] }
    }

    deinit { storage.deallocate() }

    /// Resets the left contexts at the start of a macroblock row.
    func startRow() {
        leftModes.update(repeating: 0, count: 4)
        leftNonZero.update(repeating: 0, count: 9)
    }

    /// Segment, skip flag and modes of the macroblock in column `x`, from the first partition.
    func readModes(_ d: inout VP8BoolDecoder, x: Int, into mb: inout VP8Macroblock) {
        if header.updateSegmentMap {
            let p = header.segmentProbabilities
            mb.segment = d.bit(p.0) == 0 ? d.bit(p.1) : 2 + d.bit(p.2)
        } else {
            mb.segment = 0
        }
        if let skip = header.skipProbability { mb.skip = d.bit(skip) == 1 } else { mb.skip = false }
        mb.is4x4 = d.bit(145) == 0
        let top = topModes + x &* 4
        if !mb.is4x4 {
            let mode: UInt8 = d.bit(156) == 1 ? (d.bit(128) == 1 ? VP8Mode.tm : VP8Mode.horizontal)
                                              : (d.bit(163) == 1 ? VP8Mode.vertical : VP8Mode.dc)
            mb.lumaModes[0] = mode
            top.update(repeating: mode, count: 4)
            leftModes.update(repeating: mode, count: 4)
        } else {
            for row in 0..<4 {
                var left = leftModes[row]
                for column in 0..<4 {
                    let p = subblockProbabilities + (Int(top[column]) &* 10 &+ Int(left)) &* 9
                    var i = Self.subblockTree[d.bit(p[0])]
                    while i > 0 { i = Self.subblockTree[2 &* i &+ d.bit(p[i])] }
                    let mode = UInt8(truncatingIfNeeded: -i)
                    top[column] = mode
                    mb.lumaModes[row &* 4 &+ column] = mode
                    left = mode
                }
                leftModes[row] = left
            }
        }
        mb.chromaMode = d.bit(142) == 0 ? VP8Mode.dc : (d.bit(114) == 0 ? VP8Mode.vertical : (d.bit(183) == 1 ? VP8Mode.tm : VP8Mode.horizontal))
    }

    /// Reads the coefficients of the macroblock in column `x` into `coefficients` (384 values,
    /// 16 per block, natural order, dequantised; zeroed first). Sets `mb.nonZeroBlocks` and
    /// `mb.acBlocks`.
    func readCoefficients(_ decoder: inout VP8BoolDecoder, x: Int, mb: inout VP8Macroblock,
                          coefficients: UnsafeMutablePointer<Int16>) {
        coefficients.update(repeating: 0, count: 384)
        let top = topNonZero + x &* 9, left = leftNonZero
        if mb.skip {
            top.update(repeating: 0, count: 8)
            left.update(repeating: 0, count: 8)
            if !mb.is4x4 { top[8] = 0; left[8] = 0 }
            mb.nonZeroBlocks = 0
            mb.acBlocks = 0
            return
        }
        // The decoder's state stays in registers for the whole macroblock.
        var d = decoder
        defer { decoder = d }
        let q = header.quantisers[mb.segment]
        var nonZero: UInt32 = 0, ac: UInt32 = 0
        let first: Int
        let luma: UnsafeMutablePointer<UInt8>
        if !mb.is4x4 {
            var dc = InlineArray<16, Int16>(repeating: 0)
            let context = Int(top[8] &+ left[8])
            let count = withUnsafeMutablePointer(to: &dc) { p in
                p.withMemoryRebound(to: Int16.self, capacity: 16) {
                    Self.readBlock(&d, probabilities + Self.typeSize, extraBits, context: context,
                                   dc: q.y2.dc, ac: q.y2.ac, first: 0, out: $0)
                }
            }
            let flag: UInt8 = count > 0 ? 1 : 0
            top[8] = flag
            left[8] = flag
            VP8InverseTransform.walshHadamard(dc, into: coefficients, full: count > 1)
            first = 1
            luma = probabilities
        } else {
            first = 0
            luma = probabilities + 3 &* Self.typeSize
        }
        for row in 0..<4 {
            var l = left[row]
            for column in 0..<4 {
                let context = Int(top[column] &+ l)
                let index = row &* 4 &+ column
                let block = coefficients + index &* 16
                let count = Self.readBlock(&d, luma, extraBits, context: context, dc: q.y1.dc, ac: q.y1.ac, first: first, out: block)
                l = count > first ? 1 : 0
                top[column] = l
                if count > 1 { ac |= 1 << UInt32(index) }
                if count > 1 || block[0] != 0 { nonZero |= 1 << UInt32(index) }
            }
            left[row] = l
        }
        let chroma = probabilities + 2 &* Self.typeSize
        for plane in 0..<2 {
            for row in 0..<2 {
                for column in 0..<2 {
                    let t = 4 &+ plane &* 2 &+ column, l = 4 &+ plane &* 2 &+ row
                    let context = Int(top[t] &+ left[l])
                    let index = 16 &+ plane &* 4 &+ row &* 2 &+ column
                    let block = coefficients + index &* 16
                    let count = Self.readBlock(&d, chroma, extraBits, context: context, dc: q.uv.dc, ac: q.uv.ac, first: 0, out: block)
                    let flag: UInt8 = count > 0 ? 1 : 0
                    top[t] = flag
                    left[l] = flag
                    if count > 1 { ac |= 1 << UInt32(index) }
                    if count > 1 || block[0] != 0 { nonZero |= 1 << UInt32(index) }
                }
            }
        }
        mb.nonZeroBlocks = nonZero
        mb.acBlocks = ac
        // A macroblock whose coefficients are all zero counts as skipped for the loop filter.
        mb.skip = nonZero == 0
    }

    /// The tokens of one block (RFC 6386 13.2), with `probabilities` pointing at its type's
    /// per-position table. Returns the position after the last coded token: `first` when the
    /// block ends at once, 16 when it runs to the end.
    @inline(__always)
    private static func readBlock(_ d: inout VP8BoolDecoder, _ probabilities: UnsafePointer<UInt8>, _ extra: UnsafePointer<UInt8>,
                                  context: Int, dc: Int32, ac: Int32, first: Int, out: UnsafeMutablePointer<Int16>) -> Int {
        var n = first
        var p = probabilities + (n &* 33 &+ context &* 11)
        while n < 16 {
            if d.bit(p[0]) == 0 { return n }
            while d.bit(p[1]) == 0 {
                n &+= 1
                if n == 16 { return 16 }
                p = probabilities + n &* 33
            }
            let next = probabilities + (n &+ 1) &* 33
            let magnitude: Int32
            if d.bit(p[2]) == 0 {
                magnitude = 1
                p = next + 11
            } else {
                magnitude = largeValue(&d, p, extra)
                p = next + 22
            }
            let value = d.signed(magnitude)
            let position = Int(truncatingIfNeeded: (zigzagNibbles &>> UInt64(truncatingIfNeeded: n &* 4)) & 15)
            out[position] = Int16(truncatingIfNeeded: value &* (n > 0 ? ac : dc))
            n &+= 1
        }
        return 16
    }

    /// A token of magnitude 2 or more: the small literals and categories 1-6 (RFC 6386 13.2).
    private static func largeValue(_ d: inout VP8BoolDecoder, _ p: UnsafePointer<UInt8>, _ extra: UnsafePointer<UInt8>) -> Int32 {
        if d.bit(p[3]) == 0 {
            if d.bit(p[4]) == 0 { return 2 }
            return 3 &+ Int32(d.bit(p[5]))
        }
        if d.bit(p[6]) == 0 {
            if d.bit(p[7]) == 0 { return 5 &+ Int32(d.bit(159)) }
            var v = 7 &+ 2 &* Int32(d.bit(165))
            v &+= Int32(d.bit(145))
            return v
        }
        let high = d.bit(p[8])
        let low = d.bit(p[9 &+ high])
        let category = 2 &* high &+ low
        // Categories 3-6 have 3, 4, 5 and 11 extra bits starting at 0, 3, 7 and 12.
        let start = category == 3 ? 12 : category &* 3 &+ (category >> 1)
        let count = category == 3 ? 11 : 3 &+ category
        var v: Int32 = 0
        for i in 0..<count { v = 2 &* v &+ Int32(d.bit(extra[start &+ i])) }
        return v &+ 3 &+ (8 << Int32(category))
    }
}
