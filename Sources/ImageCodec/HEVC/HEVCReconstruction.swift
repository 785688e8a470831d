/// One transform block from prediction to reconstructed samples (H.265 8.4.4.1): intra
/// prediction, then, when the block has coefficients, parsing, scaling and inverse transform
/// (or transquant bypass) and the clipped sum.
extension HEVCSliceDecoder {
    func reconstructBlock(component: Int, x: Int, y: Int, log2Size: Int, mode: Int, coded: Bool) throws {
        predictIntra(component: component, x: x, y: y, log2Size: log2Size, mode: mode)
        guard coded else { return }
        // 7.4.9.11: mode-dependent scans for 4×4 blocks and 8×8 luma (and 8×8 chroma in 4:4:4).
        var scanIdx = 0
        if log2Size == 2 || (log2Size == 3 && (component == 0 || chromaArrayType == 3)) {
            if (6...14).contains(mode) { scanIdx = 2 } else if (22...30).contains(mode) { scanIdx = 1 }
        }
        let n = 1 << log2Size
        let bitDepth = component == 0 ? sps.bitDepthLuma : sps.bitDepthChroma
        let qp = component == 0 ? qpY + qpBdOffsetY : chromaQp(offset: component == 1 ? cbQpOffset : crQpOffset)
        let dequantiser = HEVCDequantiser(qp: qp, log2Size: log2Size, bitDepth: bitDepth,
                                          factors: scalingFactors(log2Size: log2Size, component: component),
                                          bypass: cuTransquantBypass)
        let (transformSkip, maxRow, maxColumn) = decodeResidual(log2Size: log2Size, component: component,
                                                                scanIdx: scanIdx, dequantiser: dequantiser)
        let r = residual
        if cuTransquantBypass {
            r.update(from: coefficients, count: n * n)
        } else if transformSkip {
            HEVCInverseTransform.transformSkip(coefficients, into: r, bitDepth: bitDepth)
        } else if log2Size >= 3 && (maxRow > 0 || maxColumn > 0) {
            HEVCInverseTransform.dct32.withUnsafeBufferPointer { table in
                kernels.inverseDCT(coefficients, r, log2Size, Int32(20 - bitDepth), maxRow, maxColumn, table.baseAddress!)
            }
        } else {
            HEVCInverseTransform.inverse(coefficients, into: r, log2Size: log2Size,
                                         dst: component == 0 && log2Size == 2, bitDepth: bitDepth,
                                         maxRow: maxRow, maxColumn: maxColumn)
        }
        let plane = frame.sample(component, x: x, y: y)
        let stride = component == 0 ? frame.width : frame.chromaWidth
        // The block lies inside the plane (the coding tree only visits blocks that do).
        kernels.addResidual(r, plane, stride, log2Size, Int32((1 << bitDepth) - 1))
    }

    /// Qp′Cb or Qp′Cr (8.6.1: table 8-10 for 4:2:0, Min(qPi, 51) for the other formats).
    private func chromaQp(offset: Int) -> Int {
        let qpi = min(max(qpY + offset, -qpBdOffsetC), 57)
        let qpc: Int
        if chromaArrayType != 1 {
            qpc = min(qpi, 51)
        } else if qpi < 30 {
            qpc = qpi
        } else if qpi >= 43 {
            qpc = qpi - 6
        } else {
            qpc = HEVCSliceDecoder.chromaQpTable[qpi - 30]
        }
        return qpc + qpBdOffsetC
    }

    /// QpC for qPi 30...42 (table 8-10).
    private static let chromaQpTable: [Int] = [29, 30, 31, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37]

    /// The ScalingFactor block of an intra transform block, or nil without scaling lists.
    private func scalingFactors(log2Size: Int, component: Int) -> UnsafePointer<UInt8>? {
        guard let factors = flatScalingFactors else { return nil }
        return UnsafePointer(factors + HEVCSliceDecoder.scalingFactorOffset(log2Size: log2Size, component: component))
    }

    /// Where the factors of (log2Size, component) start in `flatScalingFactors`: sizes 4×4 to
    /// 32×32 one after the other, each holding intra Y, Cb and Cr.
    static func scalingFactorOffset(log2Size: Int, component: Int) -> Int {
        var offset = 0
        for l in 2..<log2Size { offset += 3 << (2 * l) }
        return offset + component << (2 * log2Size)
    }
}
