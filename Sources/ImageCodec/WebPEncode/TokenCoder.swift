/// DCT token coding (RFC 6386 §13): the rate estimate the mode decision uses, the statistics
/// that choose the frame's updated probabilities, and the writer.
///
/// A block's levels are 16 values in scan order; coding starts at `first` (1 for i16 luma,
/// whose DC went to Y2) with context `ctx` = number of neighbouring blocks (above, left) that
/// had non-zero levels. Each token walks the tree with the probabilities of (type, band,
/// context); the first token and every token after a non-zero one is preceded by the
/// end-of-block decision, which is skipped after a zero.
///
/// Probabilities and counts are flat, index ((type · 8 + band) · 3 + context) · 11 + node.

/// Cost in 1/256 bit of coding a bit with an 8-bit probability, and per-context level costs
/// built from a probability table. Built once per table (a few thousand entries).
struct TokenCosts: ~Copyable {
    /// cost of a 0 bit when the 0-probability is q/256 (q = 0...256; 0 is costed as 1).
    static let entropy: [Int32] = (0...256).map { q in
        Int32(-EncoderMath.log2(Double(max(q, 1)) / 256) * 256 + 0.5)
    }

    @inline(__always)
    static func bit(_ b: Bool, _ p: Int) -> Int32 { b ? entropy[256 &- p] : entropy[p] }

    /// Per (type, band, context): [0...66] the cost of magnitude v (tree and extra bits, no
    /// sign, no end-of-block decision); [67] the category-6 prefix only; [68] the cost of
    /// "end of block"; [69] the cost of "not end of block".
    static let stride = 70
    let table: UnsafeMutablePointer<Int32>
    /// Extra-bit cost of category 6 values, index v − 67 (v = 67...2047), plus the sign.
    let category6: UnsafeMutablePointer<Int32>

    init(probabilities p: UnsafePointer<UInt8>) {
        table = .allocate(capacity: 96 &* TokenCosts.stride)
        category6 = .allocate(capacity: 2048 &- 67)
        for v in 67..<2048 {
            var extra: Int32 = 256
            let bits = VP8Tables.categoryProbabilities[5]
            for (k, prob) in bits.enumerated() { extra += TokenCosts.bit((v - 67) >> (10 - k) & 1 == 1, prob) }
            category6[v - 67] = extra
        }
        for ctx in 0..<96 {
            let q = p + ctx * 11
            let row = table + ctx * TokenCosts.stride
            @inline(__always) func c(_ b: Bool, _ node: Int) -> Int32 { TokenCosts.bit(b, Int(q[node])) }
            row[68] = c(false, 0)
            row[69] = c(true, 0)
            row[0] = c(false, 1)
            for v in 1...67 {
                var cost = c(true, 1)
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
                row[v] = cost
            }
        }
    }

    deinit {
        table.deallocate()
        category6.deallocate()
    }

    /// Rate of one block in 1/256 bit: tokens, signs and end-of-block decisions. `end` is
    /// the scan position after the last non-zero level (as `Quantize.block` returns it).
    @inline(__always)
    func blockCost(_ levels: UnsafePointer<Int16>, type: Int, first: Int, ctx: Int, end: Int) -> Int {
        let base = table + (type &* 24) &* TokenCosts.stride
        @inline(__always) func row(_ n: Int, _ c: Int) -> UnsafeMutablePointer<Int32> {
            base + (VP8Tables.band(n) &* 3 &+ c) &* TokenCosts.stride
        }
        if end <= first { return Int(row(first, ctx)[68]) }
        var cost: Int32 = 0
        var c = ctx
        var n = first
        var afterZero = false
        while n < end {
            let r = row(n, c)
            if !afterZero { cost &+= r[69] }
            let l = Int(levels[n])
            let v = l < 0 ? 0 &- l : l
            if v == 0 {
                cost &+= r[0]
                c = 0
                afterZero = true
            } else {
                if v < 67 { cost &+= r[v] &+ 256 } else { cost &+= r[67] &+ category6[min(v, 2047) &- 67] }
                c = v == 1 ? 1 : 2
                afterZero = false
            }
            n &+= 1
        }
        if n < 16 { cost &+= row(n, c)[68] }
        return Int(cost)
    }
}

/// Where token decisions go: counted for probability updates, or written.
protocol TokenSink {
    /// A decision coded with the frame's probability at flat index `node`.
    mutating func adaptive(_ bit: Bool, _ node: Int)
    /// A decision with a fixed probability (category extra bits, sign).
    mutating func fixed(_ bit: Bool, _ probability: Int)
}

