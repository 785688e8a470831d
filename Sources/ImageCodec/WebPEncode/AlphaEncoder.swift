/// The `ALPH` chunk: the alpha plane, filtered and coded losslessly as a headerless VP8L
/// image stream (WebP container spec "Alpha"; RFC 9649 §5 for VP8L).
///
/// Filtering: of none, horizontal, vertical and gradient prediction, the one whose residuals
/// (alpha − prediction, mod 256) have the smallest order-0 entropy. The residuals go into the
/// green channel of a VP8L image with no transforms, no colour cache and one prefix-code
/// group: green gets a length-limited Huffman code (15 bits), red, blue, alpha and distance a
/// one-symbol code (zero bits per pixel). No backward references: alpha in a photo gallery is
/// rare and mostly smooth, and correctness matters more than the last bytes here.
enum AlphaEncoder {
    /// The chunk payload (header byte + VP8L data) for the alpha of `bitmap` (`.grayAlpha`
    /// or `.rgba`).
    static func encode(_ bitmap: Bitmap) -> [UInt8] {
        let width = bitmap.width, height = bitmap.height, channels = bitmap.channels
        var alpha = [UInt8](repeating: 255, count: width * height)
        for i in 0..<(width * height) { alpha[i] = bitmap.pixels[i * channels + channels - 1] }
        var best: (filter: Int, residuals: [UInt8], bits: Double) = (0, alpha, .infinity)
        for filter in 0...3 {
            let residuals = AlphaFilter.apply(filter, alpha, width: width, height: height)
            let bits = entropy(residuals)
            if bits < best.bits { best = (filter, residuals, bits) }
        }
        var out: [UInt8] = [UInt8(best.filter << 2 | 1)] // compression 1 = lossless
        out += VP8LWriter.greenImage(best.residuals)
        return out
    }

    /// Order-0 entropy of the values in bits (the filter choice only compares these).
    private static func entropy(_ values: [UInt8]) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        for v in values { histogram[Int(v)] += 1 }
        let total = Double(values.count)
        var bits = 0.0
        for c in histogram where c > 0 { bits -= Double(c) * EncoderMath.log2(Double(c) / total) }
        return bits
    }
}

/// The ALPH prediction filters (WebP container spec): 1 horizontal, 2 vertical, 3 gradient.
/// (0, 0) is predicted from 0; the first column from above for horizontal and gradient, the
/// first row from the left for vertical and gradient.
enum AlphaFilter {
    static func apply(_ filter: Int, _ a: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        guard filter != 0 else { return a }
        var out = a
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let prediction: Int
                if x == 0 && y == 0 {
                    prediction = 0
                } else if y == 0 {
                    prediction = Int(a[i - 1])
                } else if x == 0 {
                    prediction = Int(a[i - w])
                } else {
                    switch filter {
                    case 1: prediction = Int(a[i - 1])
                    case 2: prediction = Int(a[i - w])
                    default: prediction = min(max(Int(a[i - 1]) + Int(a[i - w]) - Int(a[i - w - 1]), 0), 255)
                    }
                }
                out[i] = UInt8(truncatingIfNeeded: Int(a[i]) - prediction)
            }
        }
        return out
    }
}

/// A minimal VP8L image-stream writer: bits are packed least significant first.
struct VP8LWriter {
    private(set) var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var count = 0

