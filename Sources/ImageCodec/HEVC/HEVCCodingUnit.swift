/// Coding quadtree, coding unit, transform tree and transform unit syntax of intra slices
/// (H.265 7.3.8.4-7.3.8.10), with the decisions made along the way: QP derivation (8.6.1),
/// luma/chroma intra mode derivation (8.4.2, 8.4.3), PCM samples and deblocking edge marks.
extension HEVCSliceDecoder {
    func decodeCodingQuadtree(x0: Int, y0: Int, log2CbSize: Int, depth: Int) throws {
        let size = 1 << log2CbSize
        let split: Bool
        if x0 + size <= frame.width && y0 + size <= frame.height && log2CbSize > sps.log2MinCbSize {
            var inc = 0
            let w4 = frame.widthIn4
            if frame.available(xCur: x0, yCur: y0, xN: x0 - 1, yN: y0),
               Int(frame.ctDepth[(y0 >> 2) * w4 + ((x0 - 1) >> 2)]) > depth { inc += 1 }
            if frame.available(xCur: x0, yCur: y0, xN: x0, yN: y0 - 1),
               Int(frame.ctDepth[((y0 - 1) >> 2) * w4 + (x0 >> 2)]) > depth { inc += 1 }
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
        let w4 = frame.widthIn4
        var a = previous, b = previous
        if x > 0 && (x - 1) >> log2Ctb == x >> log2Ctb { a = Int(frame.qpY[(y >> 2) * w4 + ((x - 1) >> 2)]) }
        if y > 0 && (y - 1) >> log2Ctb == y >> log2Ctb { b = Int(frame.qpY[((y - 1) >> 2) * w4 + (x >> 2)]) }
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
            for x in x4..<min(x4 + n4, w4) { frame.ctDepth[y * w4 + x] = UInt8(depth) }
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
            try decodeTransformTree(x0: x0, y0: y0, xBase: x0, yBase: y0, log2Size: log2CbSize, depth: 0,
                                    blkIdx: 0, parentCbfCb: true, parentCbfCr: true)
        }
        for y in y4..<min(y4 + n4, frame.heightIn4) {
            for x in x4..<min(x4 + n4, w4) {
                frame.qpY[y * w4 + x] = Int8(truncatingIfNeeded: qpY)
                if cuTransquantBypass || (pcm && sps.pcmLoopFilterDisabled) { frame.keepsSamples[y * w4 + x] = true }
            }
        }
        lastQpY = qpY
        markEdges(x0: x0, y0: y0, size: size)
    }

