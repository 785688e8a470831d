// The HEVC and HEIC kernels built a second time for AVX2 (this target is compiled with
// `-target-cpu haswell`, see Package.swift). The other files of this folder are symlinks to
// ImageCodec's own kernel sources, so both builds are the same integer code and give identical
// output; only the instructions the compiler may pick differ.
//
// Nothing here may run on a CPU without AVX2: ImageCodec calls these only through
// `HEVCKernelDispatch.selected`, which checks the CPU once.

/// Entry points into the AVX2 build, as C function pointers for `ImageCodec.HEVCKernelDispatch`.
package enum AVX2HEVCKernels {
    /// `HEIFReductionLanes.addRow`: one row's RGB added to the column sums.
    package static let heifAddRow: @convention(c) (UnsafePointer<UInt16>, Int, UnsafePointer<Int16>, UnsafeMutablePointer<UInt16>, Int) -> Void = {
        HEIFReductionLanes.addRow(y: $0, count: $1, terms: $2, sums: $3, pitch: $4)
    }

    /// `HEIFReductionLanes.flush`: column sums into the block sums of one output row.
    package static let heifFlush: @convention(c) (UnsafeMutablePointer<UInt16>, Int, Int, Int, Int, Int, UnsafeMutablePointer<UInt32>) -> Void = {
        HEIFReductionLanes.flush($0, pitch: $1, count: $2, rx: $3, phaseX: $4, factor: $5, into: $6)
    }

    /// `HEVCTransformLanes.inverseDCT`: an 8- to 32-point inverse DCT, both passes.
    package static let inverseDCT: @convention(c) (UnsafePointer<Int32>, UnsafeMutablePointer<Int32>, Int, Int32, Int, Int, UnsafePointer<Int32>) -> Void = {
        HEVCTransformLanes.inverseDCT($0, into: $1, log2Size: $2, bdShift: $3, maxRow: $4, maxColumn: $5, table: $6)
    }

    /// `HEVCIntraLanes.planar`: the planar prediction of one block.
    package static let intraPlanar: @convention(c) (UnsafePointer<Int32>, Int, UnsafeMutablePointer<UInt16>, Int) -> Void = {
        HEVCIntraLanes.planar($0, log2Size: $1, out: $2, stride: $3)
    }

    /// `HEVCTransformLanes.addResidual`: residual plus prediction, clipped.
    package static let addResidual: @convention(c) (UnsafePointer<Int32>, UnsafeMutablePointer<UInt16>, Int, Int, Int32) -> Void = {
        HEVCTransformLanes.addResidual($0, to: $1, stride: $2, log2Size: $3, maxValue: $4)
    }
}
