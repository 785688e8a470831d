/// 2×2 chroma downsampling as libjpeg's `h2v2_downsample` does it (CODEC-NOTES §8): each
/// output sample is the mean of a 2×2 group, rounded with a bias that alternates 1, 2, 1, 2…
/// along the row so the rounding error does not drift one way.
enum ChromaDownsampler {
    /// Averages rows `top` and `bottom` (both at least `2 * outputWidth` samples, already
    /// edge-replicated) into `outputWidth` samples at `out`.
    @inline(__always)
    static func h2v2(top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>,
                     out: UnsafeMutablePointer<UInt8>, outputWidth: Int) {
        var bias: UInt32 = 1
        var i = 0
        var j = 0
        while i < outputWidth {
            let sum = UInt32(top[j]) &+ UInt32(top[j &+ 1]) &+ UInt32(bottom[j]) &+ UInt32(bottom[j &+ 1])
            out[i] = UInt8(truncatingIfNeeded: (sum &+ bias) >> 2)
            bias ^= 3
            i &+= 1
            j &+= 2
        }
    }
}
