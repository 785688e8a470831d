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
        update(probabilities: p)
    }

    /// Cost of the extra bits of magnitude v = 0...67 (fixed probabilities; 0 below 5 and for
    /// category 6, whose extra bits are in `category6`).
    static let extraBits: [Int32] = (0...67).map { v in
        guard v >= 5, v < 67 else { return 0 }
        if v <= 6 { return TokenCosts.bit(v == 6, 159) }
        if v <= 10 { return TokenCosts.bit(v >= 9, 165) + TokenCosts.bit(v & 1 == 0, 145) }
        let cat = v < 19 ? 2 : v < 35 ? 3 : 4
        let bits = VP8Tables.categoryProbabilities[cat]
        let offset = v - VP8Tables.categoryBase[cat]
        var cost: Int32 = 0
        for (k, prob) in bits.enumerated() { cost += TokenCosts.bit(offset >> (bits.count - 1 - k) & 1 == 1, prob) }
        return cost
    }

    /// Rebuilds the level costs for new probabilities: per row, the cost of each tree
    /// decision once, then each magnitude's path through the token tree (RFC 6386 §13.2)
    /// plus its fixed extra bits. Runs about eight times per frame.
    func update(probabilities p: UnsafePointer<UInt8>) {
        TokenCosts.entropy.withUnsafeBufferPointer { e in
            TokenCosts.extraBits.withUnsafeBufferPointer { extra in
                for row in 0..<96 {
                    let q = p + row &* 11
                    @inline(__always) func zero(_ node: Int) -> Int32 { e[Int(q[node])] }
                    @inline(__always) func one(_ node: Int) -> Int32 { e[256 &- Int(q[node])] }
                    let out = table + row &* TokenCosts.stride
                    let notEnd = one(0)
                    let folded = row % 3 == 0 ? 0 : notEnd
                    out[68] = UInt16(zero(0))
                    out[69] = UInt16(notEnd)
                    out[0] = UInt16(zero(1) &+ folded)
                    let nonZero = one(1) &+ 256 &+ folded  // with the sign
                    let big = nonZero &+ one(2)  // v ≥ 2
                    let over4 = big &+ one(3)  // v ≥ 5
                    let over10 = over4 &+ one(6)  // v ≥ 11
                    for v in 1...67 {
                        let path: Int32
                        switch v {
                        case 1: path = nonZero &+ zero(2)
                        case 2: path = big &+ zero(3) &+ zero(4)
                        case 3, 4: path = big &+ zero(3) &+ one(4) &+ (v == 4 ? one(5) : zero(5))
                        case 5, 6: path = over4 &+ zero(6) &+ zero(7)
                        case 7...10: path = over4 &+ zero(6) &+ one(7)
                        case 11...18: path = over10 &+ zero(8) &+ zero(9)
                        case 19...34: path = over10 &+ zero(8) &+ one(9)
                        case 35...66: path = over10 &+ one(8) &+ zero(10)
                        default: path = over10 &+ one(8) &+ one(10)
                        }
                        out[v] = UInt16(path &+ extra[v])
                    }
                }
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
