/// residual_coding() (H.265 7.3.8.11) for intra transform blocks: last position, coded
/// sub-block flags, significance with its context derivation (9.3.4.2.5), greater-1/-2
/// flags, signs with sign data hiding, and coeff_abs_level_remaining with Rice adaptation.
///
/// This is the hottest parsing path, so the arithmetic decoder is copied into a local for the
/// whole block (its state then lives in registers, with no stores through the shared pointer
/// per bin) and written back at the end; the scan and context tables are raw pointers.
extension HEVCSliceDecoder {
    /// Parses the levels of an N×N block (N = 1 << log2Size) into `coefficients` (row-major),
    /// scaled by `dequantiser` as each is parsed. Returns transform_skip_flag and the highest
    /// row and column holding a non-zero level, which bound the inverse transform's work.
    func decodeResidual(log2Size: Int, component: Int, scanIdx: Int,
                        dequantiser: HEVCDequantiser) -> (transformSkip: Bool, maxRow: Int, maxColumn: Int) {
        let size = 1 << log2Size
        let coeff = coefficients
        coeff.update(repeating: 0, count: size &* size)
        let ctx = contexts
        var engine = cabac.pointee
        defer { cabac.pointee = engine }
        var transformSkip = false
        if pps.transformSkipEnabled && !cuTransquantBypass && log2Size <= 2 {
            transformSkip = engine.decodeBin(&ctx[HEVCCABACTables.transformSkipFlag + (component > 0 ? 1 : 0)]) == 1
        }
        let chroma = component > 0
        // Last significant position.
        let cMax = (log2Size << 1) - 1
        let offset = chroma ? 15 : 3 * (log2Size - 2) + ((log2Size - 1) >> 2)
        let shift = chroma ? log2Size - 2 : (log2Size + 1) >> 2
        let xPrefixContexts = ctx + (HEVCCABACTables.lastXPrefix + offset)
        let yPrefixContexts = ctx + (HEVCCABACTables.lastYPrefix + offset)
        var prefixX = 0, prefixY = 0
        while prefixX < cMax && engine.decodeBin(&xPrefixContexts[prefixX >> shift]) == 1 { prefixX &+= 1 }
        while prefixY < cMax && engine.decodeBin(&yPrefixContexts[prefixY >> shift]) == 1 { prefixY &+= 1 }
        var lastX = prefixX, lastY = prefixY
        if prefixX > 3 {
            let bits = (prefixX >> 1) - 1
            lastX = (1 << bits) * (2 + (prefixX & 1)) + engine.decodeBypassBits(bits)
        }
        if prefixY > 3 {
            let bits = (prefixY >> 1) - 1
            lastY = (1 << bits) * (2 + (prefixY & 1)) + engine.decodeBypassBits(bits)
        }
        if scanIdx == 2 { swap(&lastX, &lastY) }

        let tables = HEVCScanTables.table
        let log2Sb = log2Size - 2
        let sbWidth = 1 << log2Sb
        let sbScan = tables + HEVCScanTables.scanOffset(log2: log2Sb, scanIdx: scanIdx)
        let posScan = tables + HEVCScanTables.positionOffset(scanIdx: scanIdx)
        let lastSb = Int(tables[HEVCScanTables.indexOffset(log2: log2Sb, scanIdx: scanIdx) + ((lastY >> 2) << log2Sb | (lastX >> 2))])
        let lastPos = Int(tables[HEVCScanTables.indexOffset(log2: 2, scanIdx: scanIdx) + ((lastY & 3) << 2 | (lastX & 3))])

        var codedSubBlocks: UInt64 = 0
        var greater1State = 1
        let sigContexts = ctx + (HEVCCABACTables.sigCoeffFlag + (chroma ? 27 : 0))
        let g1Contexts = ctx + (HEVCCABACTables.greater1Flag + (chroma ? 16 : 0))
        let g2Contexts = ctx + (HEVCCABACTables.greater2Flag + (chroma ? 4 : 0))
        let csbfContexts = ctx + (HEVCCABACTables.codedSubBlockFlag + (chroma ? 2 : 0))
        let hidingAllowed = pps.signDataHiding && !cuTransquantBypass
        // sigCtx added to the position pattern outside the first sub-block (9.3.4.2.5).
        // 9.3.4.2.5: 8×8 chroma always adds 9 (its mode-dependent scans exist only in 4:4:4).
        let sizeContext = log2Size == 3 ? (scanIdx == 0 || chroma ? 9 : 15) : (chroma ? 12 : 21)
        var maxRow = 0, maxColumn = 0
        let sigN = significant

        var i = lastSb
        while i >= 0 {
            defer { i &-= 1 }
            let sbPos = Int(sbScan[i])
            let xS = sbPos & 15, yS = sbPos >> 4
            let right = xS < sbWidth - 1 && codedSubBlocks & (1 << UInt64(yS &* 8 &+ xS &+ 1)) != 0
            let below = yS < sbWidth - 1 && codedSubBlocks & (1 << UInt64((yS &+ 1) &* 8 &+ xS)) != 0
            var inferDc = false
            if i < lastSb && i > 0 {
                guard engine.decodeBin(&csbfContexts[(right || below) ? 1 : 0]) == 1 else { continue }
                inferDc = true
            }
            codedSubBlocks |= 1 << UInt64(yS &* 8 &+ xS)

            // Significant positions n, highest first.
            var count = 0
            var n = 15
            if i == lastSb {
                n = lastPos &- 1
                sigN[0] = lastPos
                count = 1
            }
            // Context of each 4×4 position: the 4×4 block map, or the pattern of the coded
            // neighbours plus the size and sub-block offsets (the DC of the block gets 0).
            let pattern: UnsafePointer<UInt8>
            var add = 0
            if log2Size == 2 {
                pattern = HEVCScanTables.sigContextTable
            } else {
                let prevCsbf = (right ? 1 : 0) | (below ? 2 : 0)
                pattern = HEVCScanTables.sigContextTable + 16 &* (1 &+ prevCsbf)
                add = sizeContext &+ (!chroma && i > 0 ? 3 : 0)
            }
            let dcIsZero = log2Size > 2 && i == 0
            while n >= 0 {
                let p = Int(posScan[n])
                if n > 0 || !inferDc {
                    var sigCtx = Int(pattern[p]) &+ add
                    if dcIsZero && p == 0 { sigCtx = 0 }
                    if engine.decodeBin(&sigContexts[sigCtx]) == 1 {
                        sigN[count] = n
                        count &+= 1
                        inferDc = false
                    }
                } else {
                    sigN[count] = n
                    count &+= 1
                }
                n &-= 1
            }
            guard count > 0 else { continue }
            decodeLevels(&engine, count: count, subBlock: i, xS: xS, yS: yS, log2Size: log2Size,
                         posScan: posScan, chroma: chroma, g1Contexts: g1Contexts, g2Contexts: g2Contexts,
                         greater1State: &greater1State, hidingAllowed: hidingAllowed, dequantiser: dequantiser,
                         maxRow: &maxRow, maxColumn: &maxColumn)
        }
        return (transformSkip, maxRow, maxColumn)
    }

