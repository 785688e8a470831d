/// The Lanczos passes on SIMD lanes, with exactly the integer results of the scalar passes.
///
/// Why it looks like this:
/// - The 22-bit weights do not fit the 16-bit multipliers SSE2 has (a 32-bit lane multiply is
///   emulated on plain x86-64 and measured no faster than scalar code, IDCT8x8Vector.swift),
///   so each weight is cut into pieces that do, and the pieces' products add up to w·s exactly
///   in wrapping 32-bit arithmetic: the results are the scalar passes' to the bit
///   (ResampleLanesTests).
/// - Horizontal: eight rows at a time, one per lane. The block is first transposed into
///   `columns`, each sample s stored as the pair (s, s << 7); the weight as the pair
///   (w mod 2^15, (w >> 15) << 8). One pmaddwd per four lanes then gives s·w for a whole tap:
///   callgrind on a 1410 → 800 pass of 800 RGB rows, 109 M instructions against 206 M for the
///   scalar pass (and 171 M with the vertical pass's split form below).
/// - Vertical: sixteen columns at a time with the taps inside, so the sums stay in registers
///   instead of going through a row of accumulators once per tap; w = hi·2048 + lo, two
///   widened multiplies that LLVM turns into pmaddwd.
struct SplitWeights {
    let hi: [Int16]
    let lo: [Int16]

    /// Nil when a weight does not split into 16-bit halves (|w| ≥ 2^26, far beyond any
    /// normalised filter); the caller then uses the scalar pass.
    init?(_ weights: [Int32]) {
        var hi = [Int16](repeating: 0, count: weights.count)
        var lo = [Int16](repeating: 0, count: weights.count)
        for (i, w) in weights.enumerated() {
            let h = w >> 11
            guard h >= Int32(Int16.min), h <= Int32(Int16.max) else { return nil }
            hi[i] = Int16(h)
            lo[i] = Int16(w & 2047)
        }
        self.hi = hi
        self.lo = lo
    }
}

/// Horizontal weights as (w mod 2^15, (w >> 15) << 8) pairs of 16-bit lanes packed in one
/// Int32 (first lane low): against a sample pair (s, s << 7) they give s·(w mod 2^15) +
/// s·(w >> 15)·2^15 = s·w, every factor within 16 bits (s << 7 ≤ 32640).
struct PairWeights {
    let packed: [Int32]

    /// Nil when a weight is 2^22 (1.0) or more in size, whose high piece needs 17 bits: a
    /// downscale's weights are well below 1; the caller then uses the scalar pass.
    init?(_ weights: [Int32]) {
        var packed = [Int32](repeating: 0, count: weights.count)
        for (i, w) in weights.enumerated() {
            let high = (w >> 15) << 8
            guard high >= Int32(Int16.min), high <= Int32(Int16.max) else { return nil }
            packed[i] = (high << 16) | (w & 0x7FFF)
        }
        self.packed = packed
    }
}

