/// Token rate estimate for the mode decision (RFC 6386 §13): the cost in 1/256 bit of coding
/// a block's levels under fixed probabilities, built once per probability table.
///
/// Shape (libwebp's trick, src/enc/cost_enc.c): the end-of-block decision is coded before
/// every token except one that follows a zero, and a token follows a zero exactly when its
/// context is 0. So the "not end of block" cost is folded into the level costs of contexts 1
/// and 2, and the sign into every non-zero level; the loop over a block is then one table
/// read per level, with the next context `min(|level|, 2)` and no data-dependent branches
/// (the branchy form mispredicted on every zero/non-zero change and was a fifth of the encode
/// time on busy photos). Costs fit 16 bits (at most ~20 000), which halves the table to 13 KiB.
struct TokenCosts: ~Copyable {
    /// cost of a 0 bit when the 0-probability is q/256 (q = 0...256; 0 is costed as 1).
    static let entropy: [Int32] = (0...256).map { q in
        Int32(-EncoderMath.log2(Double(max(q, 1)) / 256) * 256 + 0.5)
    }

    @inline(__always)
    static func bit(_ b: Bool, _ p: Int) -> Int32 { b ? entropy[256 &- p] : entropy[p] }

    /// Row per (type, band, context), index ((type · 8 + band) · 3 + context) · stride:
    /// [0...66] magnitude v with its tree, extra bits and sign, plus "not end of block" when
    /// the context is 1 or 2; [67] the same for the category-6 prefix (its extra bits are in
    /// `category6`); [68] "end of block"; [69] "not end of block" alone.
    static let stride = 72
    let table: UnsafeMutablePointer<UInt16>
    /// Extra-bit cost of category 6 values, index v − 67 (v = 67...2047).
    let category6: UnsafeMutablePointer<Int32>
    /// Band of position n (0...16) times 3 · stride: a row's offset without the type.
    let bandOffset: UnsafeMutablePointer<Int>

    init(probabilities p: UnsafePointer<UInt8>) {
        table = .allocate(capacity: 96 &* TokenCosts.stride)
        table.initialize(repeating: 0, count: 96 &* TokenCosts.stride)
        category6 = .allocate(capacity: 2048 &- 67)
        bandOffset = .allocate(capacity: 17)
        for n in 0...16 { bandOffset[n] = VP8Tables.band(n) * 3 * TokenCosts.stride }
        for v in 67..<2048 {
            var extra: Int32 = 0
            let bits = VP8Tables.categoryProbabilities[5]
            for (k, prob) in bits.enumerated() { extra += TokenCosts.bit((v - 67) >> (10 - k) & 1 == 1, prob) }
            category6[v - 67] = extra
        }
        for row in 0..<96 {
            let q = p + row * 11
            let out = table + row * TokenCosts.stride
            @inline(__always) func c(_ b: Bool, _ node: Int) -> Int32 { TokenCosts.bit(b, Int(q[node])) }
            let notEnd = c(true, 0)
            let folded = row % 3 == 0 ? 0 : notEnd
            out[68] = UInt16(c(false, 0))
            out[69] = UInt16(notEnd)
            out[0] = UInt16(c(false, 1) + folded)
            for v in 1...67 {
                var cost = c(true, 1) + 256 + folded
                if v == 1 {
                    cost += c(false, 2)
                } else {
                    cost += c(true, 2)
                    if v <= 4 {
                        cost += c(false, 3)
                        cost += v == 2 ? c(false, 4) : c(true, 4) + c(v == 4, 5)
                    } else if v <= 10 {
                        cost += c(true, 3) + c(false, 6)
                        if v <= 6 {
                            cost += c(false, 7) + TokenCosts.bit(v == 6, 159)
                        } else {
                            cost += c(true, 7) + TokenCosts.bit(v >= 9, 165) + TokenCosts.bit(v & 1 == 0, 145)
                        }
                    } else {
                        cost += c(true, 3) + c(true, 6)
                        let cat = v < 19 ? 2 : v < 35 ? 3 : v < 67 ? 4 : 5
                        cost += cat <= 3 ? c(false, 8) + c(cat == 3, 9) : c(true, 8) + c(cat == 5, 10)
                        if cat < 5 {
                            let bits = VP8Tables.categoryProbabilities[cat]
                            let offset = v - VP8Tables.categoryBase[cat]
                            for (k, prob) in bits.enumerated() {
                                cost += TokenCosts.bit(offset >> (bits.count - 1 - k) & 1 == 1, prob)
                            }
                        }
                    }
                }
                out[v] = UInt16(cost)
            }
        }
    }

    deinit {
        table.deallocate()
        category6.deallocate()
        bandOffset.deallocate()
    }

    /// Rate of one block in 1/256 bit: tokens, signs and end-of-block decisions. `levels` are
    /// in scan order; coding starts at `first` (1 for i16 luma) with context `ctx` (0...2);
    /// `end` is the scan position after the last non-zero level (as `Quantize.block` returns it).
    @inline(__always)
    func blockCost(_ levels: UnsafePointer<Int16>, type: Int, first: Int, ctx: Int, end: Int) -> Int {
        let base = UnsafePointer(table + (type &* 24) &* TokenCosts.stride)
        let bands = UnsafePointer(bandOffset)
        let start = base + (bands[first] &+ ctx &* TokenCosts.stride)
        if end <= first { return Int(start[68]) }
        var cost = ctx == 0 ? Int(start[69]) : 0
        var c = ctx
        var n = first
        while n < end {
            let l = Int(levels[n])
            let v = l < 0 ? 0 &- l : l
            let row = base + (bands[n] &+ c &* TokenCosts.stride)
            cost &+= Int(row[min(v, 67)])
            if v >= 67 { cost &+= Int(category6[min(v, 2047) &- 67]) }
            c = min(v, 2)
            n &+= 1
        }
        if end < 16 { cost &+= Int(base[bands[end] &+ c &* TokenCosts.stride &+ 68]) }
        return cost
    }
}