    @inline(__always)
    private func decodeLevels(_ engine: inout HEVCCABACEngine, count: Int, subBlock i: Int, xS: Int, yS: Int,
                              log2Size: Int, posScan: UnsafePointer<UInt8>, chroma: Bool,
                              g1Contexts: UnsafeMutablePointer<UInt8>, g2Contexts: UnsafeMutablePointer<UInt8>,
                              greater1State: inout Int, hidingAllowed: Bool, dequantiser: HEVCDequantiser,
                              maxRow: inout Int, maxColumn: inout Int) {
        let ns = significant
        var ctxSet = (i == 0 || chroma) ? 0 : 2
        if greater1State == 0 { ctxSet &+= 1 }
        let g1Set = g1Contexts + ctxSet &* 4
        var c1 = 1
        var greater1Flags = 0
        var firstGreater1 = -1
        let flagged = min(8, count)
        var k = 0
        while k < flagged {
            if engine.decodeBin(&g1Set[c1]) == 1 {
                greater1Flags |= 1 << k
                c1 = 0
                if firstGreater1 < 0 { firstGreater1 = k }
            } else if c1 > 0 && c1 < 3 {
                c1 &+= 1
            }
            k &+= 1
        }
        greater1State = c1
        var greater2 = 0
        if firstGreater1 >= 0 { greater2 = engine.decodeBin(&g2Contexts[ctxSet]) }
        let signHidden = hidingAllowed && ns[0] &- ns[count &- 1] > 3
        let signCount = signHidden ? count &- 1 : count
        let signs = engine.decodeBypassBits(signCount) << (32 &- signCount)
        var rice = 0
        var sumAbs = 0
        let size = 1 << log2Size
        let x0 = xS << 2, y0 = yS << 2
        k = 0
        while k < count {
            var base = 1
            var threshold = 1
            if k < 8 {
                base &+= (greater1Flags >> k) & 1
                if k == firstGreater1 {
                    base &+= greater2
                    threshold = 3
                } else {
                    threshold = 2
                }
            }
            var level = base
            if base == threshold {
                level = base &+ decodeAbsLevelRemaining(&engine, rice: rice)
                if level > 3 &* (1 << rice) { rice = min(rice &+ 1, 4) }
            }
            level = min(level, 32_768)
            sumAbs &+= level
            let p = Int(posScan[ns[k]])
            let xC = x0 &+ (p & 3), yC = y0 &+ (p >> 2)
            var value = level
            if k < signCount {
                if (signs >> (31 &- k)) & 1 == 1 { value = -value }
            } else if sumAbs & 1 == 1 {
                value = -value
            }
            let position = yC &* size &+ xC
            coefficients[position] = dequantiser.scaled(value, at: position)
            maxRow = max(maxRow, yC)
            maxColumn = max(maxColumn, xC)
            k &+= 1
        }
    }

