/// The macroblock layer of CABAC I slices (7.3.5, 9.3.2-9.3.3): each syntax element's
/// binarization and context selection for frame-coded intra macroblocks.
extension H264SliceDecoder {
    /// ctxIdxOffset of coded_block_flag, significant_coeff_flag, last_significant_coeff_flag and
    /// coeff_abs_level_minus1 for ctxBlockCat 0...5 (table 9-34 with 9-40).
    private static let cbfBase = [85, 89, 93, 97, 101, 0]
    private static let significantBase = [105, 120, 134, 149, 152, 402]
    private static let lastBase = [166, 181, 195, 210, 213, 417]
    private static let levelBase = [227, 237, 247, 257, 266, 426]

    func parseMacroblockCABAC(_ e: inout HEVCCABACEngine) throws {
        let s = states
        let w = frame.widthInMbs
        let hasChroma = frame.hasChroma
        // mb_type (9.3.3.1.1.3): ctxIdxInc from neighbours that are not I_NxN.
        var inc = 0
        if availableA && frame.mbKind[mbAddr &- 1] >= H264MbKind.intra16x16 { inc &+= 1 }
        if availableB && frame.mbKind[mbAddr &- w] >= H264MbKind.intra16x16 { inc &+= 1 }
        if e.decodeBin(&s[3 &+ inc]) == 0 {
            if pps.transform8x8Mode {
                var t = 0
                if availableA && frame.mbKind[mbAddr &- 1] == H264MbKind.intra8x8 { t &+= 1 }
                if availableB && frame.mbKind[mbAddr &- w] == H264MbKind.intra8x8 { t &+= 1 }
                transform8x8 = e.decodeBin(&s[399 &+ t]) == 1
            }
            kind = transform8x8 ? H264MbKind.intra8x8 : H264MbKind.intra4x4
            try parseIntraModes {
                if e.decodeBin(&s[68]) == 1 { return -1 }
                return e.decodeBin(&s[69]) | e.decodeBin(&s[69]) << 1 | e.decodeBin(&s[69]) << 2
            }
        } else {
            if e.decodeTerminate() == 1 {
                readPCMAfterCABAC(&e)
                return
            }
            kind = H264MbKind.intra16x16
            var chromaPart = 0
            let lumaPart = e.decodeBin(&s[6]) == 1 ? 15 : 0
            if e.decodeBin(&s[7]) == 1 { chromaPart = 1 &+ e.decodeBin(&s[8]) }
            intra16Mode = e.decodeBin(&s[9]) << 1
            intra16Mode |= e.decodeBin(&s[10])
            cbp = chromaPart << 4 | lumaPart
            (frame.modes + mbAddr &* 16).update(repeating: 2, count: 16)
        }
        if hasChroma {
            var c = 0
            if availableA && frame.mbKind[mbAddr &- 1] != H264MbKind.pcm && frame.mbChromaMode[mbAddr &- 1] != 0 { c &+= 1 }
            if availableB && frame.mbKind[mbAddr &- w] != H264MbKind.pcm && frame.mbChromaMode[mbAddr &- w] != 0 { c &+= 1 }
            chromaMode = 0
            if e.decodeBin(&s[64 &+ c]) == 1 {
                chromaMode = 1
                if e.decodeBin(&s[67]) == 1 { chromaMode = 2 &+ e.decodeBin(&s[67]) }
            }
        } else {
            chromaMode = 0
        }
        if kind != H264MbKind.intra16x16 { cbp = parseCBP(&e, hasChroma: hasChroma) }
        if cbp != 0 || kind == H264MbKind.intra16x16 {
            var k = 0
            if e.decodeBin(&s[60 &+ (previousQPDeltaNonZero ? 1 : 0)]) == 1 {
                k = 1
                var ctx = 62
                while e.decodeBin(&s[ctx]) == 1 {
                    k &+= 1
                    ctx = 63
                    guard k <= 52 else { throw ImageCodecError(.corrupt, "H.264 mb_qp_delta out of range") }
                }
            }
            let delta = k & 1 == 1 ? (k &+ 1) >> 1 : -(k >> 1)
            guard (-26...25).contains(delta) else { throw ImageCodecError(.corrupt, "H.264 mb_qp_delta out of range") }
            applyQPDelta(delta)
        } else {
            previousQPDeltaNonZero = false
        }
        storeMacroblockInfo()
        try parseResidualCABAC(&e)
    }