extension Resampler {
    /// One tap on eight lanes: the samples at `offset` of `p` times the split weight.
    @inline(__always)
    private static func term(_ p: UnsafeRawPointer, _ offset: Int, _ wh: SIMD8<Int32>, _ wl: SIMD8<Int32>) -> SIMD8<Int32> {
        let s = SIMD8<Int32>(widening: SIMD8<Int16>(widening: p.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt8>.self)))
        return ((s &* wh) &<< 11) &+ s &* wl
    }

    /// `clamp` on eight lanes without branches (the scalar form compiled to a compare and
    /// branch per sample here): the sum's integer part, negatives masked to 0, and values above
    /// 255 saturated through an all-ones mask; the low byte of each lane is the sample.
    @inline(__always)
    private static func clampLanes(_ sum: SIMD8<Int32>) -> SIMD8<Int32> {
        let v = sum &>> ResampleWeights.precisionBits
        let low = v & ~(v &>> 31)
        return low | ((255 &- low) &>> 31)
    }

    /// `vertical` on lanes; `src` row r is input row `firstRow + r`.
    static func verticalLanes(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, rowLength: Int, outHeight: Int,
                              firstRow: Int, weights: ResampleWeights, split: SplitWeights) {
        let stride = weights.stride
        split.hi.withUnsafeBufferPointer { hp in
            split.lo.withUnsafeBufferPointer { lp in
                weights.weights.withUnsafeBufferPointer { w in
                    weights.start.withUnsafeBufferPointer { starts in
                        weights.count.withUnsafeBufferPointer { counts in
                            for y in 0..<outHeight {
                                let top = src + (Int(starts[y]) &- firstRow) &* rowLength
                                let n = Int(counts[y])
                                let kh = hp.baseAddress! + y &* stride, kl = lp.baseAddress! + y &* stride
                                let out = dst + y &* rowLength
                                var j = 0
                                while j &+ 16 <= rowLength {
                                    var a0 = SIMD8<Int32>(repeating: half), a1 = a0
                                    var p = UnsafeRawPointer(top + j)
                                    for i in 0..<n {
                                        let wh = SIMD8<Int32>(repeating: Int32(kh[i])), wl = SIMD8<Int32>(repeating: Int32(kl[i]))
                                        a0 &+= term(p, 0, wh, wl)
                                        a1 &+= term(p, 8, wh, wl)
                                        p += rowLength
                                    }
                                    let c0 = clampLanes(a0), c1 = clampLanes(a1)
                                    for l in 0..<8 {
                                        out[j &+ l] = UInt8(truncatingIfNeeded: c0[l])
                                        out[j &+ 8 &+ l] = UInt8(truncatingIfNeeded: c1[l])
                                    }
                                    j &+= 16
                                }
                                let k = w.baseAddress! + y &* stride
                                while j < rowLength {
                                    var s = half
                                    for i in 0..<n { s &+= Int32(top[i &* rowLength &+ j]) &* k[i] }
                                    out[j] = clamp(s)
                                    j &+= 1
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The horizontal pass over `blocks` blocks of eight rows; `columns` holds
    /// `inWidth · n · 2` vectors, `pairs` the weights as `PairWeights` packs them.
    @inline(__always)
    static func horizontalLanes<C: ChannelCount>(
        _ src: UnsafePointer<UInt8>, _ inWidth: Int, _ dst: UnsafeMutablePointer<UInt8>, _ outWidth: Int, _ blocks: Int,
        _ starts: UnsafeBufferPointer<Int32>, _ counts: UnsafeBufferPointer<Int32>,
        _ pairs: UnsafePointer<Int32>, _ stride: Int, _ columns: UnsafeMutablePointer<SIMD8<Int16>>, _: C.Type
    ) {
        let n = C.n
        let inRow = inWidth &* n, outRow = outWidth &* n
        let raw = UnsafeMutableRawPointer(columns)
        for b in 0..<blocks {
            let top = src + b &* 8 &* inRow
            // Sample j of row r: the pair at lane r of vectors 2j (rows 0-3) and 2j + 1 (rows 4-7).
            for r in 0..<8 {
                let row = top + r &* inRow
                for j in 0..<inRow {
                    let v = Int16(row[j])
                    raw.storeBytes(of: v, toByteOffset: j &* 32 &+ r &* 4, as: Int16.self)
                    raw.storeBytes(of: v &<< 7, toByteOffset: j &* 32 &+ r &* 4 &+ 2, as: Int16.self)
                }
            }
            let base = dst + b &* 8 &* outRow
            for x in 0..<outWidth {
                let h = SIMD4<Int32>(repeating: half)
                var a0 = h, b0 = h, a1 = h, b1 = h, a2 = h, b2 = h, a3 = h, b3 = h
                var p = UnsafePointer(columns) + Int(starts[x]) &* n &* 2
                let k = pairs + x &* stride
                for i in 0..<Int(counts[x]) {
                    let w = unsafeBitCast(SIMD4<Int32>(repeating: k[i]), to: SIMD8<Int16>.self)
                    a0 &+= madd(p[0], w)
                    b0 &+= madd(p[1], w)
                    if n > 1 { a1 &+= madd(p[2], w); b1 &+= madd(p[3], w) }
                    if n > 2 { a2 &+= madd(p[4], w); b2 &+= madd(p[5], w) }
                    if n > 3 { a3 &+= madd(p[6], w); b3 &+= madd(p[7], w) }
                    p += n &* 2
                }
                let o = base + x &* n
                for r in 0..<4 {
                    let q = o + r &* outRow, q4 = o + (r &+ 4) &* outRow
                    q[0] = clamp(a0[r]); q4[0] = clamp(b0[r])
                    if n > 1 { q[1] = clamp(a1[r]); q4[1] = clamp(b1[r]) }
                    if n > 2 { q[2] = clamp(a2[r]); q4[2] = clamp(b2[r]) }
                    if n > 3 { q[3] = clamp(a3[r]); q4[3] = clamp(b3[r]) }
                }
            }
        }
    }

    /// Lane pairs multiplied and added (pmaddwd): lane i is a[2i]·b[2i] + a[2i+1]·b[2i+1].
    @inline(__always)
    private static func madd(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD4<Int32> {
        let p = SIMD8<Int32>(widening: a) &* SIMD8<Int32>(widening: b)
        return SIMD4<Int32>(p[0], p[2], p[4], p[6]) &+ SIMD4<Int32>(p[1], p[3], p[5], p[7])
    }
}
