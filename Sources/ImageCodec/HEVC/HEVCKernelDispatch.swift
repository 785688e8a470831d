import CCPUFeatures
#if arch(x86_64)
import HEVCKernelsAVX2
#endif

/// The HEVC and HEIC hot kernels chosen once per process, as `KernelDispatch` chooses the JPEG
/// and WebP ones: the portable build, or on CPUs with AVX2, BMI2 and FMA the same source
/// compiled for haswell (`HEVCKernelsAVX2`). `GALLERY_PORTABLE_KERNELS=1` forces the portable
/// set. Both give identical output (integer code from one source; `HEVCKernelDispatchTests`
/// runs each kernel both ways on random and real input).
struct HEVCKernelDispatch: Sendable {
    /// `HEIFReductionLanes.addRow(y:count:terms:sums:pitch:)`.
    typealias AddRow = @convention(c) (UnsafePointer<UInt16>, Int, UnsafePointer<Int16>, UnsafeMutablePointer<UInt16>, Int) -> Void
    /// `HEIFReductionLanes.flush(_:pitch:count:rx:phaseX:factor:into:)`.
    typealias Flush = @convention(c) (UnsafeMutablePointer<UInt16>, Int, Int, Int, Int, Int, UnsafeMutablePointer<UInt32>) -> Void
    /// `HEVCTransformLanes.inverseDCT(_:into:log2Size:bdShift:maxRow:maxColumn:table:)` (8 to 32 points).
    /// `HEVCIntraLanes.planar(_:log2Size:out:stride:)`.
    typealias IntraPlanar = @convention(c) (UnsafePointer<Int32>, Int, UnsafeMutablePointer<UInt16>, Int) -> Void
    /// `HEVCTransformLanes.addResidual(_:to:stride:log2Size:maxValue:)`.
    typealias AddResidual = @convention(c) (UnsafePointer<Int32>, UnsafeMutablePointer<UInt16>, Int, Int, Int32) -> Void
    typealias InverseDCT = @convention(c) (UnsafePointer<Int32>, UnsafeMutablePointer<Int32>, Int, Int32, Int, Int, UnsafePointer<Int32>) -> Void

    let name: String
    let heifAddRow: AddRow
    let heifFlush: Flush
    let inverseDCT: InverseDCT
    let intraPlanar: IntraPlanar
    let addResidual: AddResidual

    static let portable = HEVCKernelDispatch(
        name: "portable",
        heifAddRow: { HEIFReductionLanes.addRow(y: $0, count: $1, terms: $2, sums: $3, pitch: $4) },
        heifFlush: { HEIFReductionLanes.flush($0, pitch: $1, count: $2, rx: $3, phaseX: $4, factor: $5, into: $6) },
        inverseDCT: { HEVCTransformLanes.inverseDCT($0, into: $1, log2Size: $2, bdShift: $3, maxRow: $4, maxColumn: $5, table: $6) },
        intraPlanar: { HEVCIntraLanes.planar($0, log2Size: $1, out: $2, stride: $3) },
        addResidual: { HEVCTransformLanes.addResidual($0, to: $1, stride: $2, log2Size: $3, maxValue: $4) })

    /// The AVX2 build, or nil where it cannot run (the CPU lacks a feature, or not x86-64).
    static let avx2: HEVCKernelDispatch? = {
        #if arch(x86_64)
        guard gallery_cpu_runs_avx2_kernels() != 0 else { return nil }
        return HEVCKernelDispatch(name: "avx2", heifAddRow: AVX2HEVCKernels.heifAddRow, heifFlush: AVX2HEVCKernels.heifFlush,
                                  inverseDCT: AVX2HEVCKernels.inverseDCT, intraPlanar: AVX2HEVCKernels.intraPlanar,
                                  addResidual: AVX2HEVCKernels.addResidual)
        #else
        return nil
        #endif
    }()

    /// The set every decode uses: read it once per decode or tile, not per block.
    static let selected: HEVCKernelDispatch = gallery_portable_kernels_forced() != 0 ? portable : (avx2 ?? portable)
}
