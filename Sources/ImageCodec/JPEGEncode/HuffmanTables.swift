/// Huffman tables for the encoder: the T.81 Annex K tables cjpeg uses by default, the
/// per-symbol codes derived from a table, and optimal tables built from symbol counts.
struct HuffmanSpec: Equatable {
    /// BITS[1...16]: how many codes have each length.
    var bits: [UInt8]
    /// The symbols, ordered by code length.
    var values: [UInt8]

    /// The T.81 Annex K tables (K.3-K.6), shared with the decoder, which preloads them.
    static let standardDCLuma = HuffmanSpec(bits: JPEGStandardTables.dcLumaCounts, values: JPEGStandardTables.dcLumaSymbols)
    static let standardDCChroma = HuffmanSpec(bits: JPEGStandardTables.dcChromaCounts, values: JPEGStandardTables.dcChromaSymbols)
    static let standardACLuma = HuffmanSpec(bits: JPEGStandardTables.acLumaCounts, values: JPEGStandardTables.acLumaSymbols)
    static let standardACChroma = HuffmanSpec(bits: JPEGStandardTables.acChromaCounts, values: JPEGStandardTables.acChromaSymbols)

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
