/// The macroblock layer of CAVLC I slices (7.3.5, 9.2): mb_type, prediction modes,
/// coded_block_pattern, mb_qp_delta and the residual blocks, as levels in `coeff`.
extension H264SliceDecoder {
    func parseMacroblockCAVLC(_ r: inout H264BitReader) throws {
        let mbType = try r.ueFast()
        guard mbType <= 25 else { throw ImageCodecError(.corrupt, "H.264 I-slice mb_type \(mbType) out of range") }
        if mbType == 25 {
            r.skip((8 &- (r.position & 7)) & 7)
            readPCM { r.bits(8) }
            finishPCM()
            return
        }
        let hasChroma = frame.hasChroma
        if mbType == 0 {
            transform8x8 = pps.transform8x8Mode && r.flag()
            kind = transform8x8 ? H264MbKind.intra8x8 : H264MbKind.intra4x4
            try parseIntraModes { r.flag() ? -1 : r.bits(3) }
            chromaMode = try hasChroma ? r.ueFast() : 0
            guard chromaMode <= 3 else { throw ImageCodecError(.corrupt, "H.264 intra_chroma_pred_mode out of range") }
            let code = try r.ueFast()
            if hasChroma {
                guard code < 48 else { throw ImageCodecError(.corrupt, "H.264 coded_block_pattern out of range") }
                cbp = Int(H264Tables.intraCBP[code])
            } else {
                guard code < 16 else { throw ImageCodecError(.corrupt, "H.264 coded_block_pattern out of range") }
                cbp = Int(H264Tables.intraCBPMonochrome[code])
            }
        } else {
            kind = H264MbKind.intra16x16
            intra16Mode = (mbType &- 1) & 3
            cbp = (hasChroma ? ((mbType &- 1) >> 2) % 3 : 0) << 4 | (mbType >= 13 ? 15 : 0)
            chromaMode = try hasChroma ? r.ueFast() : 0
            guard chromaMode <= 3 else { throw ImageCodecError(.corrupt, "H.264 intra_chroma_pred_mode out of range") }
            (frame.modes + mbAddr &* 16).update(repeating: 2, count: 16)
        }
        if cbp != 0 || kind == H264MbKind.intra16x16 {
            let code = try r.ueFast()
            let delta = code & 1 == 1 ? (code &+ 1) >> 1 : -(code >> 1)
            guard (-26...25).contains(delta) else { throw ImageCodecError(.corrupt, "H.264 mb_qp_delta out of range") }
            applyQPDelta(delta)
        }
        storeMacroblockInfo()
        try parseResidualCAVLC(&r)
    }

    /// Reads the 4x4 or 8x8 prediction modes; `next` returns -1 for prev_intra_pred_mode_flag
    /// or rem_intra_pred_mode (8.3.1.1).
    @inline(__always)
    func parseIntraModes(_ next: () throws -> Int) throws {
        let base = frame.modes + mbAddr &* 16
        if transform8x8 {
            for b8 in 0..<4 {
                let x4 = (b8 & 1) &* 2, y4 = (b8 >> 1) &* 2
                let predicted = predictedIntraMode(x4: x4, y4: y4)
                let rem = try next()
                let mode = rem < 0 ? predicted : rem < predicted ? rem : rem &+ 1
                let o = y4 &* 4 &+ x4
                base[o] = UInt8(mode); base[o &+ 1] = UInt8(mode); base[o &+ 4] = UInt8(mode); base[o &+ 5] = UInt8(mode)
            }
        } else {
            for blk in 0..<16 {
                let raster = blockRaster[blk]
                let predicted = predictedIntraMode(x4: raster & 3, y4: raster >> 2)
                let rem = try next()
                base[raster] = UInt8(rem < 0 ? predicted : rem < predicted ? rem : rem &+ 1)
            }
        }
    }

    /// QP_Y after mb_qp_delta (7.4.5), 8-bit only.
    @inline(__always)
    func applyQPDelta(_ delta: Int) {
        qp = (qp &+ delta &+ 52) % 52
        previousQPDeltaNonZero = delta != 0
    }

    /// Side information the neighbours and the deblocking filter read.
    @inline(__always)
    func storeMacroblockInfo() {
        frame.mbKind[mbAddr] = kind
        frame.mbQP[mbAddr] = UInt8(qp)
        frame.mbChromaMode[mbAddr] = UInt8(chromaMode)
        frame.mbCBP[mbAddr] = UInt16(cbp)
    }

    /// pcm_sample_luma and pcm_sample_chroma straight into the picture.
    @inline(__always)
    func readPCM(_ next: () -> Int) {
        let ls = frame.lumaStride
        let p = frame.luma + (mbY &* 16 &* ls &+ mbX &* 16)
        for y in 0..<16 { for x in 0..<16 { p[y &* ls &+ x] = UInt8(truncatingIfNeeded: next()) } }
        guard frame.hasChroma else { return }
        let cs = frame.chromaStride
        for plane in [frame.cb, frame.cr] {
            let c = plane + (mbY &* 8 &* cs &+ mbX &* 8)
            for y in 0..<8 { for x in 0..<8 { c[y &* cs &+ x] = UInt8(truncatingIfNeeded: next()) } }
        }
    }