    /// coded_block_pattern (9.3.2.6, 9.3.3.1.1.4): four luma bins, then chroma as TU cMax 2.
    private func parseCBP(_ e: inout HEVCCABACEngine, hasChroma: Bool) -> Int {
        let s = states
        let w = frame.widthInMbs
        // A neighbour that is not available counts as having its 8x8 blocks coded for luma
        // (condTermFlag 0) and no chroma; I_PCM has everything coded.
        let cbpA = availableA ? Int(frame.mbCBP[mbAddr &- 1]) : 0x0F
        let cbpB = availableB ? Int(frame.mbCBP[mbAddr &- w]) : 0x0F
        var luma = 0
        for b8 in 0..<4 {
            let x = b8 & 1, y = b8 >> 1
            let left = x == 1 ? (luma >> (b8 &- 1)) & 1 : (cbpA >> (b8 &+ 1)) & 1
            let above = y == 1 ? (luma >> (b8 &- 2)) & 1 : (cbpB >> (b8 &+ 2)) & 1
            let inc = (left == 0 ? 1 : 0) &+ (above == 0 ? 2 : 0)
            luma |= e.decodeBin(&s[73 &+ inc]) << b8
        }
        guard hasChroma else { return luma }
        let chromaA = availableA ? (Int(frame.mbCBP[mbAddr &- 1]) >> 4) & 3 : 0
        let chromaB = availableB ? (Int(frame.mbCBP[mbAddr &- w]) >> 4) & 3 : 0
        var inc = (chromaA != 0 ? 1 : 0) &+ (chromaB != 0 ? 2 : 0)
        guard e.decodeBin(&s[77 &+ inc]) == 1 else { return luma }
        inc = 4 &+ (chromaA == 2 ? 1 : 0) &+ (chromaB == 2 ? 2 : 0)
        return luma | (1 &+ e.decodeBin(&s[77 &+ inc])) << 4
    }

    /// I_PCM samples after its mb_type: they start at the byte the engine stopped in, and the
    /// engine starts again after them (9.3.1.2).
    private func readPCMAfterCABAC(_ e: inout HEVCCABACEngine) {
        var position = e.position
        readPCM {
            let v = position < e.end ? Int(e.base[position]) : 0
            position &+= 1
            return v
        }
        e.start(at: position)
        finishPCM()
    }

    private func parseResidualCABAC(_ e: inout HEVCCABACEngine) throws {
        let counts = frame.counts + mbAddr &* 24
        counts.update(repeating: 0, count: 24)
        let w = frame.widthInMbs
        let zz4 = UnsafePointer(scans + Scan.zigzag4)
        var flags = cbp
        if kind == H264MbKind.intra16x16 {
            let a = availableA ? Int(frame.mbCBP[mbAddr &- 1] >> 8) & 1 : 1
            let b = availableB ? Int(frame.mbCBP[mbAddr &- w] >> 8) & 1 : 1
            if e.decodeBin(&states[85 &+ a &+ 2 &* b]) == 1 {
                _ = residualBlock(&e, cat: 0, maxCoeff: 16, out: coeff + Coeff.lumaDC, scan: zz4)
                flags |= 0x100
            }
        }
        for b8 in 0..<4 {
            guard cbp & (1 << b8) != 0 else { continue }
            if transform8x8 {
                let n = residualBlock(&e, cat: 5, maxCoeff: 64, out: coeff + b8 &* 64,
                                      scan: UnsafePointer(scans + Scan.zigzag8))
                let r = (b8 & 1) &* 2 &+ (b8 >> 1) &* 8
                counts[r] = UInt8(n); counts[r &+ 1] = UInt8(n); counts[r &+ 4] = UInt8(n); counts[r &+ 5] = UInt8(n)
                continue
            }
            for i4 in 0..<4 {
                let raster = blockRaster[b8 &* 4 &+ i4]
                let a = lumaCountLeft(raster).map { $0 > 0 ? 1 : 0 } ?? 1
                let b = lumaCountAbove(raster).map { $0 > 0 ? 1 : 0 } ?? 1
                let cat = kind == H264MbKind.intra16x16 ? 1 : 2
                guard e.decodeBin(&states[H264SliceDecoder.cbfBase[cat] &+ a &+ 2 &* b]) == 1 else { continue }
                let n = cat == 1 ? residualBlock(&e, cat: 1, maxCoeff: 15, out: coeff + raster &* 16, scan: zz4 + 1)
                    : residualBlock(&e, cat: 2, maxCoeff: 16, out: coeff + raster &* 16, scan: zz4)
                counts[raster] = UInt8(n)
            }
        }
        if cbp >> 4 != 0 {
            for c in 0..<2 {
                let a = availableA ? Int(frame.mbCBP[mbAddr &- 1] >> (9 &+ c)) & 1 : 1
                let b = availableB ? Int(frame.mbCBP[mbAddr &- w] >> (9 &+ c)) & 1 : 1
                guard e.decodeBin(&states[97 &+ a &+ 2 &* b]) == 1 else { continue }
                _ = residualBlock(&e, cat: 3, maxCoeff: 4, out: coeff + (Coeff.chromaDC &+ c &* 4),
                                  scan: UnsafePointer(scans + Scan.identity))
                flags |= 0x200 << c
            }
        }
        frame.mbCBP[mbAddr] = UInt16(flags)
        guard cbp >> 4 == 2 else { return }
        for c in 0..<2 {
            for blk in 0..<4 {
                let a = chromaCountLeft(c, blk).map { $0 > 0 ? 1 : 0 } ?? 1
                let b = chromaCountAbove(c, blk).map { $0 > 0 ? 1 : 0 } ?? 1
                guard e.decodeBin(&states[101 &+ a &+ 2 &* b]) == 1 else { continue }
                let n = residualBlock(&e, cat: 4, maxCoeff: 15, out: coeff + (Coeff.chroma &+ c &* 64 &+ blk &* 16),
                                      scan: zz4 + 1)
                counts[16 &+ c &* 4 &+ blk] = UInt8(n)
            }
        }
    }

