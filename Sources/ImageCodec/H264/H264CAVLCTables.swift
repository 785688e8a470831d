/// The variable-length code tables of CAVLC (9.2, tables 9-5 and 9-7 to 9-10) as two-level
/// lookup tables: 8 bits first, then the rest of the longest code sharing those 8 bits.
struct H264VLC: Sendable {
    /// Leaf: symbol << 8 | length. Link: 1 << 31 | offset << 8 | extra bits.
    let entries: [UInt32]
    static let primaryBits = 8

    /// `lengths[i]`/`codes[i]` describe symbol i; length 0 means no code.
    init(lengths: [Int], codes: [Int]) {
        let primary = H264VLC.primaryBits
        var table = [UInt32](repeating: 0, count: 1 << primary)
        var longest = [Int: Int]()
        for (s, len) in lengths.enumerated() where len > primary {
            let prefix = codes[s] >> (len - primary)
            longest[prefix] = max(longest[prefix] ?? 0, len - primary)
        }
        for (prefix, extra) in longest.sorted(by: { $0.key < $1.key }) {
            table[prefix] = 1 << 31 | UInt32(table.count) << 8 | UInt32(extra)
            table += [UInt32](repeating: 0, count: 1 << extra)
        }
        for (s, len) in lengths.enumerated() where len > 0 {
            let code = codes[s]
            if len <= primary {
                let first = code << (primary - len)
                for i in first..<(first + (1 << (primary - len))) { table[i] = UInt32(s) << 8 | UInt32(len) }
            } else {
                let link = table[code >> (len - primary)]
                let extra = Int(link & 0xFF), offset = Int(link >> 8 & 0x7F_FFFF)
                let low = code & ((1 << (len - primary)) - 1)
                let first = low << (extra - (len - primary))
                for i in first..<(first + (1 << (extra - (len - primary)))) {
                    table[offset + i] = UInt32(s) << 8 | UInt32(len)
                }
            }
        }
        entries = table
    }
}

enum H264CAVLCTables {
    /// Indices of the tables in `flat`.
    static let coeffTokenIndex = 0, chromaDCTokenIndex = 4, totalZerosIndex = 5, chromaDCTotalZerosIndex = 20,
               runBeforeIndex = 23, tableCount = 30

    /// Every table in one allocation that lives as long as the process: entry i < 32 is the
    /// offset of table i, and links hold absolute offsets, so a decoder keeps one pointer.
    nonisolated(unsafe) static let flat: UnsafePointer<UInt32> = {
        let tables = coeffToken + [chromaDCToken] + totalZeros + chromaDCTotalZeros + runBefore
        var blob = [UInt32](repeating: 0, count: 32)
        for (i, table) in tables.enumerated() {
            let base = UInt32(blob.count)
            blob[i] = base
            blob += table.entries.map { $0 & (1 << 31) != 0 ? $0 + (base << 8) : $0 }
        }
        let p = UnsafeMutablePointer<UInt32>.allocate(capacity: blob.count)
        p.initialize(from: blob, count: blob.count)
        return UnsafePointer(p)
    }()

    /// Decodes one symbol of table `index` of `flat` at `r`, or throws on a bit pattern that is no code.
    @inline(__always)
    static func decode(_ flat: UnsafePointer<UInt32>, _ index: Int, _ r: inout H264Bits) throws -> Int {
        let word = r.peek32()
        var e = flat[Int(flat[index]) &+ Int(word >> 24)]
        if e & (1 << 31) != 0 {
            let extra = e & 0xFF
            e = flat[Int(e >> 8 & 0x7F_FFFF) &+ Int((word << 8) >> (32 &- extra))]
        }
        let length = Int(e & 0xFF)
        guard length > 0 else { throw ImageCodecError(.corrupt, "H.264 invalid CAVLC code") }
        r.skip(length)
        return Int(e >> 8)
    }