    /// coeff_abs_level_remaining (9.3.3.11): a Rice-coded prefix of up to four, then
    /// Exp-Golomb of order rice + 1. The prefix is capped at 32 bins (a conforming stream
    /// needs far fewer), so a damaged one cannot loop long or shift past the word.
    @inline(__always)
    private func decodeAbsLevelRemaining(_ engine: inout HEVCCABACEngine, rice: Int) -> Int {
        var prefix = 0
        while prefix < 32 && engine.decodeBypass() == 1 { prefix &+= 1 }
        if prefix <= 3 { return (prefix << rice) &+ engine.decodeBypassBits(rice) }
        return (((1 << (prefix &- 3)) &+ 2) << rice) &+ engine.decodeBypassBits(prefix &- 3 &+ rice)
    }
}

/// Turns parsed levels into the scaled transform coefficients d[x][y] (H.265 8.6.2-8.6.3) as
/// they are parsed, so only non-zero positions are ever touched.
struct HEVCDequantiser {
    /// levelScale[qP % 6] << (qP / 6).
    let scale: Int
    /// bdShift = BitDepth + log2(nTbS) - 5, and its rounding term.
    let shift: Int
    let round: Int
    /// ScalingFactor of the block (row-major), or nil for the flat 16.
    let factors: UnsafePointer<UInt8>?
    /// cu_transquant_bypass: levels pass through unscaled.
    let bypass: Bool

    static let levelScale: [Int] = [40, 45, 51, 57, 64, 72]

    init(qp: Int, log2Size: Int, bitDepth: Int, factors: UnsafePointer<UInt8>?, bypass: Bool) {
        scale = HEVCDequantiser.levelScale[qp % 6] << (qp / 6)
        shift = bitDepth + log2Size - 5
        round = 1 << (shift - 1)
        self.factors = factors
        self.bypass = bypass
    }

    /// The coefficient for `level` at row-major `position`, clipped to 16 bits. |level| ≤ 2^15,
    /// m ≤ 255 and scale ≤ 72 << 10, so the product fits an Int.
    @inline(__always)
    func scaled(_ level: Int, at position: Int) -> Int32 {
        if bypass { return Int32(truncatingIfNeeded: level) }
        let m = factors.map { Int($0[position]) } ?? 16
        let v = (level &* m &* scale &+ round) >> shift
        return Int32(truncatingIfNeeded: min(max(v, -32_768), 32_767))
    }
}

/// Scan position tables (6.5.3-6.5.5) and the significance context patterns, in one block
/// allocated once for the process. For a grid of side 1 << log2 (0...3) and scanIdx (0
/// diagonal, 1 horizontal, 2 vertical): the positions in scan order as x | y << 4, and the
/// inverse (position y << log2 | x to scan index); then the 4×4 scans once more with
/// positions as y << 2 | x, the index of a coefficient within its sub-block.
enum HEVCScanTables {
    @inline(__always)
    static func scanOffset(log2: Int, scanIdx: Int) -> Int { (log2 &* 3 &+ scanIdx) &* 64 }
    @inline(__always)
    static func indexOffset(log2: Int, scanIdx: Int) -> Int { 768 &+ (log2 &* 3 &+ scanIdx) &* 64 }
    @inline(__always)
    static func positionOffset(scanIdx: Int) -> Int { 1536 &+ scanIdx &* 16 }

    nonisolated(unsafe) static let table: UnsafePointer<UInt8> = {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 1584)
        t.initialize(repeating: 0, count: 1584)
        for log2 in 0...3 {
            let scans = [HEVCScanOrder.diagonal(log2Size: log2), HEVCScanOrder.horizontal(log2Size: log2),
                         HEVCScanOrder.vertical(log2Size: log2)]
            for (scanIdx, scan) in scans.enumerated() {
                for (i, (x, y)) in scan.enumerated() {
                    t[scanOffset(log2: log2, scanIdx: scanIdx) + i] = UInt8(x | y << 4)
                    if log2 == 2 { t[positionOffset(scanIdx: scanIdx) + i] = UInt8(y << 2 | x) }
                    t[indexOffset(log2: log2, scanIdx: scanIdx) + (y << log2 | x)] = UInt8(i)
                }
            }
        }
        return UnsafePointer(t)
    }()

    /// sigCtx before the size offsets, by 4×4 position y << 2 | x: first ctxIdxMap of 4×4
    /// blocks, then the patterns of larger blocks for prevCsbf 0 (no coded neighbour), 1
    /// (right coded), 2 (below coded) and 3 (both) (9.3.4.2.5).
    nonisolated(unsafe) static let sigContextTable: UnsafePointer<UInt8> = {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 80)
        let ctxIdxMap: [UInt8] = [0, 1, 4, 5, 2, 3, 4, 5, 6, 6, 8, 8, 7, 7, 8, 8]
        for p in 0..<16 {
            let x = p & 3, y = p >> 2
            t[p] = ctxIdxMap[p]
            t[16 + p] = UInt8(x + y == 0 ? 2 : (x + y < 3 ? 1 : 0))
            t[32 + p] = UInt8(y == 0 ? 2 : (y == 1 ? 1 : 0))
            t[48 + p] = UInt8(x == 0 ? 2 : (x == 1 ? 1 : 0))
            t[64 + p] = 2
        }
        return UnsafePointer(t)
    }()
}