    private func parseResidualCAVLC(_ r: inout H264BitReader) throws {
        let counts = frame.counts + mbAddr &* 24
        counts.update(repeating: 0, count: 24)
        let zz4 = UnsafePointer(scans + Scan.zigzag4)
        if kind == H264MbKind.intra16x16 {
            _ = try residualBlock(&r, nC: lumaNC(0), maxCoeff: 16, out: coeff + Coeff.lumaDC, scan: zz4, stride: 1)
        }
        for b8 in 0..<4 {
            guard cbp & (1 << b8) != 0 else { continue }
            for i4 in 0..<4 {
                let raster = blockRaster[b8 &* 4 &+ i4]
                let n: Int
                if kind == H264MbKind.intra16x16 {
                    n = try residualBlock(&r, nC: lumaNC(raster), maxCoeff: 15, out: coeff + raster &* 16,
                                          scan: zz4 + 1, stride: 1)
                } else if transform8x8 {
                    n = try residualBlock(&r, nC: lumaNC(raster), maxCoeff: 16, out: coeff + b8 &* 64,
                                          scan: UnsafePointer(scans + Scan.zigzag8 + i4), stride: 4)
                } else {
                    n = try residualBlock(&r, nC: lumaNC(raster), maxCoeff: 16, out: coeff + raster &* 16, scan: zz4, stride: 1)
                }
                counts[raster] = UInt8(n)
            }
        }
        guard cbp >> 4 != 0 else { return }
        let identity = UnsafePointer(scans + Scan.identity)
        for c in 0..<2 {
            _ = try residualBlock(&r, nC: -1, maxCoeff: 4, out: coeff + (Coeff.chromaDC &+ c &* 4), scan: identity, stride: 1)
        }
        guard cbp >> 4 == 2 else { return }
        for c in 0..<2 {
            for b in 0..<4 {
                let left = chromaCountLeft(c, b), above = chromaCountAbove(c, b)
                let n = try residualBlock(&r, nC: predictedCount(left, above), maxCoeff: 15,
                                          out: coeff + (Coeff.chroma &+ c &* 64 &+ b &* 16), scan: zz4 + 1, stride: 1)
                counts[16 &+ c &* 4 &+ b] = UInt8(n)
            }
        }
    }

    @inline(__always)
    private func lumaNC(_ raster: Int) -> Int {
        predictedCount(lumaCountLeft(raster), lumaCountAbove(raster))
    }

    /// nC from the neighbouring blocks' counts (9.2.1).
    @inline(__always)
    private func predictedCount(_ a: Int?, _ b: Int?) -> Int {
        switch (a, b) {
        case let (a?, b?): return (a &+ b &+ 1) >> 1
        case let (a?, nil): return a
        case let (nil, b?): return b
        default: return 0
        }
    }

    /// residual_block_cavlc (7.3.5.3.2, 9.2.2-9.2.4): coefficient k of the block goes to
    /// `out[scan[k * stride]]`. Returns TotalCoeff.
    private func residualBlock(_ reader: inout H264BitReader, nC: Int, maxCoeff: Int, out: UnsafeMutablePointer<Int32>,
                               scan: UnsafePointer<UInt8>, stride: Int) throws -> Int {
        var r = H264Bits(reader)
        defer { reader.position = r.position }
        let vlc = self.vlc
        let index = nC < 0 ? H264CAVLCTables.chromaDCTokenIndex : nC < 2 ? 0 : nC < 4 ? 1 : nC < 8 ? 2 : 3
        let token = try H264CAVLCTables.decode(vlc, index, &r)
        let total = token >> 2, trailingOnes = token & 3
        guard total > 0 else { return 0 }
        guard total <= maxCoeff else { throw ImageCodecError(.corrupt, "H.264 TotalCoeff \(total) exceeds \(maxCoeff)") }
        let levels = edges + H264IntraPrediction.edgeCount
        var suffixLength = total > 10 && trailingOnes < 3 ? 1 : 0
        for i in 0..<total {
            if i < trailingOnes {
                levels[i] = r.bits(1) == 1 ? -1 : 1
                continue
            }
            let prefix = r.peek32().leadingZeroBitCount
            guard prefix <= 25 else { throw ImageCodecError(.corrupt, "H.264 level_prefix too long") }
            r.skip(prefix &+ 1)
            var code = min(15, prefix) << suffixLength
            if suffixLength > 0 || prefix >= 14 {
                let size = prefix == 14 && suffixLength == 0 ? 4 : prefix >= 15 ? prefix &- 3 : suffixLength
                code &+= r.bits(size)
            }
            if prefix >= 15 && suffixLength == 0 { code &+= 15 }
            if prefix >= 16 { code &+= (1 << (prefix &- 3)) &- 4096 }
            if i == trailingOnes && trailingOnes < 3 { code &+= 2 }
            let level = code & 1 == 0 ? (code &+ 2) >> 1 : (-code &- 1) >> 1
            levels[i] = Int32(truncatingIfNeeded: level)
            if suffixLength == 0 { suffixLength = 1 }
            if abs(level) > (3 << (suffixLength &- 1)) && suffixLength < 6 { suffixLength &+= 1 }
        }
        var zerosLeft = 0
        if total < maxCoeff {
            let base = maxCoeff == 4 ? H264CAVLCTables.chromaDCTotalZerosIndex : H264CAVLCTables.totalZerosIndex
            zerosLeft = try H264CAVLCTables.decode(vlc, base &+ total &- 1, &r)
            guard zerosLeft <= maxCoeff &- total else { throw ImageCodecError(.corrupt, "H.264 total_zeros out of range") }
        }
        var position = total &+ zerosLeft &- 1
        for i in 0..<total {
            out[Int(scan[position &* stride])] = levels[i]
            if i < total &- 1 && zerosLeft > 0 {
                let run = try H264CAVLCTables.decode(vlc, H264CAVLCTables.runBeforeIndex &+ min(zerosLeft, 7) &- 1, &r)
                guard run <= zerosLeft else { throw ImageCodecError(.corrupt, "H.264 run_before out of range") }
                zerosLeft &-= run
                position &-= run &+ 1
            } else {
                position &-= 1
            }
        }
        return total
    }
}
