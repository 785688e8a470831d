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
}

/// Mode numbers shared by 16×16, chroma and 4×4 prediction.
enum VP8Mode {
    static let dc: UInt8 = 0, tm: UInt8 = 1, vertical: UInt8 = 2, horizontal: UInt8 = 3
}

/// Parses macroblock headers from the first partition and coefficient tokens from a token
/// partition, keeping the above/left contexts (modes and non-zero flags) a macroblock needs.
struct VP8MacroblockReader {
    private let header: VP8FrameHeader
    /// Sub-block modes along the bottom of the macroblock row above, 4 per column.
    private var topModes: [UInt8]
    private var leftModes: InlineArray<4, UInt8> = .init(repeating: 0)
    /// Non-zero flags of the blocks touching the next macroblock below: 4 Y, 2 U, 2 V, Y2.
    private var topNonZero: [UInt8]
    private var leftNonZero: InlineArray<9, UInt8> = .init(repeating: 0)

    static let zigzag: [Int] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]
    /// Band of each coefficient position; position 16 is a sentinel.
    static let bands: [Int] = [0, 1, 2, 3, 6, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 0]
    /// The sub-block mode tree (RFC 6386 11.2): positive entries point at the next node pair,
    /// others are negated modes.
    static let subblockTree: [Int] = [0, 1, -1, 2, -2, 3, 4, 6, -3, 5, -4, -5, -6, 7, -7, 8, -8, -9]

    init(header: VP8FrameHeader) {
        self.header = header
        topModes = [UInt8](repeating: 0, count: header.macroblockColumns * 4)
        topNonZero = [UInt8](repeating: 0, count: header.macroblockColumns * 9)
    }

    /// Resets the left contexts at the start of a macroblock row.
    mutating func startRow() {
        leftModes = .init(repeating: 0)
        leftNonZero = .init(repeating: 0)
    }

    /// Segment, skip flag and modes of the macroblock in column `x`, from the first partition.
    mutating func readModes(_ d: inout VP8BoolDecoder, x: Int, into mb: inout VP8Macroblock) {
        if header.updateSegmentMap {
            let p = header.segmentProbabilities
            mb.segment = d.bit(p.0) == 0 ? d.bit(p.1) : 2 + d.bit(p.2)
        } else {
            mb.segment = 0
        }
        mb.skip = header.skipProbability.map { d.bit($0) == 1 } ?? false
        mb.is4x4 = d.bit(145) == 0
        if !mb.is4x4 {
            let mode: UInt8 = d.bit(156) == 1 ? (d.bit(128) == 1 ? VP8Mode.tm : VP8Mode.horizontal)
                                              : (d.bit(163) == 1 ? VP8Mode.vertical : VP8Mode.dc)
            mb.lumaModes[0] = mode
            for i in 0..<4 { topModes[x * 4 + i] = mode; leftModes[i] = mode }
        } else {
            WebPTables.subblockModeProbabilities.withUnsafeBufferPointer { table in
                for row in 0..<4 {
                    var left = leftModes[row]
                    for column in 0..<4 {
                        let above = topModes[x * 4 + column]
                        let p = table.baseAddress! + (Int(above) * 10 + Int(left)) * 9
                        var i = Self.subblockTree[d.bit(p[0])]
                        while i > 0 { i = Self.subblockTree[2 * i + d.bit(p[i])] }
                        let mode = UInt8(-i)
                        topModes[x * 4 + column] = mode
                        mb.lumaModes[row * 4 + column] = mode
                        left = mode
                    }
                    leftModes[row] = left
                }
            }
        }
        mb.chromaMode = d.bit(142) == 0 ? VP8Mode.dc : (d.bit(114) == 0 ? VP8Mode.vertical : (d.bit(183) == 1 ? VP8Mode.tm : VP8Mode.horizontal))
    }

    /// Reads the coefficients of the macroblock in column `x` into `coefficients` (384 values,
    /// 16 per block, natural order, dequantised; zeroed first). Sets `mb.nonZeroBlocks`.
    mutating func readCoefficients(_ d: inout VP8BoolDecoder, x: Int, mb: inout VP8Macroblock,
                                   coefficients: UnsafeMutablePointer<Int16>) {
        coefficients.update(repeating: 0, count: 384)
        let top = x * 9
        if mb.skip {
            for i in 0..<8 { topNonZero[top + i] = 0; leftNonZero[i] = 0 }
            if !mb.is4x4 { topNonZero[top + 8] = 0; leftNonZero[8] = 0 }
            mb.nonZeroBlocks = 0
            return
        }
        let q = header.quantisers[mb.segment]
        var nonZero: UInt32 = 0
        header.coefficientProbabilities.withUnsafeBufferPointer { probabilities in
            let probs = probabilities.baseAddress!
            let first: Int
            let lumaType: Int
            if !mb.is4x4 {
                var dc = InlineArray<16, Int16>(repeating: 0)
                let context = Int(topNonZero[top + 8] + leftNonZero[8])
                let count = withUnsafeMutablePointer(to: &dc) { p in
                    p.withMemoryRebound(to: Int16.self, capacity: 16) {
                        Self.readBlock(&d, probs, type: 1, context: context, dc: q.y2.dc, ac: q.y2.ac, first: 0, out: $0)
                    }
                }
                let flag: UInt8 = count > 0 ? 1 : 0
                topNonZero[top + 8] = flag
                leftNonZero[8] = flag
                VP8InverseTransform.walshHadamard(dc, into: coefficients, full: count > 1)
                first = 1
                lumaType = 0
            } else {
                first = 0
                lumaType = 3
            }
            for row in 0..<4 {
                for column in 0..<4 {
                    let context = Int(topNonZero[top + column] + leftNonZero[row])
                    let block = coefficients + (row * 4 + column) * 16
                    let count = Self.readBlock(&d, probs, type: lumaType, context: context, dc: q.y1.dc, ac: q.y1.ac, first: first, out: block)
                    let flag: UInt8 = count > first ? 1 : 0
                    topNonZero[top + column] = flag
                    leftNonZero[row] = flag
                    if count > 1 || block[0] != 0 { nonZero |= 1 << UInt32(row * 4 + column) }
                }
            }
            for plane in 0..<2 {
                for row in 0..<2 {
                    for column in 0..<2 {
                        let t = top + 4 + plane * 2 + column, l = 4 + plane * 2 + row
                        let context = Int(topNonZero[t] + leftNonZero[l])
                        let index = 16 + plane * 4 + row * 2 + column
                        let block = coefficients + index * 16
                        let count = Self.readBlock(&d, probs, type: 2, context: context, dc: q.uv.dc, ac: q.uv.ac, first: 0, out: block)
                        let flag: UInt8 = count > 0 ? 1 : 0
                        topNonZero[t] = flag
                        leftNonZero[l] = flag
                        if count > 1 || block[0] != 0 { nonZero |= 1 << UInt32(index) }
                    }
                }
            }
        }
        mb.nonZeroBlocks = nonZero
        // A macroblock whose coefficients are all zero counts as skipped for the loop filter.
        mb.skip = nonZero == 0
    }

    /// The tokens of one block (RFC 6386 13.2). Returns the position after the last coded
    /// token: `first` when the block ends at once, 16 when it runs to the end.
    @inline(__always)
    private static func readBlock(_ d: inout VP8BoolDecoder, _ probs: UnsafePointer<UInt8>, type: Int, context: Int,
                                  dc: Int32, ac: Int32, first: Int, out: UnsafeMutablePointer<Int16>) -> Int {
        let typeBase = type &* 264
        var n = first
        var p = probs + (typeBase &+ bands[n] &* 33 &+ context &* 11)
        while n < 16 {
            if d.bit(p[0]) == 0 { return n }
            while d.bit(p[1]) == 0 {
                n &+= 1
                if n == 16 { return 16 }
                p = probs + (typeBase &+ bands[n] &* 33)
            }
            let next = probs + (typeBase &+ bands[n &+ 1] &* 33)
            let magnitude: Int32
            if d.bit(p[2]) == 0 {
                magnitude = 1
                p = next + 11
            } else {
                magnitude = largeValue(&d, p)
                p = next + 22
            }
            let value = d.bit(128) == 1 ? -magnitude : magnitude
            out[zigzag[n]] = Int16(truncatingIfNeeded: value &* (n > 0 ? ac : dc))
            n &+= 1
        }
        return 16
    }

    private static let extraBitProbabilities: [[UInt8]] = [
        [173, 148, 140], [176, 155, 140, 135], [180, 157, 141, 134, 130],
        [254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129],
    ]

    /// A token of magnitude 2 or more: the small literals and categories 1-6 (RFC 6386 13.2).
    private static func largeValue(_ d: inout VP8BoolDecoder, _ p: UnsafePointer<UInt8>) -> Int32 {
        if d.bit(p[3]) == 0 {
            if d.bit(p[4]) == 0 { return 2 }
            return 3 + Int32(d.bit(p[5]))
        }
        if d.bit(p[6]) == 0 {
            if d.bit(p[7]) == 0 { return 5 + Int32(d.bit(159)) }
            var v = 7 + 2 * Int32(d.bit(165))
            v += Int32(d.bit(145))
            return v
        }
        let high = d.bit(p[8])
        let low = d.bit(p[9 + high])
        let category = 2 * high + low
        var v: Int32 = 0
        for probability in extraBitProbabilities[category] { v = 2 * v + Int32(d.bit(probability)) }
        return v + 3 + (8 << Int32(category))
    }
}
