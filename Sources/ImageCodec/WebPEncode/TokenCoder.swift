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

    /// Codes one macroblock's blocks in bitstream order (Y2 unless `i4`, 16 luma, 4 U, 4 V;
    /// levels laid out as in `FrameStore`) with the non-zero contexts `top` and `left` (9
    /// flags each: 4 luma, 2 U, 2 V, Y2), which it updates as the decoder does.
    @inline(__always)
    static func codeMacroblock<S: TokenSink>(_ levels: UnsafePointer<Int16>, i4: Bool, top: UnsafeMutablePointer<UInt8>,
                                             left: UnsafeMutablePointer<UInt8>, into sink: inout S) {
        var type = 3, first = 0
        if !i4 {
            let nz: UInt8 = code(levels + 384, type: 1, first: 0, ctx: Int(top[8] &+ left[8]), into: &sink) ? 1 : 0
            top[8] = nz
            left[8] = nz
            type = 0
            first = 1
        }
        for blk in 0..<16 {
            let x = blk & 3, y = blk >> 2
            let nz: UInt8 = code(levels + blk &* 16, type: type, first: first, ctx: Int(top[x] &+ left[y]), into: &sink) ? 1 : 0
            top[x] = nz
            left[y] = nz
        }
        for blk in 0..<8 {
            let plane = blk >> 2, x = blk & 1, y = (blk >> 1) & 1
            let t = 4 &+ plane &* 2 &+ x, l = 4 &+ plane &* 2 &+ y
            let nz: UInt8 = code(levels + (16 &+ blk) &* 16, type: 2, first: 0, ctx: Int(top[t] &+ left[l]), into: &sink) ? 1 : 0
            top[t] = nz
            left[l] = nz
        }
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
