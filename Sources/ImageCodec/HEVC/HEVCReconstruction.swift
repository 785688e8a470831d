/// One transform block from prediction to reconstructed samples (H.265 8.4.4.1): intra
/// prediction, then, when the block has coefficients, parsing, scaling and inverse transform
/// (or transquant bypass) and the clipped sum.
extension HEVCSliceDecoder {
    func reconstructBlock(component: Int, x: Int, y: Int, log2Size: Int, mode: Int, coded: Bool) throws {
        predictIntra(component: component, x: x, y: y, log2Size: log2Size, mode: mode)
        guard coded else { return }
        // 7.4.9.11: mode-dependent scans for 4×4 blocks and 8×8 luma.
        var scanIdx = 0
        if log2Size == 2 || (log2Size == 3 && component == 0) {
            if (6...14).contains(mode) { scanIdx = 2 } else if (22...30).contains(mode) { scanIdx = 1 }
        }
        let (transformSkip, maxRow, maxColumn) = decodeResidual(log2Size: log2Size, component: component, scanIdx: scanIdx)
        let n = 1 << log2Size
        let bitDepth = component == 0 ? sps.bitDepthLuma : sps.bitDepthChroma
        let r = residual
        if cuTransquantBypass {
            r.update(from: coefficients, count: n * n)
        } else {
            let qp = component == 0 ? qpY + qpBdOffsetY : chromaQp(offset: component == 1 ? cbQpOffset : crQpOffset)
            if let list = scalingList {
                list.factors[log2Size - 2][component].withUnsafeBufferPointer {
                    HEVCInverseTransform.scale(coefficients, log2Size: log2Size, qp: qp, bitDepth: bitDepth,
                                               factors: $0.baseAddress)
                }
            } else {
                HEVCInverseTransform.scale(coefficients, log2Size: log2Size, qp: qp, bitDepth: bitDepth, factors: nil)
            }
            if transformSkip {
                HEVCInverseTransform.transformSkip(coefficients, into: r, bitDepth: bitDepth)
            } else {
                HEVCInverseTransform.inverse(coefficients, into: r, log2Size: log2Size,
                                             dst: component == 0 && log2Size == 2, bitDepth: bitDepth,
                                             maxRow: maxRow, maxColumn: maxColumn)
            }
        }
        let plane = frame.planes[component]
        let stride = component == 0 ? frame.width : frame.chromaWidth
        let maxValue = Int32((1 << bitDepth) - 1)
        for yy in 0..<n {
            let row = plane + ((y + yy) * stride + x)
            for xx in 0..<n {
                let v = Int32(row[xx]) + r[yy * n + xx]
                row[xx] = UInt16(truncatingIfNeeded: min(max(v, 0), maxValue))
            }
        }
    }

    /// Qp′Cb or Qp′Cr (8.6.1, table 8-10 for 4:2:0).
    private func chromaQp(offset: Int) -> Int {
        let qpi = min(max(qpY + offset, -qpBdOffsetC), 57)
        let qpc: Int
        if qpi < 30 {
            qpc = qpi
        } else if qpi >= 43 {
            qpc = qpi - 6
        } else {
            qpc = [29, 30, 31, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37, 37][qpi - 30]
        }
        return qpc + qpBdOffsetC
    }
}