    mutating func put(_ value: Int, _ bits: Int) {
        accumulator |= UInt64(value) << UInt64(count)
        count += bits
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            count -= 8
        }
    }

    mutating func finish() -> [UInt8] {
        if count > 0 { bytes.append(UInt8(truncatingIfNeeded: accumulator)) }
        accumulator = 0
        count = 0
        return bytes
    }

    /// A headerless VP8L stream whose green channel is `values` (one byte per pixel).
    static func greenImage(_ values: [UInt8]) -> [UInt8] {
        var w = VP8LWriter()
        w.put(0, 1) // no transform
        w.put(0, 1) // no colour cache
        w.put(0, 1) // no meta prefix codes
        var histogram = [Int](repeating: 0, count: 280)
        for v in values { histogram[Int(v)] += 1 }
        let (codes, lengths) = w.putCode(HuffmanLengths.build(histogram, maxLength: 15))
        for _ in 0..<4 { w.putSingleSymbolCode() } // red, blue, alpha, distance
        for v in values {
            let length = lengths[Int(v)]
            if length > 0 { w.put(codes[Int(v)], length) }
        }
        return w.finish()
    }

    /// The "simple" code with the single symbol 0: zero bits per use.
    mutating func putSingleSymbolCode() {
        put(1, 1) // simple
        put(0, 1) // one symbol
        put(0, 1) // 1-bit symbol
        put(0, 1) // symbol 0
    }

    /// Writes a prefix code given its code lengths (a simple code when at most two symbols
    /// below 256 are used) and returns each symbol's bit-reversed canonical code, ready for
    /// `put`, with the number of bits each takes (zero for the only symbol of a one-symbol code).
    mutating func putCode(_ lengths: [Int]) -> (codes: [Int], lengths: [Int]) {
        let used = lengths.indices.filter { lengths[$0] > 0 }
        if used.count <= 2, used.allSatisfy({ $0 < 256 }) {
            put(1, 1)
            put(max(used.count, 1) - 1, 1)
            let first = used.first ?? 0
            if first < 2 {
                put(0, 1); put(first, 1)
            } else {
                put(1, 1); put(first, 8)
            }
            if used.count == 2 { put(used[1], 8) }
            var codes = [Int](repeating: 0, count: lengths.count)
            var bits = [Int](repeating: 0, count: lengths.count)
            if used.count == 2 {
                codes[used[1]] = 1
                bits[used[0]] = 1
                bits[used[1]] = 1
            }
            return (codes, bits)
        }
        put(0, 1) // normal code
        // The code-length code: literal lengths 0...15, 17 and 18 for runs of zeros.
        var symbols: [(Int, Int, Int)] = [] // (symbol, extra value, extra bits)
        var i = 0
        while i < lengths.count {
            if lengths[i] == 0 {
                var run = 1
                while i + run < lengths.count && lengths[i + run] == 0 && run < 138 { run += 1 }
                if run >= 11 {
                    symbols.append((18, run - 11, 7)); i += run; continue
                } else if run >= 3 {
                    symbols.append((17, run - 3, 3)); i += run; continue
                }
            }
            symbols.append((lengths[i], 0, 0))
            i += 1
        }
        var lengthHistogram = [Int](repeating: 0, count: 19)
        for s in symbols { lengthHistogram[s.0] += 1 }
        var lengthLengths = HuffmanLengths.build(lengthHistogram, maxLength: 7)
        if lengthLengths.filter({ $0 > 0 }).count == 1 {
            // A one-symbol code-length code would be zero bits; give it a partner so the
            // normal code stays well formed.
            let only = lengthLengths.firstIndex { $0 > 0 }!
            lengthLengths[only] = 1
            lengthLengths[only == 0 ? 1 : 0] = 1
        }
        let order = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
        var count = 19
        while count > 4 && lengthLengths[order[count - 1]] == 0 { count -= 1 }
        put(count - 4, 4)
        for k in 0..<count { put(lengthLengths[order[k]], 3) }
        put(0, 1) // max_symbol = alphabet size
        let lengthCodes = HuffmanLengths.canonicalCodes(lengthLengths)
        for s in symbols {
            put(lengthCodes[s.0], lengthLengths[s.0])
            if s.2 > 0 { put(s.1, s.2) }
        }
        return (HuffmanLengths.canonicalCodes(lengths), lengths)
    }
}

/// Huffman code lengths limited to a maximum, and canonical codes (bit-reversed for an
/// LSB-first writer).
enum HuffmanLengths {
    /// Lengths for `histogram` (0 for unused symbols). A single used symbol gets length 1 so
    /// callers can tell used from unused; more than `maxLength` is avoided by flattening the
    /// counts and retrying.
    static func build(_ histogram: [Int], maxLength: Int) -> [Int] {
        var counts = histogram
        while true {
            let lengths = unlimited(counts)
            if (lengths.max() ?? 0) <= maxLength { return lengths }
            counts = counts.map { $0 == 0 ? 0 : max(1, $0 / 2) }
        }
    }

    private static func unlimited(_ counts: [Int]) -> [Int] {
        var lengths = [Int](repeating: 0, count: counts.count)
        // Nodes: (weight, children or symbol); a simple O(n²) merge, n ≤ 280.
        var nodes: [(weight: Int, members: [Int])] = counts.indices.compactMap { counts[$0] > 0 ? (counts[$0], [$0]) : nil }
        if nodes.count == 1 { lengths[nodes[0].members[0]] = 1; return lengths }
        while nodes.count > 1 {
            nodes.sort { $0.weight < $1.weight }
            let a = nodes.removeFirst(), b = nodes.removeFirst()
            for s in a.members + b.members { lengths[s] += 1 }
            nodes.append((a.weight + b.weight, a.members + b.members))
        }
        return lengths
    }

    /// Canonical codes (shorter first, then by symbol), each bit-reversed to its length.
    static func canonicalCodes(_ lengths: [Int]) -> [Int] {
        var codes = [Int](repeating: 0, count: lengths.count)
        var code = 0
        for length in 1...15 {
            for s in lengths.indices where lengths[s] == length {
                var reversed = 0
                for b in 0..<length where code >> b & 1 == 1 { reversed |= 1 << (length - 1 - b) }
                codes[s] = reversed
                code += 1
            }
            code <<= 1
        }
        return codes
    }
}
