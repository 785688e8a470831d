/// Reconstruction of an intra macroblock (8.3, 8.5): prediction into the picture, then the
/// scaled and inverse-transformed residual added on top, block by block in decoding order
/// (later 4x4 and 8x8 blocks predict from earlier ones).
extension H264SliceDecoder {
    /// Bit r: the 4x4 block at raster index r has its top-right neighbour decoded when that
    /// neighbour lies inside the macroblock, or (top row) in the macroblock above (6.4.11.4).
    private static let topRightInside: UInt16 = 0x5757

    func reconstructMacroblock() {
        guard kind != H264MbKind.pcm else { return }
        let ls = frame.lumaStride
        let luma = frame.luma + (mbY &* 16 &* ls &+ mbX &* 16)
        let counts = frame.counts + mbAddr &* 24
        let q6 = qp / 6, lumaScale = levelScale4 + (qp % 6) &* 16
        switch kind {
        case H264MbKind.intra4x4:
            for blk in 0..<16 {
                let r = blockRaster[blk]
                let x4 = r & 3, y4 = r >> 2
                let p = luma + (y4 &* 4 &* ls &+ x4 &* 4)
                let hasLeft = x4 > 0 || availableA, hasTop = y4 > 0 || availableB
                let hasCorner = x4 > 0 ? (y4 > 0 || availableB) : (y4 > 0 ? availableA : availableD)
                let hasTopRight = y4 == 0 && x4 == 3 ? availableC : (H264SliceDecoder.topRightInside >> r & 1 != 0 && hasTop)
                H264IntraPrediction.loadEdges(edges, p, stride: ls, n: 4, hasTop: hasTop, hasTopRight: hasTopRight,
                                              hasLeft: hasLeft, hasCorner: hasCorner)
                H264IntraPrediction.predictNxN(mode: Int(frame.modes[mbAddr &* 16 &+ r]), n: 4, edges: edges,
                                               hasTop: hasTop, hasLeft: hasLeft, dst: p, stride: ls)
                if counts[r] != 0 {
                    let c = coeff + r &* 16
                    scale4x4(c, lumaScale, q6, from: 0)
                    H264InverseTransform.add4x4(c, p, stride: ls)
                }
            }
        case H264MbKind.intra8x8:
            let scale = levelScale8 + (qp % 6) &* 64
            for b8 in 0..<4 {
                let x8 = b8 & 1, y8 = b8 >> 1
                let p = luma + (y8 &* 8 &* ls &+ x8 &* 8)
                let hasLeft = x8 > 0 || availableA, hasTop = y8 > 0 || availableB
                let hasCorner = b8 == 0 ? availableD : b8 == 1 ? availableB : b8 == 2 ? availableA : true
                let hasTopRight = b8 == 0 ? availableB : b8 == 1 ? availableC : b8 == 2
                H264IntraPrediction.loadEdges(edges, p, stride: ls, n: 8, hasTop: hasTop, hasTopRight: hasTopRight,
                                              hasLeft: hasLeft, hasCorner: hasCorner)
                H264IntraPrediction.filterEdges8x8(edges, hasTop: hasTop, hasLeft: hasLeft, hasCorner: hasCorner)
                H264IntraPrediction.predictNxN(mode: Int(frame.modes[mbAddr &* 16 &+ y8 &* 8 &+ x8 &* 2]), n: 8,
                                               edges: edges + H264IntraPrediction.filtered,
                                               hasTop: hasTop, hasLeft: hasLeft, dst: p, stride: ls)
                let r = y8 &* 8 &+ x8 &* 2
                if counts[r] | counts[r &+ 1] | counts[r &+ 4] | counts[r &+ 5] != 0 {
                    let c = coeff + b8 &* 64
                    for k in 0..<64 {
                        c[k] = ((c[k] &* scale[k]) << Int32(q6) &+ 32) >> 6
                    }
                    H264InverseTransform.add8x8(c, p, stride: ls)
                }
            }
        default:
            H264IntraPrediction.predict16x16(mode: intra16Mode, p: luma, stride: ls, hasTop: availableB, hasLeft: availableA)
            let dc = coeff + Coeff.lumaDC
            var anyDC: Int32 = 0
            for k in 0..<16 { anyDC |= dc[k] }
            if anyDC != 0 {
                H264InverseTransform.hadamard4x4(dc)
                let s0 = lumaScale[0]
                for k in 0..<16 {
                    coeff[k &* 16] = ((dc[k] &* s0) << Int32(q6) &+ 32) >> 6
                    dc[k] = 0
                }
            }
            for r in 0..<16 {
                let c = coeff + r &* 16
                if counts[r] != 0 { scale4x4(c, lumaScale, q6, from: 1) }
                if counts[r] != 0 || c[0] != 0 {
                    H264InverseTransform.add4x4(c, luma + ((r >> 2) &* 4 &* ls &+ (r & 3) &* 4), stride: ls)
                }
            }
        }
        if frame.hasChroma { reconstructChroma(counts + 16) }
    }

    /// Both chroma planes: prediction, then DC (2x2 Hadamard) and AC residual (8.5.11).
    private func reconstructChroma(_ counts: UnsafeMutablePointer<UInt8>) {
        let cs = frame.chromaStride
        for c in 0..<2 {
            let plane = (c == 0 ? frame.cb : frame.cr) + (mbY &* 8 &* cs &+ mbX &* 8)
            H264IntraPrediction.predictChroma(mode: chromaMode, p: plane, stride: cs, hasTop: availableB, hasLeft: availableA)
            guard cbp >> 4 != 0 else { continue }
            let offset = c == 0 ? cbQPOffset : crQPOffset
            let qpc = H264Tables.chromaQP[max(0, min(51, qp + offset))]
            let scale = levelScale4 + ((1 &+ c) &* 6 &+ qpc % 6) &* 16
            let q6 = Int32(qpc / 6)
            let dc = coeff + (Coeff.chromaDC &+ c &* 4)
            let blocks = coeff + (Coeff.chroma &+ c &* 64)
            let f0 = dc[0] &+ dc[1] &+ dc[2] &+ dc[3], f1 = dc[0] &- dc[1] &+ dc[2] &- dc[3]
            let f2 = dc[0] &+ dc[1] &- dc[2] &- dc[3], f3 = dc[0] &- dc[1] &- dc[2] &+ dc[3]
            let s0 = scale[0]
            blocks[0] = ((f0 &* s0) << q6) >> 5
            blocks[16] = ((f1 &* s0) << q6) >> 5
            blocks[32] = ((f2 &* s0) << q6) >> 5
            blocks[48] = ((f3 &* s0) << q6) >> 5
            dc.update(repeating: 0, count: 4)
            for b in 0..<4 {
                let block = blocks + b &* 16
                if counts[c &* 4 &+ b] != 0 { scale4x4(block, scale, Int(q6), from: 1) }
                if counts[c &* 4 &+ b] != 0 || block[0] != 0 {
                    H264InverseTransform.add4x4(block, plane + ((b >> 1) &* 4 &* cs &+ (b & 1) &* 4), stride: cs)
                }
            }
        }
    }

    /// Scales the levels of a 4x4 block from index `from` (8.5.12.1): (c * LS << qP/6 + 8) >> 4.
    @inline(__always)
    private func scale4x4(_ c: UnsafeMutablePointer<Int32>, _ scale: UnsafeMutablePointer<Int32>, _ q6: Int, from: Int) {
        let shift = Int32(q6)
        for k in from..<16 {
            c[k] = ((c[k] &* scale[k]) << shift &+ 8) >> 4
        }
    }
}