/// Counts of each adaptive decision: [2i] how often node i was coded, [2i + 1] how often as 1.
struct TokenStatistics: TokenSink {
    var counts: UnsafeMutablePointer<UInt32>

    @inline(__always)
    mutating func adaptive(_ bit: Bool, _ node: Int) {
        counts[2 &* node] &+= 1
        if bit { counts[2 &* node &+ 1] &+= 1 }
    }

    @inline(__always)
    mutating func fixed(_ bit: Bool, _ probability: Int) {}
}

/// Writes the decisions with the frame's final probabilities.
struct TokenWriter: TokenSink {
    var encoder: BoolEncoder
    let probabilities: UnsafePointer<UInt8>

    @inline(__always)
    mutating func adaptive(_ bit: Bool, _ node: Int) { encoder.put(bit, Int(probabilities[node])) }

    @inline(__always)
    mutating func fixed(_ bit: Bool, _ probability: Int) { encoder.put(bit, probability) }
}

enum TokenCoder {
    /// Codes one block's tokens into `sink`; returns whether it had a non-zero level.
    @inline(__always)
    static func code<S: TokenSink>(_ levels: UnsafePointer<Int16>, type: Int, first: Int, ctx: Int, into sink: inout S) -> Bool {
        var last = 15
        while last >= first && levels[last] == 0 { last &-= 1 }
        @inline(__always) func node(_ n: Int, _ c: Int) -> Int { ((type &* 8 &+ VP8Tables.band(n)) &* 3 &+ c) &* 11 }
        var p = node(first, ctx)
        sink.adaptive(last >= first, p)
        if last < first { return false }
        var n = first
        while n < 16 {
            let l = Int(levels[n])
            n &+= 1
            let v = l < 0 ? 0 &- l : l
            sink.adaptive(v != 0, p &+ 1)
            if v == 0 {
                p = node(n, 0)
                continue
            }
            sink.adaptive(v > 1, p &+ 2)
            if v > 1 {
                sink.adaptive(v > 4, p &+ 3)
                if v <= 4 {
                    sink.adaptive(v != 2, p &+ 4)
                    if v != 2 { sink.adaptive(v == 4, p &+ 5) }
                } else {
                    sink.adaptive(v > 10, p &+ 6)
                    if v <= 10 {
                        sink.adaptive(v > 6, p &+ 7)
                        if v <= 6 {
                            sink.fixed(v == 6, 159)
                        } else {
                            sink.fixed(v >= 9, 165)
                            sink.fixed(v & 1 == 0, 145)
                        }
                    } else {
                        let cat = v < 19 ? 2 : v < 35 ? 3 : v < 67 ? 4 : 5
                        if cat <= 3 {
                            sink.adaptive(false, p &+ 8)
                            sink.adaptive(cat == 3, p &+ 9)
                        } else {
                            sink.adaptive(true, p &+ 8)
                            sink.adaptive(cat == 5, p &+ 10)
                        }
                        let offset = v &- VP8Tables.categoryBase[cat]
                        let probs = VP8Tables.categoryProbabilities[cat]
                        var k = probs.count &- 1
                        for prob in probs {
                            sink.fixed(offset >> k & 1 == 1, prob)
                            k &-= 1
                        }
                    }
                }
                p = node(n, 2)
            } else {
                p = node(n, 1)
            }
            sink.fixed(l < 0, 128)
            if n == 16 { break }
            sink.adaptive(n <= last, p)
            if n > last { break }
        }
        return true
    }

    /// The frame's probabilities from `counts`: each node gets the probability its counts
    /// call for when that saves more than the 8 bits (plus flag) its update costs.
    static func chooseProbabilities(counts: UnsafePointer<UInt32>, into p: UnsafeMutablePointer<UInt8>) {
        let defaults = VP8Tables.defaultCoefficientProbabilities
        let update = VP8Tables.coefficientUpdateProbabilities
        for i in 0..<1056 {
            let total = Int(counts[2 * i]), ones = Int(counts[2 * i + 1])
            let old = Int(defaults[i])
            p[i] = defaults[i]
            guard total > 0 else { continue }
            let new = ones == 0 ? 255 : 255 - ones * 255 / total
            @inline(__always) func branchCost(_ prob: Int) -> Int {
                ones * Int(TokenCosts.bit(true, prob)) + (total - ones) * Int(TokenCosts.bit(false, prob))
            }
            let oldCost = branchCost(old) + Int(TokenCosts.bit(false, Int(update[i])))
            let newCost = branchCost(new) + Int(TokenCosts.bit(true, Int(update[i]))) + 8 * 256
            if oldCost > newCost { p[i] = UInt8(new) }
        }
    }
}
