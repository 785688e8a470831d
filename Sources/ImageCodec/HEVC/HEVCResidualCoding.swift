/// residual_coding() (H.265 7.3.8.11) for intra transform blocks: last position, coded
/// sub-block flags, significance with its context derivation (9.3.4.2.5), greater-1/-2
/// flags, signs with sign data hiding, and coeff_abs_level_remaining with Rice adaptation.
extension HEVCSliceDecoder {
    /// Parses the levels of an N×N block (N = 1 << log2Size) into `coefficients` (row-major,
    /// TransCoeffLevel). Returns transform_skip_flag and the highest row and column holding a
    /// non-zero level, which bound the inverse transform's work.
    func decodeResidual(log2Size: Int, component: Int, scanIdx: Int) -> (transformSkip: Bool, maxRow: Int, maxColumn: Int) {
        let size = 1 << log2Size
        let coeff = coefficients
        coeff.update(repeating: 0, count: size * size)
        var transformSkip = false
        if pps.transformSkipEnabled && !cuTransquantBypass && log2Size <= 2 {
            transformSkip = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.transformSkipFlag + (component > 0 ? 1 : 0)]) == 1
        }
        let chroma = component > 0
        // Last significant position.
        let cMax = (log2Size << 1) - 1
        let offset = chroma ? 15 : 3 * (log2Size - 2) + ((log2Size - 1) >> 2)
        let shift = chroma ? log2Size - 2 : (log2Size + 1) >> 2
        var prefixX = 0, prefixY = 0
        while prefixX < cMax && cabac.pointee.decodeBin(&contexts[HEVCCABACTables.lastXPrefix + offset + (prefixX >> shift)]) == 1 {
            prefixX += 1
        }
        while prefixY < cMax && cabac.pointee.decodeBin(&contexts[HEVCCABACTables.lastYPrefix + offset + (prefixY >> shift)]) == 1 {
            prefixY += 1
        }
        var lastX = prefixX, lastY = prefixY
        if prefixX > 3 {
            let bits = (prefixX >> 1) - 1
            lastX = (1 << bits) * (2 + (prefixX & 1)) + cabac.pointee.decodeBypassBits(bits)
        }
        if prefixY > 3 {
            let bits = (prefixY >> 1) - 1
            lastY = (1 << bits) * (2 + (prefixY & 1)) + cabac.pointee.decodeBypassBits(bits)
        }
        if scanIdx == 2 { swap(&lastX, &lastY) }

        let log2Sb = log2Size - 2
        let sbWidth = 1 << log2Sb
        let sbScan = HEVCScanTables.subBlocks[log2Sb][scanIdx]
        let posScan = HEVCScanTables.subBlocks[2][scanIdx]
        let lastSb = HEVCScanTables.index[log2Sb][scanIdx][(lastY >> 2) << log2Sb | (lastX >> 2)]
        let lastPos = HEVCScanTables.index[2][scanIdx][(lastY & 3) << 2 | (lastX & 3)]

        var codedSubBlocks: UInt64 = 0
        var greater1State = 1
        let sigBase = HEVCCABACTables.sigCoeffFlag + (chroma ? 27 : 0)
        let g1Base = HEVCCABACTables.greater1Flag + (chroma ? 16 : 0)
        let g2Base = HEVCCABACTables.greater2Flag + (chroma ? 4 : 0)
        let csbfBase = HEVCCABACTables.codedSubBlockFlag + (chroma ? 2 : 0)
        let hidingAllowed = pps.signDataHiding && !cuTransquantBypass
        var maxRow = 0, maxColumn = 0

        for i in stride(from: Int(lastSb), through: 0, by: -1) {
            let sbPos = Int(sbScan[i])
            let xS = sbPos & 15, yS = sbPos >> 4
            let right = xS < sbWidth - 1 && codedSubBlocks & (1 << UInt64(yS * 8 + xS + 1)) != 0
            let below = yS < sbWidth - 1 && codedSubBlocks & (1 << UInt64((yS + 1) * 8 + xS)) != 0
            var inferDc = false
            var coded = true
            if i < Int(lastSb) && i > 0 {
                coded = cabac.pointee.decodeBin(&contexts[csbfBase + ((right || below) ? 1 : 0)]) == 1
                inferDc = true
            }
            guard coded else { continue }
            codedSubBlocks |= 1 << UInt64(yS * 8 + xS)

            // Significant positions n, highest first.
            let sigN = significant
            var count = 0
            var start = 15
            if i == Int(lastSb) {
                start = Int(lastPos) - 1
                sigN[0] = Int(lastPos)
                count = 1
            }
            let prevCsbf = (right ? 1 : 0) | (below ? 2 : 0)
            if start >= 0 {
                for n in stride(from: start, through: 0, by: -1) {
                    let p = Int(posScan[n])
                    let xP = p & 15, yP = p >> 4
                    var sig: Bool
                    if n > 0 || !inferDc {
                        let xC = (xS << 2) + xP, yC = (yS << 2) + yP
                        var sigCtx: Int
                        if log2Size == 2 {
                            sigCtx = Int(HEVCScanTables.ctxIdxMap[(yC << 2) + xC])
                        } else if xC + yC == 0 {
                            sigCtx = 0
                        } else {
                            switch prevCsbf {
                            case 0: sigCtx = xP + yP == 0 ? 2 : (xP + yP < 3 ? 1 : 0)
                            case 1: sigCtx = yP == 0 ? 2 : (yP == 1 ? 1 : 0)
                            case 2: sigCtx = xP == 0 ? 2 : (xP == 1 ? 1 : 0)
                            default: sigCtx = 2
                            }
                            if !chroma && (xS > 0 || yS > 0) { sigCtx += 3 }
                            if log2Size == 3 {
                                sigCtx += scanIdx == 0 ? 9 : 15
                            } else {
                                sigCtx += chroma ? 12 : 21
                            }
                        }
                        sig = cabac.pointee.decodeBin(&contexts[sigBase + sigCtx]) == 1
                        if sig { inferDc = false }
                    } else {
                        sig = true
                    }
                    if sig {
                        sigN[count] = n
                        count += 1
                    }
                }
            }
            guard count > 0 else { continue }
            decodeLevels(count: count, subBlock: i, xS: xS, yS: yS, log2Size: log2Size,
                              posScan: posScan, chroma: chroma, g1Base: g1Base, g2Base: g2Base,
                              greater1State: &greater1State, hidingAllowed: hidingAllowed,
                              maxRow: &maxRow, maxColumn: &maxColumn)
        }
        return (transformSkip, maxRow, maxColumn)
    }

    @inline(__always)
    private func decodeLevels(count: Int, subBlock i: Int, xS: Int, yS: Int, log2Size: Int, posScan: [UInt8],
                              chroma: Bool, g1Base: Int, g2Base: Int, greater1State: inout Int,
                              hidingAllowed: Bool, maxRow: inout Int, maxColumn: inout Int) {
        let ns = significant
        var ctxSet = (i == 0 || chroma) ? 0 : 2
        if greater1State == 0 { ctxSet += 1 }
        var c1 = 1
        var greater1Flags = 0
        var firstGreater1 = -1
        for k in 0..<min(8, count) {
            let flag = cabac.pointee.decodeBin(&contexts[g1Base + ctxSet * 4 + c1])
            if flag == 1 {
                greater1Flags |= 1 << k
                c1 = 0
                if firstGreater1 < 0 { firstGreater1 = k }
            } else if c1 > 0 && c1 < 3 {
                c1 += 1
            }
        }
        greater1State = c1
        var greater2 = 0
        if firstGreater1 >= 0 { greater2 = cabac.pointee.decodeBin(&contexts[g2Base + ctxSet]) }
        let signHidden = hidingAllowed && ns[0] - ns[count - 1] > 3
        let signCount = signHidden ? count - 1 : count
        let signs = cabac.pointee.decodeBypassBits(signCount) << (32 - signCount)
        var rice = 0
        var sumAbs = 0
        let size = 1 << log2Size
        for k in 0..<count {
            var base = 1
            if k < 8 {
                base += (greater1Flags >> k) & 1
                if k == firstGreater1 { base += greater2 }
            }
            let threshold = k < 8 ? (k == firstGreater1 ? 3 : 2) : 1
            var level = base
            if base == threshold {
                level = base + decodeAbsLevelRemaining(rice: rice)
                if level > 3 * (1 << rice) { rice = min(rice + 1, 4) }
            }
            level = min(level, 32_768)
            sumAbs += level
            let p = Int(posScan[ns[k]])
            let xC = (xS << 2) + (p & 15), yC = (yS << 2) + (p >> 4)
            var value = level
            if k < signCount {
                if (signs >> (31 - k)) & 1 == 1 { value = -value }
            } else if sumAbs & 1 == 1 {
                value = -value
            }
            coefficients[yC &* size &+ xC] = Int32(value)
            maxRow = max(maxRow, yC)
            maxColumn = max(maxColumn, xC)
        }
    }

    /// coeff_abs_level_remaining (9.3.3.11): a Rice-coded prefix of up to four, then
    /// Exp-Golomb of order rice + 1.
    @inline(__always)
    private func decodeAbsLevelRemaining(rice: Int) -> Int {
        var prefix = 0
        while prefix < 32 && cabac.pointee.decodeBypass() == 1 { prefix += 1 }
        if prefix <= 3 { return (prefix << rice) + cabac.pointee.decodeBypassBits(rice) }
        return (((1 << (prefix - 3)) + 2) << rice) + cabac.pointee.decodeBypassBits(prefix - 3 + rice)
    }
}

/// Scan position tables (6.5.3-6.5.5): for a grid of side 1 << log2 (0...3) and scanIdx
/// (0 diagonal, 1 horizontal, 2 vertical), the positions in scan order as x | y << 4, and
/// the inverse (position y << log2 | x to scan index).
enum HEVCScanTables {
    static let subBlocks: [[[UInt8]]] = (0...3).map { log2 in
        [HEVCScanOrder.diagonal(log2Size: log2), HEVCScanOrder.horizontal(log2Size: log2),
         HEVCScanOrder.vertical(log2Size: log2)].map { $0.map { UInt8($0.0 | $0.1 << 4) } }
    }
    static let index: [[[UInt8]]] = (0...3).map { log2 in
        subBlocks[log2].map { scan in
            var inverse = [UInt8](repeating: 0, count: scan.count)
            for (i, p) in scan.enumerated() { inverse[Int(p >> 4) << log2 | Int(p & 15)] = UInt8(i) }
            return inverse
        }
    }
    /// ctxIdxMap for 4×4 blocks (9.3.4.2.5).
    static let ctxIdxMap: [UInt8] = [0, 1, 4, 5, 2, 3, 4, 5, 6, 6, 8, 8, 7, 7, 8, 8]
}
