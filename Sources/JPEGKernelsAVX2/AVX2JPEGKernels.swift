// The JPEG kernels built a second time for AVX2 (this target is compiled with
// `-target-cpu haswell`, see Package.swift). The other files of this folder are symlinks to
// ImageCodec's own kernel sources, so both builds are the same code; only the instructions the
// compiler may pick differ (integer code throughout, so the results are identical).
//
// Nothing here may run on a CPU without AVX2: ImageCodec calls these only through
// `KernelDispatch.selected`, which checks the CPU once.

/// Entry points into the AVX2 build, as C function pointers (no context, no reference counting
/// per call) for `ImageCodec.KernelDispatch`.
package enum AVX2JPEGKernels {
    /// `ScaledIDCT.idct8x8`: dequantise and transform one natural-order block to 8×8 pixels.
    package static let idct8x8: @convention(c) (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void = {
        ScaledIDCT.idct8x8($0, $1, $2, $3)
    }

    /// `YCbCrLanes.ycbcrToRGB`: one row of YCbCr samples to interleaved RGB.
    package static let ycbcrToRGB: @convention(c) (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Void = {
        YCbCrLanes.ycbcrToRGB(y: $0, cb: $1, cr: $2, count: $3, $4)
    }

    /// `Upsampler.fancyH2V1`: one row, twice as wide.
    package static let fancyH2V1: @convention(c) (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Void = {
        Upsampler.fancyH2V1($0, width: $1, $2)
    }

    /// `Upsampler.fancyH2V2`: one output row from the nearer and farther input rows.
    package static let fancyH2V2: @convention(c) (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Void = {
        Upsampler.fancyH2V2(near: $0, far: $1, width: $2, $3)
    }
}
