/// Coding quadtree, coding unit, transform tree and transform unit syntax of intra slices
/// (H.265 7.3.8.4-7.3.8.10), with the decisions made along the way: QP derivation (8.6.1),
/// luma/chroma intra mode derivation (8.4.2, 8.4.3), PCM samples and deblocking edge marks.
extension HEVCSliceDecoder {
    func decodeCodingQuadtree(x0: Int, y0: Int, log2CbSize: Int, depth: Int) throws {
        let size = 1 << log2CbSize
        let split: Bool
        if x0 + size <= frame.width && y0 + size <= frame.height && log2CbSize > sps.log2MinCbSize {
            var inc = 0
            if frame.available(xCur: x0, yCur: y0, xN: x0 - 1, yN: y0),
               Int(frame.ctDepth[frame.blockIndex(x4: (x0 - 1) >> 2, y4: y0 >> 2)]) > depth { inc += 1 }
            if frame.available(xCur: x0, yCur: y0, xN: x0, yN: y0 - 1),
               Int(frame.ctDepth[frame.blockIndex(x4: x0 >> 2, y4: (y0 - 1) >> 2)]) > depth { inc += 1 }
            split = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.splitCuFlag + inc]) == 1
        } else {
            split = log2CbSize > sps.log2MinCbSize
        }
        if log2CbSize >= log2MinCuQpDeltaSize {
            isCuQpDeltaCoded = false
            cuQpDeltaVal = 0
            startQuantizationGroup(x: x0, y: y0)
        }
        if split {
            let half = size >> 1
            for i in 0..<4 {
                let x = x0 + (i & 1) * half, y = y0 + (i >> 1) * half
                if x < frame.width && y < frame.height {
                    try decodeCodingQuadtree(x0: x, y0: y, log2CbSize: log2CbSize - 1, depth: depth + 1)
                }
            }
        } else {
            try decodeCodingUnit(x0: x0, y0: y0, log2CbSize: log2CbSize, depth: depth)
        }
    }

    /// qPY_PRED of the quantization group at (x, y) (8.6.1).
    private func startQuantizationGroup(x: Int, y: Int) {
        let previous = lastQpY
        let log2Ctb = sps.log2CtbSize
        var a = previous, b = previous
        if x > 0 && (x - 1) >> log2Ctb == x >> log2Ctb { a = Int(frame.qpY[frame.blockIndex(x4: (x - 1) >> 2, y4: y >> 2)]) }
        if y > 0 && (y - 1) >> log2Ctb == y >> log2Ctb { b = Int(frame.qpY[frame.blockIndex(x4: x >> 2, y4: (y - 1) >> 2)]) }
        qpYPred = (a + b + 1) >> 1
    }

    private func updateQpY() {
        qpY = ((qpYPred + cuQpDeltaVal + 52 + 2 * qpBdOffsetY) % (52 + qpBdOffsetY)) - qpBdOffsetY
    }

    private func decodeCodingUnit(x0: Int, y0: Int, log2CbSize: Int, depth: Int) throws {
        let size = 1 << log2CbSize
        cuTransquantBypass = pps.transquantBypassEnabled
            && cabac.pointee.decodeBin(&contexts[HEVCCABACTables.cuTransquantBypass]) == 1
        var partNxN = false
        if log2CbSize == sps.log2MinCbSize {
            partNxN = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.partMode]) == 0
        }
        updateQpY()
        let w4 = frame.widthIn4
        let x4 = x0 >> 2, y4 = y0 >> 2, n4 = size >> 2
        for y in y4..<min(y4 + n4, frame.heightIn4) {
            for x in x4..<min(x4 + n4, w4) { frame.ctDepth[frame.blockIndex(x4: x, y4: y)] = UInt8(depth) }
        }
        var pcm = false
        if !partNxN && sps.pcmEnabled && log2CbSize >= sps.log2MinPcmCbSize && log2CbSize <= sps.log2MaxPcmCbSize {
            pcm = cabac.pointee.decodeTerminate() == 1
        }
        if pcm {
            fillIntraMode(x0: x0, y0: y0, size: size, mode: 1)
            try decodePCMSamples(x0: x0, y0: y0, log2CbSize: log2CbSize)
        } else {
            decodeIntraModes(x0: x0, y0: y0, size: size, partNxN: partNxN)
            intraSplit = partNxN
            cuX = x0
            cuY = y0
            cuSize = size
            try decodeTransformTree(x0: x0, y0: y0, xBase: x0, yBase: y0, log2Size: log2CbSize, depth: 0,
                                    blkIdx: 0, parentCbfCb: 1, parentCbfCr: 1)
        }
        for y in y4..<min(y4 + n4, frame.heightIn4) {
            for x in x4..<min(x4 + n4, w4) {
                let block = frame.blockIndex(x4: x, y4: y)
                frame.qpY[block] = Int8(truncatingIfNeeded: qpY)
                if cuTransquantBypass || (pcm && sps.pcmLoopFilterDisabled) { frame.keepsSamples[block] = true }
            }
        }
        lastQpY = qpY
        markEdges(x0: x0, y0: y0, size: size)
    }

    private func fillIntraMode(x0: Int, y0: Int, size: Int, mode: Int) {
        let w4 = frame.widthIn4
        let x4 = x0 >> 2, y4 = y0 >> 2, n4 = max(size >> 2, 1)
        for y in y4..<min(y4 + n4, frame.heightIn4) {
            for x in x4..<min(x4 + n4, w4) { frame.intraMode[frame.blockIndex(x4: x, y4: y)] = UInt8(mode) }
        }
    }

    /// prev_intra_luma_pred_flag, mpm_idx, rem_intra_luma_pred_mode (8.4.2) and
    /// intra_chroma_pred_mode (8.4.3) of a coding unit.
    private func decodeIntraModes(x0: Int, y0: Int, size: Int, partNxN: Bool) {
        let parts = partNxN ? 4 : 1
        let pb = partNxN ? size >> 1 : size
        var prevFlags = 0
        for i in 0..<parts where cabac.pointee.decodeBin(&contexts[HEVCCABACTables.prevIntraLumaPred]) == 1 {
            prevFlags |= 1 << i
        }
        var lumaModes = (0, 0, 0, 0)
        for i in 0..<parts {
            let xPb = x0 + (i & 1) * pb, yPb = y0 + (i >> 1) * pb
            var candA = 1, candB = 1
            if frame.available(xCur: xPb, yCur: yPb, xN: xPb - 1, yN: yPb) {
                candA = Int(frame.intraMode[frame.blockIndex(x4: (xPb - 1) >> 2, y4: yPb >> 2)])
            }
            if frame.available(xCur: xPb, yCur: yPb, xN: xPb, yN: yPb - 1),
               yPb - 1 >= (yPb >> sps.log2CtbSize) << sps.log2CtbSize {
                candB = Int(frame.intraMode[frame.blockIndex(x4: xPb >> 2, y4: (yPb - 1) >> 2)])
            }
            var list: (Int, Int, Int)
            if candA == candB {
                list = candA < 2 ? (0, 1, 26) : (candA, 2 + ((candA + 29) % 32), 2 + ((candA - 2 + 1) % 32))
            } else {
                let third = candA != 0 && candB != 0 ? 0 : (candA != 1 && candB != 1 ? 1 : 26)
                list = (candA, candB, third)
            }
            var mode: Int
            if prevFlags & (1 << i) != 0 {
                let idx = cabac.pointee.decodeBypass() == 0 ? 0 : (cabac.pointee.decodeBypass() == 0 ? 1 : 2)
                mode = idx == 0 ? list.0 : (idx == 1 ? list.1 : list.2)
            } else {
                mode = cabac.pointee.decodeBypassBits(5)
                // The candidates in increasing order (8.4.2 step 4), without an array per CU.
                var (a, b, c) = list
                if a > b { swap(&a, &b) }
                if a > c { swap(&a, &c) }
                if b > c { swap(&b, &c) }
                if mode >= a { mode += 1 }
                if mode >= b { mode += 1 }
                if mode >= c { mode += 1 }
            }
            switch i {
            case 0: lumaModes.0 = mode
            case 1: lumaModes.1 = mode
            case 2: lumaModes.2 = mode
            default: lumaModes.3 = mode
            }
            fillIntraMode(x0: xPb, y0: yPb, size: pb, mode: mode)
        }
        guard chromaArrayType != 0 else { return }
        chromaMode = decodeChromaMode(luma: lumaModes.0)
        // 4:4:4 NxN: each partition has its own intra_chroma_pred_mode (7.3.8.5).
        if chromaArrayType == 3 && partNxN {
            chromaModes = (chromaMode, decodeChromaMode(luma: lumaModes.1), decodeChromaMode(luma: lumaModes.2),
                           decodeChromaMode(luma: lumaModes.3))
        }
    }

    /// intra_chroma_pred_mode and IntraPredModeC (8.4.3), mapped through table 8-3 for 4:2:2.
    private func decodeChromaMode(luma: Int) -> Int {
        var idc = 4
        if cabac.pointee.decodeBin(&contexts[HEVCCABACTables.intraChromaPredMode]) == 1 { idc = cabac.pointee.decodeBypassBits(2) }
        var mode = luma
        if idc != 4 {
            let m = idc == 0 ? 0 : (idc == 1 ? 26 : (idc == 2 ? 10 : 1))
            mode = m == luma ? 34 : m
        }
        return chromaArrayType == 2 ? HEVCSliceDecoder.chroma422Modes[mode] : mode
    }

    /// Table 8-3: the 4:2:2 chroma mode for each mode, compensating for the halved width of
    /// chroma blocks that are square in samples but cover a tall luma area.
    private static let chroma422Modes: [Int] = [0, 1, 2, 2, 2, 2, 3, 5, 7, 8, 10, 12, 13, 15, 17, 18, 19, 20,
                                                21, 22, 23, 23, 24, 24, 25, 25, 26, 27, 27, 28, 28, 29, 29, 30, 31]

    /// Chroma coded block flags are two bits each (bit 1: the lower block of a 4:2:2 pair).
    private func decodeTransformTree(x0: Int, y0: Int, xBase: Int, yBase: Int, log2Size: Int, depth: Int,
                                     blkIdx: Int, parentCbfCb: Int, parentCbfCr: Int) throws {
        let maxDepth = sps.maxTransformHierarchyDepthIntra + (intraSplit ? 1 : 0)
        let split: Bool
        if log2Size <= sps.log2MaxTbSize && log2Size > sps.log2MinTbSize && depth < maxDepth && !(intraSplit && depth == 0) {
            split = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.splitTransformFlag + 5 - log2Size]) == 1
        } else {
            split = log2Size > sps.log2MaxTbSize || (intraSplit && depth == 0)
        }
        var cbfCb = 0, cbfCr = 0
        if chromaArrayType != 0 && (log2Size > 2 || chromaArrayType == 3) {
            // 4:2:2 codes a flag per square chroma block where this node carries chroma.
            let pair = chromaArrayType == 2 && (!split || log2Size == 3)
            if depth == 0 || parentCbfCb != 0 { cbfCb = decodeChromaCbf(depth: depth, pair: pair) }
            if depth == 0 || parentCbfCr != 0 { cbfCr = decodeChromaCbf(depth: depth, pair: pair) }
        } else if chromaArrayType != 0 {
            // 4×4 luma blocks of 4:2:0 and 4:2:2: chroma is coded once for the parent, with its flags.
            cbfCb = parentCbfCb
            cbfCr = parentCbfCr
        }
        if split {
            let half = 1 << (log2Size - 1)
            for i in 0..<4 {
                try decodeTransformTree(x0: x0 + (i & 1) * half, y0: y0 + (i >> 1) * half, xBase: x0, yBase: y0,
                                        log2Size: log2Size - 1, depth: depth + 1, blkIdx: i,
                                        parentCbfCb: cbfCb, parentCbfCr: cbfCr)
            }
            return
        }
        let cbfLuma = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.cbfLuma + (depth == 0 ? 1 : 0)]) == 1
        if (cbfLuma || cbfCb != 0 || cbfCr != 0) && pps.cuQpDeltaEnabled && !isCuQpDeltaCoded {
            try decodeCuQpDelta()
        }
        let lumaMode = Int(frame.intraMode[frame.blockIndex(x4: x0 >> 2, y4: y0 >> 2)])
        try reconstructBlock(component: 0, x: x0, y: y0, log2Size: log2Size, mode: lumaMode, coded: cbfLuma)
        if chromaArrayType == 3 {
            try reconstructChroma(x: x0, y: y0, log2Size: log2Size, mode: chromaModeAt(x: x0, y: y0),
                                  cbfCb: cbfCb, cbfCr: cbfCr)
        } else if chromaArrayType != 0 && log2Size > 2 {
            try reconstructChroma(x: x0 >> chromaShiftX, y: y0 >> chromaShiftY, log2Size: log2Size - 1, mode: chromaMode,
                                  cbfCb: cbfCb, cbfCr: cbfCr)
        } else if chromaArrayType != 0 && blkIdx == 3 {
            try reconstructChroma(x: xBase >> chromaShiftX, y: yBase >> chromaShiftY, log2Size: 2, mode: chromaMode,
                                  cbfCb: cbfCb, cbfCr: cbfCr)
        }
        markEdges(x0: x0, y0: y0, size: 1 << log2Size)
    }

    private func decodeChromaCbf(depth: Int, pair: Bool) -> Int {
        var cbf = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.cbfChroma + depth])
        if pair { cbf |= cabac.pointee.decodeBin(&contexts[HEVCCABACTables.cbfChroma + depth]) << 1 }
        return cbf
    }

    /// The Cb then the Cr block(s) at chroma sample (x, y): in 4:2:2 two square blocks stacked,
    /// the lower one predicted from the reconstructed upper one (7.3.8.10, 8.4.4.1).
    private func reconstructChroma(x: Int, y: Int, log2Size: Int, mode: Int, cbfCb: Int, cbfCr: Int) throws {
        let below = y + (1 << log2Size)
        try reconstructBlock(component: 1, x: x, y: y, log2Size: log2Size, mode: mode, coded: cbfCb & 1 != 0)
        if chromaArrayType == 2 {
            try reconstructBlock(component: 1, x: x, y: below, log2Size: log2Size, mode: mode, coded: cbfCb & 2 != 0)
        }
        try reconstructBlock(component: 2, x: x, y: y, log2Size: log2Size, mode: mode, coded: cbfCr & 1 != 0)
        if chromaArrayType == 2 {
            try reconstructBlock(component: 2, x: x, y: below, log2Size: log2Size, mode: mode, coded: cbfCr & 2 != 0)
        }
    }

    /// IntraPredModeC at luma (x, y) of a 4:4:4 coding unit: per partition when it is NxN.
    private func chromaModeAt(x: Int, y: Int) -> Int {
        guard intraSplit else { return chromaMode }
        let half = cuSize >> 1
        switch (x - cuX >= half ? 1 : 0) + (y - cuY >= half ? 2 : 0) {
        case 0: return chromaModes.0
        case 1: return chromaModes.1
        case 2: return chromaModes.2
        default: return chromaModes.3
        }
    }

    private func decodeCuQpDelta() throws {
        var v = 0
        while v < 5 && cabac.pointee.decodeBin(&contexts[HEVCCABACTables.cuQpDeltaAbs + (v == 0 ? 0 : 1)]) == 1 { v += 1 }
        if v == 5 {
            var k = 0
            while cabac.pointee.decodeBypass() == 1 {
                v += 1 << k
                k += 1
                guard k < 32 else { throw ImageCodecError(.corrupt, "HEVC cu_qp_delta_abs too long") }
            }
            v += cabac.pointee.decodeBypassBits(k)
        }
        if v > 0 && cabac.pointee.decodeBypass() == 1 { v = -v }
        guard v >= -(26 + qpBdOffsetY / 2), v <= 25 + qpBdOffsetY / 2 else {
            throw ImageCodecError(.corrupt, "HEVC CuQpDeltaVal \(v) out of range")
        }
        isCuQpDeltaCoded = true
        cuQpDeltaVal = v
        updateQpY()
    }

    /// pcm_sample() (7.3.8.7): raw samples after the byte-aligned pcm_flag, then the
    /// arithmetic decoder restarts after them (9.3.2.5).
    private func decodePCMSamples(x0: Int, y0: Int, log2CbSize: Int) throws {
        var reader = HEVCRawBitReader(engine: cabac.pointee)
        let size = 1 << log2CbSize
        let lumaShift = sps.bitDepthLuma - sps.pcmBitDepthLuma
        let luma = frame.sample(0, x: x0, y: y0)
        for y in 0..<size {
            for x in 0..<size {
                luma[y * frame.width + x] = UInt16(reader.bits(sps.pcmBitDepthLuma) << lumaShift)
            }
        }
        if chromaArrayType != 0 {
            let chromaShift = sps.bitDepthChroma - sps.pcmBitDepthChroma
            let cw = size >> chromaShiftX, ch = size >> chromaShiftY
            let xC = x0 >> chromaShiftX, yC = y0 >> chromaShiftY
            for c in 1...2 {
                let plane = frame.sample(c, x: xC, y: yC)
                for y in 0..<ch {
                    for x in 0..<cw {
                        plane[y * frame.chromaWidth + x] =
                            UInt16(reader.bits(sps.pcmBitDepthChroma) << chromaShift)
                    }
                }
            }
        }
        cabac.pointee.start(at: reader.nextBytePosition)
    }

    /// Sets the deblocking edge bits on the left and top sides of a transform or coding block
    /// on the 8×8 grid, unless a rule switches the edge off (8.7.2).
    func markEdges(x0: Int, y0: Int, size: Int) {
        guard !header.deblockingDisabled else { return }
        if x0 & 7 == 0 && x0 > 0 && edgeAllowed(x0: x0, y0: y0, xN: x0 - 1, yN: y0) {
            for y in stride(from: y0, to: min(y0 + size, frame.height), by: 4) {
                frame.edges[frame.blockIndex(x4: x0 >> 2, y4: y >> 2)] |= HEVCFilterMap.verticalEdge
            }
        }
        if y0 & 7 == 0 && y0 > 0 && edgeAllowed(x0: x0, y0: y0, xN: x0, yN: y0 - 1) {
            for x in stride(from: x0, to: min(x0 + size, frame.width), by: 4) {
                frame.edges[frame.blockIndex(x4: x >> 2, y4: y0 >> 2)] |= HEVCFilterMap.horizontalEdge
            }
        }
    }

    private func edgeAllowed(x0: Int, y0: Int, xN: Int, yN: Int) -> Bool {
        let log2Ctb = sps.log2CtbSize
        let w = frame.layout.widthInCtbs
        let here = (y0 >> log2Ctb) * w + (x0 >> log2Ctb)
        let there = (yN >> log2Ctb) * w + (xN >> log2Ctb)
        if here == there { return true }
        if !pps.loopFilterAcrossTiles && frame.ctbTile[here] != frame.ctbTile[there] { return false }
        if !header.loopFilterAcrossSlices && frame.ctbSliceAddress[here] != frame.ctbSliceAddress[there] { return false }
        return true
    }
}

/// Reads PCM sample bits straight from the slice data, starting at the byte the arithmetic
/// decoder would read next (see `HEVCCABACEngine.decodeTerminate`).
struct HEVCRawBitReader {
    private let engine: HEVCCABACEngine
    private var bitPosition: Int

    init(engine: HEVCCABACEngine) {
        self.engine = engine
        bitPosition = engine.position * 8
    }

    mutating func bits(_ n: Int) -> Int {
        var v = 0
        for _ in 0..<n {
            v = v << 1 | engine.bit(at: bitPosition)
            bitPosition += 1
        }
        return v
    }

    var nextBytePosition: Int { (bitPosition + 7) >> 3 }
}
