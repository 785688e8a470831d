// Chroma upsampling as libjpeg-turbo 2.1.5 `jdsample.c` does it (CODEC-NOTES §3), one row per
// call so the decoder can stream rows without a whole-plane buffer. The "fancy" filters are the
// triangle filters of `h2v1_fancy_upsample`, `h1v2_fancy_upsample` and `h2v2_fancy_upsample`;
// edges repeat the first and last real sample, which is what libjpeg's special-cased first and
// last columns compute. The caller picks the method once per component (the plan) and passes
// the neighbouring row (or the same row at the image edges) for vertical filters.

/// Row upsamplers for subsampled chroma planes.
enum Upsampler {
    /// libjpeg fancy h2v1: `input` has `width` real samples (edges repeat the first/last real
    /// sample); writes 2 × width samples: out[2i] = (3a[i] + a[i−1] + 1) >> 2,
    /// out[2i+1] = (3a[i] + a[i+1] + 2) >> 2.
    static func fancyH2V1(_ input: UnsafePointer<UInt8>, width: Int, _ output: UnsafeMutablePointer<UInt8>) {
        guard width > 1 else {
            if width == 1 { output[0] = input[0]; output[1] = input[0] }
            return
        }
        let last = width &- 1
        var prev = Int(input[0])
        var cur = prev
        for i in 0..<last {
            let next = Int(input[i &+ 1])
            let c3 = cur &* 3
            output[2 &* i] = UInt8(truncatingIfNeeded: (c3 &+ prev &+ 1) &>> 2)
            output[2 &* i &+ 1] = UInt8(truncatingIfNeeded: (c3 &+ next &+ 2) &>> 2)
            prev = cur
            cur = next
        }
        let c3 = cur &* 3
        output[2 &* last] = UInt8(truncatingIfNeeded: (c3 &+ prev &+ 1) &>> 2)
        output[2 &* last &+ 1] = UInt8(truncatingIfNeeded: (c3 &+ cur &+ 2) &>> 2)
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
    static func fancyH2V2(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int, _ output: UnsafeMutablePointer<UInt8>) {
        guard width > 0 else { return }
        let last = width &- 1
        var prev = Int(near[0]) &* 3 &+ Int(far[0])
        var cur = prev
        for i in 0..<last {
            let next = Int(near[i &+ 1]) &* 3 &+ Int(far[i &+ 1])
            let c3 = cur &* 3
            output[2 &* i] = UInt8(truncatingIfNeeded: (c3 &+ prev &+ 8) &>> 4)
            output[2 &* i &+ 1] = UInt8(truncatingIfNeeded: (c3 &+ next &+ 7) &>> 4)
            prev = cur
            cur = next
        }
        let c3 = cur &* 3
        output[2 &* last] = UInt8(truncatingIfNeeded: (c3 &+ prev &+ 8) &>> 4)
        output[2 &* last &+ 1] = UInt8(truncatingIfNeeded: (c3 &+ cur &+ 7) &>> 4)
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