    /// significant_coeff_flag, last_significant_coeff_flag and coeff_abs_level_minus1 with its
    /// sign of one block (7.3.5.3.3, 9.3.3.1.3): coefficient k goes to `out[scan[k]]`.
    /// Returns the number of non-zero coefficients (at least 1).
    @inline(__always)
    private func residualBlock(_ engine: inout HEVCCABACEngine, cat: Int, maxCoeff: Int, out: UnsafeMutablePointer<Int32>,
                               scan: UnsafePointer<UInt8>) -> Int {
        // The engine in a local for the block's bins: kept in registers, not stored per bin.
        var e = engine
        defer { engine = e }
        let sig = states + H264SliceDecoder.significantBase[cat]
        let last = states + H264SliceDecoder.lastBase[cat]
        let positions = edges + H264IntraPrediction.edgeCount
        var count = 0
        var k = 0
        var ended = false
        if cat == 5 {
            let sigMap = H264CABACContexts.significant8x8, lastMap = H264CABACContexts.last8x8
            while k < 63 {
                if e.decodeBin(&sig[Int(sigMap[k])]) == 1 {
                    positionsStore(positions, &count, k)
                    if e.decodeBin(&last[Int(lastMap[k])]) == 1 { ended = true; break }
                }
                k &+= 1
            }
        } else {
            while k < maxCoeff &- 1 {
                if e.decodeBin(&sig[k]) == 1 {
                    positionsStore(positions, &count, k)
                    if e.decodeBin(&last[k]) == 1 { ended = true; break }
                }
                k &+= 1
            }
        }
        if !ended { positionsStore(positions, &count, maxCoeff &- 1) }
        let levels = states + H264SliceDecoder.levelBase[cat]
        let gt1Limit = cat == 3 ? 3 : 4
        var equal1 = 0, greater1 = 0
        var i = count &- 1
        while i >= 0 {
            var magnitude = 1
            if e.decodeBin(&levels[greater1 != 0 ? 0 : min(4, 1 &+ equal1)]) == 1 {
                let ctx = 5 &+ min(gt1Limit, greater1)
                magnitude = 2
                while magnitude < 15 && e.decodeBin(&levels[ctx]) == 1 { magnitude &+= 1 }
                if magnitude == 15 {
                    // Exp-Golomb suffix (k = 0), bounded so that a damaged stream cannot overflow.
                    var exponent = 0
                    while exponent < 24 && e.decodeBypass() == 1 { exponent &+= 1 }
                    magnitude &+= (1 << exponent) &- 1 &+ e.decodeBypassBits(exponent)
                }
                greater1 &+= 1
            } else {
                equal1 &+= 1
            }
            let value = e.decodeBypass() == 1 ? -magnitude : magnitude
            out[Int(scan[Int(positions[i])])] = Int32(truncatingIfNeeded: value)
            i &-= 1
        }
        return count
    }

    @inline(__always)
    private func positionsStore(_ p: UnsafeMutablePointer<Int32>, _ count: inout Int, _ k: Int) {
        p[count] = Int32(k)
        count &+= 1
    }
}
