/// Turns one MCU row of component strips into quantised blocks in scan order (for each MCU:
/// the Y blocks row by row, then Cb, then Cr), adding libjpeg's dummy blocks (`jccoefct.c`):
/// an MCU block past the component's real blocks is all zero except its DC, which repeats the
/// block to its left, or, on a dummy bottom row, the last block of the row above in the MCU.
/// The dummy blocks then cost only a zero DC difference and an EOB.
struct MCURowTransform {
    private struct Plane {
        var base: UnsafePointer<UInt8>
        var stride: Int
        var h: Int
        var v: Int
        var blocksWide: Int
        var blocksHigh: Int
        var divisors: UnsafePointer<UInt16>
    }

    private let planes: [Plane]
    private let mcusWide: Int
    /// Blocks (64 coefficients each) written per MCU row.
    let blocksPerRow: Int

    /// `divisors` holds `QuantDivisors.values` for table 0, then for table 1. The strips and
    /// the divisors must outlive this value.
    init(layout: FrameLayout, strips: borrowing ComponentStrips, divisors: UnsafePointer<UInt16>) {
        planes = layout.components.enumerated().map { i, c in
            let p = strips.plane(i)
            return Plane(base: p.base, stride: p.stride, h: c.h, v: c.v, blocksWide: c.blocksWide,
                         blocksHigh: c.blocksHigh, divisors: divisors + QuantDivisors.valuesPerTable * c.table)
        }
        mcusWide = layout.mcusWide
        blocksPerRow = layout.mcusWide * layout.blocksPerMCU
    }

    /// Writes `blocksPerRow` blocks for MCU row `mcuRow` (whose strips are filled) at `out`,
    /// and each block's non-zero AC mask (see `ForwardDCT.transform`) at `masks`.
    func run(mcuRow: Int, out: UnsafeMutablePointer<Int16>, masks: UnsafeMutablePointer<UInt64>) {
        ZigzagMask.table.withUnsafeBufferPointer { zigzagBits in
            run(mcuRow: mcuRow, out: out, masks: masks, zigzagBits: zigzagBits.baseAddress!)
        }
    }

    private func run(mcuRow: Int, out: UnsafeMutablePointer<Int16>, masks: UnsafeMutablePointer<UInt64>,
                     zigzagBits: UnsafePointer<UInt64>) {
        var block = out
        var mask = masks
        for mx in 0..<mcusWide {
            for p in planes {
                for by in 0..<p.v {
                    let blockRow = mcuRow &* p.v &+ by
                    if blockRow >= p.blocksHigh {
                        let dc = (block - 64)[0]
                        for _ in 0..<p.h {
                            block.update(repeating: 0, count: 64)
                            block[0] = dc
                            mask.pointee = 0
                            block += 64
                            mask += 1
                        }
                        continue
                    }
                    let rowBase = p.base + (by &* 8) &* p.stride
                    for bx in 0..<p.h {
                        let blockColumn = mx &* p.h &+ bx
                        if blockColumn < p.blocksWide {
                            mask.pointee = ForwardDCT.transform(rowBase + blockColumn &* 8, stride: p.stride,
                                                                divisors: p.divisors, zigzagBits: zigzagBits, out: block)
                        } else {
                            let dc = (block - 64)[0]
                            block.update(repeating: 0, count: 64)
                            block[0] = dc
                            mask.pointee = 0
                        }
                        block += 64
                        mask += 1
                    }
                }
            }
        }
    }
}