    private func fillIntraMode(x0: Int, y0: Int, size: Int, mode: Int) {
        let w4 = frame.widthIn4
        let x4 = x0 >> 2, y4 = y0 >> 2, n4 = max(size >> 2, 1)
        for y in y4..<min(y4 + n4, frame.heightIn4) {
            for x in x4..<min(x4 + n4, w4) { frame.intraMode[y * w4 + x] = UInt8(mode) }
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
        let w4 = frame.widthIn4
        var first = 0
        for i in 0..<parts {
            let xPb = x0 + (i & 1) * pb, yPb = y0 + (i >> 1) * pb
            var candA = 1, candB = 1
            if frame.available(xCur: xPb, yCur: yPb, xN: xPb - 1, yN: yPb) {
                candA = Int(frame.intraMode[(yPb >> 2) * w4 + ((xPb - 1) >> 2)])
            }
            if frame.available(xCur: xPb, yCur: yPb, xN: xPb, yN: yPb - 1),
               yPb - 1 >= (yPb >> sps.log2CtbSize) << sps.log2CtbSize {
                candB = Int(frame.intraMode[((yPb - 1) >> 2) * w4 + (xPb >> 2)])
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
            if i == 0 { first = mode }
            fillIntraMode(x0: xPb, y0: yPb, size: pb, mode: mode)
        }
        guard sps.chromaFormat != .monochrome else { return }
        var idc = 4
        if cabac.pointee.decodeBin(&contexts[HEVCCABACTables.intraChromaPredMode]) == 1 { idc = cabac.pointee.decodeBypassBits(2) }
        if idc == 4 {
            chromaMode = first
        } else {
            let m = idc == 0 ? 0 : (idc == 1 ? 26 : (idc == 2 ? 10 : 1))
            chromaMode = m == first ? 34 : m
        }
    }

    private func decodeTransformTree(x0: Int, y0: Int, xBase: Int, yBase: Int, log2Size: Int, depth: Int,
                                     blkIdx: Int, parentCbfCb: Bool, parentCbfCr: Bool) throws {
        let maxDepth = sps.maxTransformHierarchyDepthIntra + (intraSplit ? 1 : 0)
        let split: Bool
        if log2Size <= sps.log2MaxTbSize && log2Size > sps.log2MinTbSize && depth < maxDepth && !(intraSplit && depth == 0) {
            split = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.splitTransformFlag + 5 - log2Size]) == 1
        } else {
            split = log2Size > sps.log2MaxTbSize || (intraSplit && depth == 0)
        }
        var cbfCb = false, cbfCr = false
        if log2Size > 2 && sps.chromaFormat != .monochrome {
            if depth == 0 || parentCbfCb { cbfCb = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.cbfChroma + depth]) == 1 }
            if depth == 0 || parentCbfCr { cbfCr = cabac.pointee.decodeBin(&contexts[HEVCCABACTables.cbfChroma + depth]) == 1 }
        } else if sps.chromaFormat != .monochrome {
            // 4×4 luma blocks of 4:2:0: chroma is coded once for the parent, with its flags.
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
        if (cbfLuma || cbfCb || cbfCr) && pps.cuQpDeltaEnabled && !isCuQpDeltaCoded {
            try decodeCuQpDelta()
        }
        let lumaMode = Int(frame.intraMode[(y0 >> 2) * frame.widthIn4 + (x0 >> 2)])
        try reconstructBlock(component: 0, x: x0, y: y0, log2Size: log2Size, mode: lumaMode, coded: cbfLuma)
        guard sps.chromaFormat != .monochrome else { return }
        if log2Size > 2 {
            try reconstructBlock(component: 1, x: x0 >> 1, y: y0 >> 1, log2Size: log2Size - 1, mode: chromaMode, coded: cbfCb)
            try reconstructBlock(component: 2, x: x0 >> 1, y: y0 >> 1, log2Size: log2Size - 1, mode: chromaMode, coded: cbfCr)
        } else if blkIdx == 3 {
            try reconstructBlock(component: 1, x: xBase >> 1, y: yBase >> 1, log2Size: 2, mode: chromaMode, coded: cbfCb)
            try reconstructBlock(component: 2, x: xBase >> 1, y: yBase >> 1, log2Size: 2, mode: chromaMode, coded: cbfCr)
        }
        markEdges(x0: x0, y0: y0, size: 1 << log2Size)
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
        let luma = frame.planes[0]
        for y in 0..<size {
            for x in 0..<size {
                luma[(y0 + y) * frame.width + x0 + x] = UInt16(reader.bits(sps.pcmBitDepthLuma) << lumaShift)
            }
        }
        if sps.chromaFormat != .monochrome {
            let chromaShift = sps.bitDepthChroma - sps.pcmBitDepthChroma
            let cs = size >> 1
            for c in 1...2 {
                let plane = frame.planes[c]
                for y in 0..<cs {
                    for x in 0..<cs {
                        plane[((y0 >> 1) + y) * frame.chromaWidth + (x0 >> 1) + x] =
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
        let w4 = frame.widthIn4
        if x0 & 7 == 0 && x0 > 0 && edgeAllowed(x0: x0, y0: y0, xN: x0 - 1, yN: y0) {
            for y in stride(from: y0, to: min(y0 + size, frame.height), by: 4) {
                frame.edges[(y >> 2) * w4 + (x0 >> 2)] |= HEVCFilterMap.verticalEdge
            }
        }
        if y0 & 7 == 0 && y0 > 0 && edgeAllowed(x0: x0, y0: y0, xN: x0, yN: y0 - 1) {
            for x in stride(from: x0, to: min(x0 + size, frame.width), by: 4) {
                frame.edges[(y0 >> 2) * w4 + (x >> 2)] |= HEVCFilterMap.horizontalEdge
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