    /// coeff_token for 0 <= nC < 2, 2 <= nC < 4, 4 <= nC < 8, 8 <= nC; symbol TotalCoeff * 4 + TrailingOnes.
    private static let coeffToken: [H264VLC] = (0..<4).map { H264VLC(lengths: tokenLengths[$0], codes: tokenCodes[$0]) }
    /// coeff_token for nC == -1 (4:2:0 chroma DC).
    private static let chromaDCToken = H264VLC(
        lengths: [2, 0, 0, 0, 6, 1, 0, 0, 6, 6, 3, 0, 6, 7, 7, 6, 6, 8, 8, 7],
        codes: [1, 0, 0, 0, 7, 1, 0, 0, 4, 6, 1, 0, 3, 3, 2, 5, 2, 3, 2, 0])
    /// total_zeros for TotalCoeff 1...15 of 4x4 blocks (index TotalCoeff - 1).
    private static let totalZeros: [H264VLC] = (0..<15).map { H264VLC(lengths: zerosLengths[$0], codes: zerosCodes[$0]) }
    /// total_zeros for TotalCoeff 1...3 of 2x2 chroma DC.
    private static let chromaDCTotalZeros: [H264VLC] = [
        H264VLC(lengths: [1, 2, 3, 3], codes: [1, 1, 1, 0]),
        H264VLC(lengths: [1, 2, 2], codes: [1, 1, 0]),
        H264VLC(lengths: [1, 1], codes: [1, 0]),
    ]
    /// run_before for zerosLeft 1...6 and > 6 (index min(zerosLeft, 7) - 1).
    private static let runBefore: [H264VLC] = [
        H264VLC(lengths: [1, 1], codes: [1, 0]),
        H264VLC(lengths: [1, 2, 2], codes: [1, 1, 0]),
        H264VLC(lengths: [2, 2, 2, 2], codes: [3, 2, 1, 0]),
        H264VLC(lengths: [2, 2, 2, 3, 3], codes: [3, 2, 1, 1, 0]),
        H264VLC(lengths: [2, 2, 3, 3, 3, 3], codes: [3, 2, 3, 2, 1, 0]),
        H264VLC(lengths: [2, 3, 3, 3, 3, 3, 3], codes: [3, 0, 1, 3, 2, 5, 4]),
        H264VLC(lengths: [3, 3, 3, 3, 3, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11], codes: [7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
    ]

    private static let tokenLengths: [[Int]] = [
        [1, 0, 0, 0, 6, 2, 0, 0, 8, 6, 3, 0, 9, 8, 7, 5, 10, 9, 8, 6, 11, 10, 9, 7, 13, 11, 10, 8, 13, 13, 11, 9,
         13, 13, 13, 10, 14, 14, 13, 11, 14, 14, 14, 13, 15, 15, 14, 14, 15, 15, 15, 14, 16, 15, 15, 15, 16, 16, 16, 15,
         16, 16, 16, 16, 16, 16, 16, 16],
        [2, 0, 0, 0, 6, 2, 0, 0, 6, 5, 3, 0, 7, 6, 6, 4, 8, 6, 6, 4, 8, 7, 7, 5, 9, 8, 8, 6, 11, 9, 9, 6,
         11, 11, 11, 7, 12, 11, 11, 9, 12, 12, 12, 11, 12, 12, 12, 11, 13, 13, 13, 12, 13, 13, 13, 13, 13, 14, 13, 13,
         14, 14, 14, 13, 14, 14, 14, 14],
        [4, 0, 0, 0, 6, 4, 0, 0, 6, 5, 4, 0, 6, 5, 5, 4, 7, 5, 5, 4, 7, 5, 5, 4, 7, 6, 6, 4, 7, 6, 6, 4,
         8, 7, 7, 5, 8, 8, 7, 6, 9, 8, 8, 7, 9, 9, 8, 8, 9, 9, 9, 8, 10, 9, 9, 9, 10, 10, 10, 10,
         10, 10, 10, 10, 10, 10, 10, 10],
        [Int](repeating: 6, count: 68).enumerated().map { i, v in (i == 1 || i == 2 || i == 3 || i == 6 || i == 7 || i == 11) ? 0 : v },
    ]
    private static let tokenCodes: [[Int]] = [
        [1, 0, 0, 0, 5, 1, 0, 0, 7, 4, 1, 0, 7, 6, 5, 3, 7, 6, 5, 3, 7, 6, 5, 4, 15, 6, 5, 4, 11, 14, 5, 4,
         8, 10, 13, 4, 15, 14, 9, 4, 11, 10, 13, 12, 15, 14, 9, 12, 11, 10, 13, 8, 15, 1, 9, 12, 11, 14, 13, 8,
         7, 10, 9, 12, 4, 6, 5, 8],
        [3, 0, 0, 0, 11, 2, 0, 0, 7, 7, 3, 0, 7, 10, 9, 5, 7, 6, 5, 4, 4, 6, 5, 6, 7, 6, 5, 8, 15, 6, 5, 4,
         11, 14, 13, 4, 15, 10, 9, 4, 11, 14, 13, 12, 8, 10, 9, 8, 15, 14, 13, 12, 11, 10, 9, 12, 7, 11, 6, 8,
         9, 8, 10, 1, 7, 6, 5, 4],
        [15, 0, 0, 0, 15, 14, 0, 0, 11, 15, 13, 0, 8, 12, 14, 12, 15, 10, 11, 11, 11, 8, 9, 10, 9, 14, 13, 9, 8, 10, 9, 8,
         15, 14, 13, 13, 11, 14, 10, 12, 15, 10, 13, 12, 11, 14, 9, 12, 8, 10, 13, 8, 13, 7, 9, 12, 9, 12, 11, 10,
         5, 8, 7, 6, 1, 4, 3, 2],
        [3, 0, 0, 0, 0, 1, 0, 0, 4, 5, 6, 0] + (12..<68).map { $0 - 4 },
    ]
    private static let zerosLengths: [[Int]] = [
        [1, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 9], [3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 6, 6, 6, 6],
        [4, 3, 3, 3, 4, 4, 3, 3, 4, 5, 5, 6, 5, 6], [5, 3, 4, 4, 3, 3, 3, 4, 3, 4, 5, 5, 5],
        [4, 4, 4, 3, 3, 3, 3, 3, 4, 5, 4, 5], [6, 5, 3, 3, 3, 3, 3, 3, 4, 3, 6], [6, 5, 3, 3, 3, 2, 3, 4, 3, 6],
        [6, 4, 5, 3, 2, 2, 3, 3, 6], [6, 6, 4, 2, 2, 3, 2, 5], [5, 5, 3, 2, 2, 2, 4], [4, 4, 3, 3, 1, 3],
        [4, 4, 2, 1, 3], [3, 3, 1, 2], [2, 2, 1], [1, 1],
    ]
    private static let zerosCodes: [[Int]] = [
        [1, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 1], [7, 6, 5, 4, 3, 5, 4, 3, 2, 3, 2, 3, 2, 1, 0],
        [5, 7, 6, 5, 4, 3, 4, 3, 2, 3, 2, 1, 1, 0], [3, 7, 5, 4, 6, 5, 4, 3, 3, 2, 2, 1, 0],
        [5, 4, 3, 7, 6, 5, 4, 3, 2, 1, 1, 0], [1, 1, 7, 6, 5, 4, 3, 2, 1, 1, 0], [1, 1, 5, 4, 3, 3, 2, 1, 1, 0],
        [1, 1, 1, 3, 3, 2, 2, 1, 0], [1, 0, 1, 3, 2, 1, 1, 1], [1, 0, 1, 3, 2, 1, 1], [0, 1, 1, 2, 1, 3],
        [0, 1, 1, 1, 1], [0, 1, 1, 1], [0, 1, 1], [0, 1],
    ]
}
