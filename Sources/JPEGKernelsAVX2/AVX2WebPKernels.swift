// The VP8 (lossy WebP) kernels built a second time for AVX2, beside the JPEG ones: the loop
// filter and the YUV→RGB row conversion work on 16 lanes of 16 bits, one register with AVX2
// and two with SSE2. The sources are symlinks to ImageCodec/WebP, so both builds are the same
// integer code and give identical output. Called only through `KernelDispatch.selected`.

/// Entry points into the AVX2 build of the VP8 kernels, as C function pointers.
package enum AVX2WebPKernels {
    /// `VP8LoopFilter.simple`: the simple filter over one macroblock's luma.
    package static let vp8SimpleFilter: @convention(c) (UnsafeMutablePointer<UInt8>, Int, Bool, Bool, Bool, Int32) -> Void = {
        VP8LoopFilter.simple(y: $0, stride: $1, left: $2, top: $3, inner: $4, limit: $5)
    }

    /// `VP8LoopFilter.normal`: the normal filter over one macroblock's luma and chroma.
    package static let vp8NormalFilter: @convention(c) (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>,
                                                        Int, Int, Bool, Bool, Bool, Int32, Int32, Int32) -> Void = {
        VP8LoopFilter.normal(y: $0, u: $1, v: $2, yStride: $3, uvStride: $4, left: $5, top: $6, inner: $7,
                             limit: $8, interior: $9, hev: $10)
    }

    /// `VP8YUVConverter.convertRow`: one RGB(A) row with fancy chroma upsampling.
    package static let vp8ConvertRow: @convention(c) (UnsafePointer<UInt8>, Int, Int, Int, Int, UnsafePointer<UInt8>, UnsafePointer<UInt8>,
                                                      Int, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>) -> Void = {
        VP8YUVConverter.convertRow($0, y: $1, width: $2, height: $3, yStride: $4, uPlane: $5, vPlane: $6, uvStride: $7,
                                   alpha: $8, channels: $9, out: $10)
    }
}
