/// The row kernels of a reduced 8-bit 4:2:0 full-range HEIC (every iPhone photo): libheif's
/// fixed-point YCbCr → RGB (`HEIFColourConverter`, coefficients × 256) computed on 16-bit
/// lanes and summed down the rows of a block before any sum across it, instead of converting
/// to an interleaved RGB row and adding each pixel into its block (`accumulate`).
///
/// A pixel's RGB is Y plus a term that depends only on its chroma sample
/// (R = Y + ((iR·v + 128) >> 8), G = Y + ((iGb·u + iGr·v + 128) >> 8), B = Y + ((iB·u + 128) >> 8),
/// each clamped to 0...255), so the terms are computed once per chroma row and column and the
/// per-pixel work is an add, a clamp and an add into the column sums of three planes. The
/// pixels and their sums are exactly the converter's: the block means do not change.
///
/// Integer code only: the AVX2 kernel target builds this file a second time (a symlink), and
/// `HEVCKernelDispatch` picks one build per process.
enum HEIFReductionLanes {
    private typealias Lanes = SIMD16<Int16>

    /// libheif's fixed-point coefficients: R = Y + iR·v, G = Y + iGb·u + iGr·v, B = Y + iB·u (/256).
    struct Coefficients {
        let iR: Int32, iGb: Int32, iGr: Int32, iB: Int32
    }

    /// clamp(v) to 0...255 with sign masks (max(v, 0), then t − max(t − 255, 0)): LLVM turns it
    /// into `pmaxsw`/`pminsw`; the generic `clamped` stays a call.
    @inline(__always) private static func clamp(_ v: Lanes) -> Lanes {
        let t = v & ~(v &>> 15)
        let e = t &- 255
        return t &- (e & ~(e &>> 15))
    }

    /// The chroma terms of one chroma row for `count` luma columns from `x0`, each term
    /// repeated for the two luma columns of its chroma sample, from chroma sample x0 / 2 on:
    /// luma column x0 + i reads index i + (x0 & 1) of each run. `terms` holds the R, G and B
    /// terms as three runs of `pitch` ≥ count + 2 values.
    static func chromaTerms(cb: UnsafePointer<UInt16>, cr: UnsafePointer<UInt16>, x0: Int, count: Int,
                            _ k: Coefficients, terms: UnsafeMutablePointer<Int16>, pitch: Int) {
        typealias Wide = SIMD8<Int32>
        let r = terms, g = terms + pitch, b = terms + 2 &* pitch
        let first = x0 &>> 1
        let samples = (count &+ (x0 & 1) &+ 1) &>> 1
        let u0 = cb + first, v0 = cr + first
        @inline(__always) func wide(_ p: UnsafePointer<UInt16>) -> Wide {
            let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self)
            return Wide(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
        }
        @inline(__always) func twice(_ v: Wide, _ to: UnsafeMutablePointer<Int16>) {
            let a = Int16(truncatingIfNeeded: v[0]), b = Int16(truncatingIfNeeded: v[1])
            let c = Int16(truncatingIfNeeded: v[2]), d = Int16(truncatingIfNeeded: v[3])
            let e = Int16(truncatingIfNeeded: v[4]), f = Int16(truncatingIfNeeded: v[5])
            let g = Int16(truncatingIfNeeded: v[6]), h = Int16(truncatingIfNeeded: v[7])
            UnsafeMutableRawPointer(to).storeBytes(of: SIMD16<Int16>(a, a, b, b, c, c, d, d, e, e, f, f, g, g, h, h), as: SIMD16<Int16>.self)
        }
        let iR = Wide(repeating: k.iR), iGb = Wide(repeating: k.iGb), iGr = Wide(repeating: k.iGr), iB = Wide(repeating: k.iB)
        let half = Wide(repeating: 128)
        var j = 0
        while j &+ 8 <= samples {
            let u = wide(u0 + j) &- half, v = wide(v0 + j) &- half
            let o = 2 &* j
            twice((iR &* v &+ half) &>> 8, r + o)
            twice((iGb &* u &+ iGr &* v &+ half) &>> 8, g + o)
            twice((iB &* u &+ half) &>> 8, b + o)
            j &+= 8
        }
        while j < samples {
            let u = Int32(u0[j]) &- 128, v = Int32(v0[j]) &- 128
            let o = 2 &* j
            let rt = Int16(truncatingIfNeeded: (k.iR &* v &+ 128) >> 8)
            let gt = Int16(truncatingIfNeeded: (k.iGb &* u &+ k.iGr &* v &+ 128) >> 8)
            let bt = Int16(truncatingIfNeeded: (k.iB &* u &+ 128) >> 8)
            r[o] = rt; r[o &+ 1] = rt; g[o] = gt; g[o &+ 1] = gt; b[o] = bt; b[o &+ 1] = bt
            j &+= 1
        }
    }

    /// Adds the RGB of `count` luma samples (8-bit values in 16-bit storage) to the column
    /// sums: `sums` and `terms` are three runs of `pitch` values (R, G, B). A column sum holds
    /// at most 257 rows (the caller flushes before).
    static func addRow(y: UnsafePointer<UInt16>, count: Int, terms: UnsafePointer<Int16>, sums: UnsafeMutablePointer<UInt16>, pitch: Int) {
        let raw = UnsafeRawPointer(y)
        let tr = UnsafeRawPointer(terms), sr = UnsafeMutableRawPointer(sums)
        let planeBytes = pitch &* 2
        var i = 0
        while i &+ 16 <= count {
            let offset = i &* 2
            let yv = raw.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
            for plane in 0..<3 {
                let o = offset &+ plane &* planeBytes
                let value = clamp(yv &+ tr.loadUnaligned(fromByteOffset: o, as: Lanes.self))
                let sum = sr.loadUnaligned(fromByteOffset: o, as: Lanes.self) &+ value
                sr.storeBytes(of: sum, toByteOffset: o, as: Lanes.self)
            }
            i &+= 16
        }
        while i < count {
            let yv = Int32(y[i])
            for plane in 0..<3 {
                let o = i &+ plane &* pitch
                let value = min(max(yv &+ Int32(terms[o]), 0), 255)
                sums[o] &+= UInt16(truncatingIfNeeded: value)
            }
            i &+= 1
        }
    }

    /// Adds the column sums of `count` columns, the first at crop column `rx`, to the block
    /// sums of one output row (`band`, interleaved RGB): column i falls in block
    /// (rx + i + phaseX) / factor. The column sums are zeroed for the next block row.
    static func flush(_ sums: UnsafeMutablePointer<UInt16>, pitch: Int, count: Int, rx: Int, phaseX: Int, factor: Int,
                      into band: UnsafeMutablePointer<UInt32>) {
        var i = 0
        var block = (rx &+ phaseX) / factor
        while i < count {
            let end = min(count, (block &+ 1) &* factor &- phaseX &- rx)
            let s = band + block &* 3
            for plane in 0..<3 {
                let p = sums + plane &* pitch
                var total: UInt32 = 0
                for j in i..<end { total &+= UInt32(p[j]) }
                s[plane] &+= total
            }
            i = end
            block &+= 1
        }
        for plane in 0..<3 { (sums + plane &* pitch).update(repeating: 0, count: count) }
    }
}
