// Chroma upsampling as libjpeg-turbo 2.1.5 `jdsample.c` does it (docs/jpeg-decoding.md
// "Upsampling"), one row per call so the decoder can stream rows without a whole-plane buffer. The
// "fancy" filters are the triangle filters of `h2v1_fancy_upsample`, `h1v2_fancy_upsample` and
// `h2v2_fancy_upsample`; edges repeat the first and last real sample, which is what libjpeg's
// special-cased first and last columns compute. The caller picks the method once per component (the
// plan) and passes the neighbouring row (or the same row at the image edges) for vertical filters.

/// Row upsamplers for subsampled chroma planes.
enum Upsampler {
    /// libjpeg fancy h2v1: `input` has `width` real samples (edges repeat the first/last real
    /// sample); writes 2 × width samples: out[2i] = (3a[i] + a[i−1] + 1) >> 2,
    /// out[2i+1] = (3a[i] + a[i+1] + 2) >> 2.
    ///
    /// Interior samples go sixteen at a time on 16-bit lanes (one AVX2 register), then eight,
    /// as in `fancyH2V2`.
    static func fancyH2V1(_ input: UnsafePointer<UInt8>, width: Int, _ output: UnsafeMutablePointer<UInt8>) {
        guard width > 0 else { return }
        let last = width &- 1
        @inline(__always) func pair(_ i: Int) {
            let c3 = Int(input[i]) &* 3
            output[2 &* i] = UInt8(truncatingIfNeeded: (c3 &+ Int(input[i > 0 ? i &- 1 : 0]) &+ 1) &>> 2)
            output[2 &* i &+ 1] = UInt8(truncatingIfNeeded: (c3 &+ Int(input[i < last ? i &+ 1 : last]) &+ 2) &>> 2)
        }
        pair(0)
        var i = 1
        let raw = UnsafeRawPointer(input)
        @inline(__always) func samples(_ at: Int) -> SIMD8<Int16> {
            SIMD8<Int16>(widening: raw.loadUnaligned(fromByteOffset: at, as: SIMD8<UInt8>.self))
        }
        @inline(__always) func samples16(_ at: Int) -> SIMD16<Int16> {
            widen16(raw.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self))
        }
        while i &+ 16 <= last {
            let c3 = samples16(i) &* 3
            let even = (c3 &+ samples16(i &- 1) &+ 1) &>> 2
            let odd = (c3 &+ samples16(i &+ 1) &+ 2) &>> 2
            UnsafeMutableRawPointer(output + 2 &* i).storeBytes(of: even | odd &<< 8, as: SIMD16<Int16>.self)
            i &+= 16
        }
        while i &+ 8 <= last {
            let c3 = samples(i) &* 3
            let even = (c3 &+ samples(i &- 1) &+ 1) &>> 2
            let odd = (c3 &+ samples(i &+ 1) &+ 2) &>> 2
            UnsafeMutableRawPointer(output + 2 &* i).storeBytes(of: even | odd &<< 8, as: SIMD8<Int16>.self)
            i &+= 8
        }
        while i <= last {
            pair(i)
            i &+= 1
        }
    }

    /// libjpeg fancy h1v2 for one output row: `near` = the input row, `far` = the row above (upper
    /// output row, bias 1) or below (lower output row, bias 2); the caller passes the same row at
    /// image edges. Writes `width` samples: (3·near + far + bias) >> 2.
    static func fancyH1V2(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int, upper: Bool, _ output: UnsafeMutablePointer<UInt8>) {
        let bias: UInt16 = upper ? 1 : 2
        for i in 0..<max(width, 0) {
            let s = UInt16(near[i]) &* 3 &+ UInt16(far[i]) &+ bias
            output[i] = UInt8(truncatingIfNeeded: s &>> 2)
        }
    }

    /// libjpeg fancy h2v2 for one output row: column sums s = 3·near + far, then
    /// out[2i] = (3s[i] + s[i−1] + 8) >> 4 and out[2i+1] = (3s[i] + s[i+1] + 7) >> 4, with the
    /// edge sums repeated. Writes 2 × width samples.
    ///
    /// Interior columns go sixteen, then eight at a time on 16-bit lanes (every term is ≤ 4088); each lane
    /// packs its even and odd output as one little-endian 16-bit word, so the interleaved
    /// store needs no shuffle.
    static func fancyH2V2(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int, _ output: UnsafeMutablePointer<UInt8>) {
        guard width > 0 else { return }
        let last = width &- 1
        @inline(__always) func sum(_ i: Int) -> Int { Int(near[i]) &* 3 &+ Int(far[i]) }
        @inline(__always) func pair(_ i: Int) {
            let c3 = sum(i) &* 3
            output[2 &* i] = UInt8(truncatingIfNeeded: (c3 &+ sum(i > 0 ? i &- 1 : 0) &+ 8) &>> 4)
            output[2 &* i &+ 1] = UInt8(truncatingIfNeeded: (c3 &+ sum(i < last ? i &+ 1 : last) &+ 7) &>> 4)
        }
        pair(0)
        var i = 1
        let nraw = UnsafeRawPointer(near), fraw = UnsafeRawPointer(far)
        @inline(__always) func sums(_ at: Int) -> SIMD8<Int16> {
            let n = SIMD8<Int16>(widening: nraw.loadUnaligned(fromByteOffset: at, as: SIMD8<UInt8>.self))
            let f = SIMD8<Int16>(widening: fraw.loadUnaligned(fromByteOffset: at, as: SIMD8<UInt8>.self))
            return n &* 3 &+ f
        }
        @inline(__always) func sums16(_ at: Int) -> SIMD16<Int16> {
            let n = widen16(nraw.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self))
            let f = widen16(fraw.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self))
            return n &* 3 &+ f
        }
        while i &+ 16 <= last {
            let c3 = sums16(i) &* 3
            let even = (c3 &+ sums16(i &- 1) &+ 8) &>> 4
            let odd = (c3 &+ sums16(i &+ 1) &+ 7) &>> 4
            UnsafeMutableRawPointer(output + 2 &* i).storeBytes(of: even | odd &<< 8, as: SIMD16<Int16>.self)
            i &+= 16
        }
        while i &+ 8 <= last {
            let c3 = sums(i) &* 3
            let even = (c3 &+ sums(i &- 1) &+ 8) &>> 4
            let odd = (c3 &+ sums(i &+ 1) &+ 7) &>> 4
            UnsafeMutableRawPointer(output + 2 &* i).storeBytes(of: even | odd &<< 8, as: SIMD8<Int16>.self)
            i &+= 8
        }
        while i <= last {
            pair(i)
            i &+= 1
        }
    }

    /// Sixteen bytes zero-extended, lane by lane (SIMDLanes.swift says why).
    @inline(__always)
    private static func widen16(_ v: SIMD16<UInt8>) -> SIMD16<Int16> {
        SIMD16<Int16>(Int16(v[0]), Int16(v[1]), Int16(v[2]), Int16(v[3]), Int16(v[4]), Int16(v[5]), Int16(v[6]), Int16(v[7]),
                      Int16(v[8]), Int16(v[9]), Int16(v[10]), Int16(v[11]), Int16(v[12]), Int16(v[13]), Int16(v[14]), Int16(v[15]))
    }

    /// Plain replication horizontally by `factor` (1...4), libjpeg's `int_upsample` /
    /// `h2v1_upsample` along a row: writes width × factor samples.
    static func replicate(_ input: UnsafePointer<UInt8>, width: Int, factor: Int, _ output: UnsafeMutablePointer<UInt8>) {
        guard width > 0 else { return }
        switch factor {
        case 1:
            output.update(from: input, count: width)
        case 2:
            for i in 0..<width {
                let v = input[i]
                output[2 &* i] = v
                output[2 &* i &+ 1] = v
            }
        default:
            var o = output
            for i in 0..<width {
                let v = input[i]
                for _ in 0..<factor { o.pointee = v; o += 1 }
            }
        }
    }
}
