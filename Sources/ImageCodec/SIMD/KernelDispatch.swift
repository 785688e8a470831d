import CCPUFeatures
#if arch(x86_64)
import JPEGKernelsAVX2
#endif

/// Hot kernels chosen once per process from the CPU: the portable build (baseline x86-64,
/// SSE2) or, on CPUs with AVX2, BMI2 and FMA, the same source compiled for haswell
/// (`JPEGKernelsAVX2`). Setting `GALLERY_PORTABLE_KERNELS=1` forces the portable kernels.
/// Both give identical output (integer code from one source; `KernelDispatchTests` compares
/// them on random and real input).
///
/// Measured (callgrind and CPU time, 20 MP 4:2:2 baseline, full size; docs/performance.md):
/// the 8×8 IDCT, the fancy upsamplers and YCbCr → RGB are where the AVX2 build pays; for WebP, the VP8 loop
/// filter and YUV→RGB conversion, whose 16-lane vectors are one register each with AVX2.
struct KernelDispatch: Sendable {
    typealias IDCT = @convention(c) (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void
    typealias RowUpsample = @convention(c) (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Void
    typealias TwoRowUpsample = @convention(c) (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Void
    /// Y, Cb and Cr rows of `count` samples to interleaved RGB.
    typealias ColourRow = @convention(c) (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Void

    /// `VP8LoopFilter.simple(y:stride:left:top:inner:limit:)`.
    typealias VP8SimpleFilter = @convention(c) (UnsafeMutablePointer<UInt8>, Int, Bool, Bool, Bool, Int32) -> Void
    /// `VP8LoopFilter.normal(y:u:v:yStride:uvStride:left:top:inner:limit:interior:hev:)`.
    typealias VP8NormalFilter = @convention(c) (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>,
                                                Int, Int, Bool, Bool, Bool, Int32, Int32, Int32) -> Void
    /// `VP8YUVConverter.convertRow`, arguments in its order.
    typealias VP8ConvertRow = @convention(c) (UnsafePointer<UInt8>, Int, Int, Int, Int, UnsafePointer<UInt8>, UnsafePointer<UInt8>,
                                              Int, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>) -> Void

    let name: String
    let idct8x8: IDCT
    let fancyH2V1: RowUpsample
    let fancyH2V2: TwoRowUpsample
    /// JPEG YCbCr → RGB: libjpeg's tables in the portable set (`ColourToRGB`), the same formulas
    /// on 32-bit lanes in the AVX2 set (`YCbCrLanes`).
    let ycbcrToRGB: ColourRow
    let vp8SimpleFilter: VP8SimpleFilter
    let vp8NormalFilter: VP8NormalFilter
    let vp8ConvertRow: VP8ConvertRow

    static let portable = KernelDispatch(
        name: "portable",
        idct8x8: { ScaledIDCT.idct8x8($0, $1, $2, $3) },
        fancyH2V1: { Upsampler.fancyH2V1($0, width: $1, $2) },
        fancyH2V2: { Upsampler.fancyH2V2(near: $0, far: $1, width: $2, $3) },
        ycbcrToRGB: { ColourToRGB.ycbcrToRGB(y: $0, cb: $1, cr: $2, count: $3, $4) },
        vp8SimpleFilter: { VP8LoopFilter.simple(y: $0, stride: $1, left: $2, top: $3, inner: $4, limit: $5) },
        vp8NormalFilter: {
            VP8LoopFilter.normal(y: $0, u: $1, v: $2, yStride: $3, uvStride: $4, left: $5, top: $6, inner: $7,
                                 limit: $8, interior: $9, hev: $10)
        },
        vp8ConvertRow: {
            VP8YUVConverter.convertRow($0, y: $1, width: $2, height: $3, yStride: $4, uPlane: $5, vPlane: $6, uvStride: $7,
                                       alpha: $8, channels: $9, out: $10)
        })

    /// The AVX2 build, or nil where it cannot run (the CPU lacks a feature, or not x86-64).
    static let avx2: KernelDispatch? = {
        #if arch(x86_64)
        guard gallery_cpu_runs_avx2_kernels() != 0 else { return nil }
        return KernelDispatch(name: "avx2", idct8x8: AVX2JPEGKernels.idct8x8,
                              fancyH2V1: AVX2JPEGKernels.fancyH2V1, fancyH2V2: AVX2JPEGKernels.fancyH2V2,
                              ycbcrToRGB: AVX2JPEGKernels.ycbcrToRGB,
                              vp8SimpleFilter: AVX2WebPKernels.vp8SimpleFilter, vp8NormalFilter: AVX2WebPKernels.vp8NormalFilter,
                              vp8ConvertRow: AVX2WebPKernels.vp8ConvertRow)
        #else
        return nil
        #endif
    }()

    /// The set every decode uses: read it once per decode (a global's first-use check is a
    /// call on Linux), not per block.
    static let selected: KernelDispatch = gallery_portable_kernels_forced() != 0 ? portable : (avx2 ?? portable)
}
