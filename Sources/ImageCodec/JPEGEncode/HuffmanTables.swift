/// Huffman tables for the encoder: the T.81 Annex K tables cjpeg uses by default, the
/// per-symbol codes derived from a table, and optimal tables built from symbol counts.
struct HuffmanSpec: Equatable {
    /// BITS[1...16]: how many codes have each length.
    var bits: [UInt8]
    /// The symbols, ordered by code length.
    var values: [UInt8]

    static let standardDCLuma = HuffmanSpec(
        bits: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
        values: Array(0...11))

    static let standardDCChroma = HuffmanSpec(
        bits: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        values: Array(0...11))

    /// T.81 Table K.5.
    static let standardACLuma = HuffmanSpec(
        bits: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125],
        values: [
            0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
            0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
            0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
            0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
            0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
            0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
            0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
            0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
            0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
            0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
            0xf9, 0xfa,
        ])

    /// T.81 Table K.6.
    static let standardACChroma = HuffmanSpec(
        bits: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119],
        values: [
            0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
            0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
            0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
            0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
            0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
            0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
            0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
            0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
            0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
            0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
            0xf9, 0xfa,
        ])

    /// The optimal table for `counts` (257 entries: 256 symbols, then a slot we overwrite),
    /// limited to 16-bit codes, by the procedure of T.81 K.2 as libjpeg's
    /// `jpeg_gen_optimal_table` runs it (same tie-breaks, so the same table as cjpeg -optimize):
    /// - a reserved pseudo-symbol 256 with count 1 keeps any real code from being all 1-bits;
    /// - repeatedly merge the two least frequent trees (ties go to the larger symbol number),
    ///   lengthening every code in both;
    /// - then shorten codes longer than 16 bits by moving pairs up (K.3's Adjust_BITS);
    /// - finally drop the reserved code from the longest length.
    static func optimal(counts: [Int]) -> HuffmanSpec {
        var freq = counts + Array(repeating: 0, count: max(0, 257 - counts.count))
        freq[256] = 1
        var codeSize = [Int](repeating: 0, count: 257)
        var next = [Int](repeating: -1, count: 257)
        while true {
            var c1 = -1, c2 = -1
            var v1 = Int.max, v2 = Int.max
            for i in 0...256 where freq[i] != 0 && freq[i] <= v1 {
                v1 = freq[i]; c1 = i
            }
            for i in 0...256 where freq[i] != 0 && freq[i] <= v2 && i != c1 {
                v2 = freq[i]; c2 = i
            }
            if c2 < 0 { break }
            freq[c1] += freq[c2]
            freq[c2] = 0
            // Every symbol in both trees gets one bit longer; chain c2's list after c1's.
            codeSize[c1] += 1
            while next[c1] >= 0 { c1 = next[c1]; codeSize[c1] += 1 }
            next[c1] = c2
            codeSize[c2] += 1
            while next[c2] >= 0 { c2 = next[c2]; codeSize[c2] += 1 }
        }
        // 257 symbols give codes of at most 256 bits; count them per length.
        var lengthCounts = [Int](repeating: 0, count: 258)
        for i in 0...256 where codeSize[i] != 0 { lengthCounts[codeSize[i]] += 1 }
        var i = 257
        while i > 16 {
            while lengthCounts[i] > 0 {
                var j = i - 2
                while lengthCounts[j] == 0 { j -= 1 }
                // Two codes of length i become one of length i-1 and one of length j+1.
                lengthCounts[i] -= 2
                lengthCounts[i - 1] += 1
                lengthCounts[j + 1] += 2
                lengthCounts[j] -= 1
            }
            i -= 1
        }
        var longest = 16
        while longest > 0 && lengthCounts[longest] == 0 { longest -= 1 }
        if longest > 0 { lengthCounts[longest] -= 1 }

        var values: [UInt8] = []
        for length in 1...256 {
            for symbol in 0..<256 where codeSize[symbol] == length { values.append(UInt8(symbol)) }
        }
        return HuffmanSpec(bits: (1...16).map { UInt8(lengthCounts[$0]) }, values: values)
    }
}

/// Per-symbol codes of one table, packed as `code << 8 | length` (length 0 = not in table).
struct HuffmanCodes {
    var packed: [UInt32]

    /// Canonical code assignment (T.81 C.2). The specs we pass are built here, so a bad one is
    /// a programming error, reported as `.invalidArgument` rather than a trap.
    init(_ spec: HuffmanSpec) throws {
        packed = [UInt32](repeating: 0, count: 256)
        var code: UInt32 = 0
        var k = 0
        for length in 1...16 {
            let n = Int(spec.bits[length - 1])
            for _ in 0..<n {
                guard k < spec.values.count else {
                    throw ImageCodecError(.invalidArgument, "Huffman table lists fewer symbols than its BITS count")
                }
                packed[Int(spec.values[k])] = code << 8 | UInt32(length)
                code += 1
                k += 1
            }
            guard code <= 1 << length else {
                throw ImageCodecError(.invalidArgument, "Huffman table BITS over-subscribe length \(length)")
            }
            code <<= 1
        }
    }
}
