/// Mode decision and reconstruction of one macroblock at a time, in raster order, like
/// libwebp's `-m 4` (RD_OPT_BASIC, no trellis): every 16×16 luma mode is coded and scored
/// with SSE + λ_i16 · rate; then the 4×4 path codes each sub-block with its best of ten modes
/// (SSE + λ_i4 · rate) and wins if its total, rescored with λ_mode, beats the 16×16 choice
/// rescored the same way (it stops as soon as it cannot); chroma picks the best of four
/// modes with λ_uv. Rates are the token costs of `TokenCosts` (default probabilities at
/// first, then those the frame's counts so far call for) plus the mode's header cost.
///
/// The chosen levels, modes and the reconstruction (which later macroblocks predict from)
/// are stored in `FrameStore`; token coding happens afterwards, once the statistics of the
/// whole frame choose the probabilities.
///
/// Memory: one scratch allocation of a few KiB for predictions, trial reconstructions,
/// coefficients and levels; trial and best buffers are swapped by pointer, never copied.
struct MacroblockEncoder: ~Copyable {
    let mbw: Int, mbh: Int
    private let bytes: UnsafeMutablePointer<UInt8>
    private let ints: UnsafeMutablePointer<Int32>
    private let shorts: UnsafeMutablePointer<Int16>
    /// Non-zero flags of the blocks bordering the next macroblock: per column above (9 each:
    /// 4 luma, 2 U, 2 V, Y2) and for the one to the left.
    private let topNz: UnsafeMutablePointer<UInt8>
    private let leftNz: UnsafeMutablePointer<UInt8>
    /// Sub-block modes bordering the next macroblock (4 per column above, 4 to the left).
    private let topModes: UnsafeMutablePointer<UInt8>
    private let leftModes: UnsafeMutablePointer<UInt8>
    /// The non-zero contexts (top, then left) a macroblock's tokens are counted with.
    private let tokenContexts: UnsafeMutablePointer<UInt8>
    /// Largest edge step of a flat (DC-only) 16×16 macroblock per segment, for the filter.
    let maxEdge: UnsafeMutablePointer<Int>

    // Regions of the three scratch allocations (sizes in the comments).
    private let top16: UnsafeMutablePointer<UInt8>  // [corner, 16 above, 4 above-right]
    private let left16: UnsafeMutablePointer<UInt8>
    private let topU: UnsafeMutablePointer<UInt8>
    private let leftU: UnsafeMutablePointer<UInt8>
    private let topV: UnsafeMutablePointer<UInt8>
    private let leftV: UnsafeMutablePointer<UInt8>
    private let pred16: UnsafeMutablePointer<UInt8>  // 4 modes × 256
    private let predUV: UnsafeMutablePointer<UInt8>  // 4 modes × 128: U rows then V rows, stride 8
    private let pred4: UnsafeMutablePointer<UInt8>  // 10 modes × 16
    private let recon16A: UnsafeMutablePointer<UInt8>
    private let recon16B: UnsafeMutablePointer<UInt8>
    private let reconI4: UnsafeMutablePointer<UInt8>
    private let reconUVA: UnsafeMutablePointer<UInt8>
    private let reconUVB: UnsafeMutablePointer<UInt8>
    private let recon4A: UnsafeMutablePointer<UInt8>
    private let recon4B: UnsafeMutablePointer<UInt8>
    private let edge4: UnsafeMutablePointer<UInt8>  // [corner, 8 above], 4 left at +16, 16 best sub-block modes at +20
    private let coef16: UnsafeMutablePointer<Int32>
    private let dcs: UnsafeMutablePointer<Int32>
    private let wht: UnsafeMutablePointer<Int32>
    private let coef4: UnsafeMutablePointer<Int32>
    private let coefUV: UnsafeMutablePointer<Int32>
    private let levels16A: UnsafeMutablePointer<Int16>
    private let levels16B: UnsafeMutablePointer<Int16>
    private let levelsI4: UnsafeMutablePointer<Int16>
    private let levels4A: UnsafeMutablePointer<Int16>
    private let levels4B: UnsafeMutablePointer<Int16>
    private let levelsUVA: UnsafeMutablePointer<Int16>
    private let levelsUVB: UnsafeMutablePointer<Int16>
    private static let byteCount = 2944, intCount = 432, shortCount = 1344

    init(mbw: Int, mbh: Int) {
        self.mbw = mbw
        self.mbh = mbh
        bytes = .allocate(capacity: MacroblockEncoder.byteCount)
        ints = .allocate(capacity: MacroblockEncoder.intCount)
        shorts = .allocate(capacity: MacroblockEncoder.shortCount)
        top16 = bytes + 0
        left16 = bytes + 32
        topU = bytes + 48
        leftU = bytes + 64
        topV = bytes + 80
        leftV = bytes + 96
        pred16 = bytes + 128
        predUV = bytes + 1152
        pred4 = bytes + 1664
        recon16A = bytes + 1824
        recon16B = bytes + 2080
        reconI4 = bytes + 2336
        reconUVA = bytes + 2592
        reconUVB = bytes + 2720
        recon4A = bytes + 2848
        recon4B = bytes + 2864
        edge4 = bytes + 2880
        coef16 = ints + 0
        dcs = ints + 256
        wht = ints + 272
        coef4 = ints + 288
        coefUV = ints + 304
        levels16A = shorts + 0
        levels16B = shorts + 400
        levelsI4 = shorts + 800
        levels4A = shorts + 1056
        levels4B = shorts + 1072
        levelsUVA = shorts + 1088
        levelsUVB = shorts + 1216
        topNz = .allocate(capacity: mbw * 9)
        topNz.initialize(repeating: 0, count: mbw * 9)
        leftNz = .allocate(capacity: 9)
        topModes = .allocate(capacity: mbw * 4)
        topModes.initialize(repeating: 0, count: mbw * 4)
        leftModes = .allocate(capacity: 4)
        tokenContexts = .allocate(capacity: 18)
        maxEdge = .allocate(capacity: 4)
        maxEdge.initialize(repeating: 0, count: 4)
    }

    deinit {
        bytes.deallocate(); ints.deallocate(); shorts.deallocate()
        topNz.deallocate(); leftNz.deallocate(); topModes.deallocate(); leftModes.deallocate(); tokenContexts.deallocate()
        maxEdge.deallocate()
    }

    /// Resets the left-hand contexts at the start of a macroblock row.
    func startRow() {
        leftNz.initialize(repeating: 0, count: 9)
        leftModes.initialize(repeating: 0, count: 4)
    }

    /// Chooses modes for macroblock (mx, my), stores its levels, modes and reconstruction,
    /// and adds its tokens (unless it is skipped) to `statistics` (see `TokenStatistics`).
    func encode(mx: Int, my: Int, frame: borrowing FrameStore, matrices: UnsafePointer<QuantMatrix>,
                segment: UnsafePointer<SegmentParameters>, costs: borrowing TokenCosts, modeCosts: borrowing ModeCosts,
                statistics: UnsafeMutablePointer<UInt32>) {
        let index = my &* mbw &+ mx
        let seg = Int(frame.segment[index])
        let sp = segment + seg
        let y1 = matrices + seg &* 3, y2 = y1 + 1, uvm = y1 + 2
        buildContext(mx: mx, my: my, recon: frame.recon)
        let ys = frame.source.yStride
        let srcY = UnsafePointer(frame.source.y + ((my &* 16) &* ys &+ mx &* 16))
        let tnz = topNz + mx &* 9

        // 16×16 luma.
        let edges = VP8IntraPrediction.DCEdges(hasTop: my > 0, hasLeft: mx > 0)
        for mode in 0..<4 {
            VP8IntraPrediction.predictBlock(pred16 + mode &* 256, stride: 16, size: 16, mode: UInt8(mode), edges: edges,
                                            top: top16 + 1, left: left16, leftStride: 1)
        }
        var trialLevels = levels16A, bestLevels = levels16B
        var trialRecon = recon16A, bestRecon = recon16B
        var best16 = (score: Int.max, mode: 0, distortion: 0, rate: 0, nz: 0)
        for mode in 0..<4 {
            let pred = UnsafePointer(pred16 + mode &* 256)
            let nz = reconstructI16(srcY, ys, pred: pred, levels: trialLevels, recon: trialRecon, y1: y1, y2: y2)
            let d = Transforms.sse(srcY, ys, trialRecon, 16, w: 16, h: 16)
            let r = i16Rate(trialLevels, nz: nz, tnz: tnz, costs: costs) &+ modeCosts.i16[mode]
            let score = r &* sp.pointee.lambdaI16 &+ 256 &* d
            if score < best16.score {
                best16 = (score, mode, d, r, nz)
                swap(&trialLevels, &bestLevels)
                swap(&trialRecon, &bestRecon)
            }
        }
        let score16 = best16.rate &* sp.pointee.lambdaMode &+ 256 &* best16.distortion
        if best16.nz & 0xFFFF == 0 && best16.nz != 0 && best16.distortion > 20 &* Int(y1.pointee.step[0]) {
            let dc = bestLevels + 384
            let edge = max(abs(Int(dc[1])), abs(Int(dc[2])), abs(Int(dc[4])))
            if edge > maxEdge[seg] { maxEdge[seg] = edge }
        }

        // 4×4 luma, against the 16×16 choice.
        let i4Wins = tryI4(srcY, ys, mx: mx, limit: score16, y1: y1, sp: sp, costs: costs, modeCosts: modeCosts)

        // Chroma.
        let uvs = frame.source.uvStride
        let uvOffset = (my &* 8) &* uvs &+ mx &* 8
        let srcU = UnsafePointer(frame.source.u + uvOffset), srcV = UnsafePointer(frame.source.v + uvOffset)
        for mode in 0..<4 {
            let dst = predUV + mode &* 128
            VP8IntraPrediction.predictBlock(dst, stride: 8, size: 8, mode: UInt8(mode), edges: edges,
                                            top: topU + 1, left: leftU, leftStride: 1)
            VP8IntraPrediction.predictBlock(dst + 64, stride: 8, size: 8, mode: UInt8(mode), edges: edges,
                                            top: topV + 1, left: leftV, leftStride: 1)
        }
        var trialUV = levelsUVA, bestUV = levelsUVB
        var trialUVRecon = reconUVA, bestUVRecon = reconUVB
        var bestChroma = (score: Int.max, mode: 0, nz: 0)
        for mode in 0..<4 {
            let pred = UnsafePointer(predUV + mode &* 128)
            let nz = reconstructUV(srcU, srcV, uvs, pred: pred, levels: trialUV, recon: trialUVRecon, m: uvm)
            let d = Transforms.sse(srcU, uvs, trialUVRecon, 8, w: 8, h: 8) &+ Transforms.sse(srcV, uvs, trialUVRecon + 64, 8, w: 8, h: 8)
            let r = uvRate(trialUV, tnz: tnz, costs: costs) &+ modeCosts.uv[mode]
            let score = r &* sp.pointee.lambdaUV &+ 256 &* d
            if score < bestChroma.score {
                bestChroma = (score, mode, nz)
                swap(&trialUV, &bestUV)
                swap(&trialUVRecon, &bestUVRecon)
            }
        }

        // Commit: levels, modes, reconstruction, contexts.
        let out = frame.levels + index &* 400
        tokenContexts.update(from: tnz, count: 9)
        (tokenContexts + 9).update(from: leftNz, count: 9)
        let subModes = frame.subModes + index &* 16
        var yNz: Int
        if i4Wins {
            out.update(from: levelsI4, count: 256)
            (out + 384).update(repeating: 0, count: 16)
            yNz = 0
            for blk in 0..<16 where hasNonZero(out + blk &* 16, first: 0) { yNz |= 1 << blk }
            frame.yMode[index] = 4
            subModes.update(from: bestModes, count: 16)
            for i in 0..<4 { topModes[mx &* 4 &+ i] = subModes[12 &+ i]; leftModes[i] = subModes[i &* 4 &+ 3] }
            copyLuma(from: reconI4, frame.recon, mx: mx, my: my)
        } else {
            out.update(from: bestLevels, count: 256)
            (out + 384).update(from: bestLevels + 384, count: 16)
            yNz = best16.nz
            frame.yMode[index] = UInt8(best16.mode)
            subModes.update(repeating: UInt8(best16.mode), count: 16)
            for i in 0..<4 { topModes[mx &* 4 &+ i] = UInt8(best16.mode); leftModes[i] = UInt8(best16.mode) }
            tnz[8] = yNz >> 16 & 1 == 1 ? 1 : 0
            leftNz[8] = tnz[8]
            copyLuma(from: bestRecon, frame.recon, mx: mx, my: my)
        }
        (out + 256).update(from: bestUV, count: 128)
        frame.uvMode[index] = UInt8(bestChroma.mode)
        copyChroma(from: bestUVRecon, frame.recon, mx: mx, my: my)
        for i in 0..<4 {
            tnz[i] = yNz >> (12 &+ i) & 1 == 1 ? 1 : 0
            leftNz[i] = yNz >> (i &* 4 &+ 3) & 1 == 1 ? 1 : 0
        }
        let uvNz = bestChroma.nz
        tnz[4] = UInt8(uvNz >> 2 & 1); tnz[5] = UInt8(uvNz >> 3 & 1)
        leftNz[4] = UInt8(uvNz >> 1 & 1); leftNz[5] = UInt8(uvNz >> 3 & 1)
        tnz[6] = UInt8(uvNz >> 6 & 1); tnz[7] = UInt8(uvNz >> 7 & 1)
        leftNz[6] = UInt8(uvNz >> 5 & 1); leftNz[7] = UInt8(uvNz >> 7 & 1)
        frame.skip[index] = (yNz == 0 && uvNz == 0) ? 1 : 0
        if frame.skip[index] == 0 {
            var sink = TokenStatistics(counts: statistics)
            TokenCoder.codeMacroblock(out, i4: i4Wins, top: tokenContexts, left: tokenContexts + 9, into: &sink)
        }
    }

    /// The scan position after the last non-zero level (0 when none).
    @inline(__always)
    private func scanEnd(_ levels: UnsafePointer<Int16>) -> Int {
        var end = 16
        while end > 0 && levels[end &- 1] == 0 { end &-= 1 }
        return end
    }

    @inline(__always)
    private func hasNonZero(_ levels: UnsafePointer<Int16>, first: Int) -> Bool {
        for n in first..<16 where levels[n] != 0 { return true }
        return false
    }

    /// Fills the prediction edges of macroblock (mx, my) from the reconstruction, with the
    /// decoder's constants outside the frame (see `VP8IntraPrediction`).
    private func buildContext(mx: Int, my: Int, recon: borrowing YUVPlanes) {
        let ys = recon.yStride, uvs = recon.uvStride
        PredictionEdges.gather(recon.y, stride: ys, x: mx &* 16, y: my &* 16, size: 16, top: top16, left: left16)
        PredictionEdges.gather(recon.u, stride: uvs, x: mx &* 8, y: my &* 8, size: 8, top: topU, left: leftU)
        PredictionEdges.gather(recon.v, stride: uvs, x: mx &* 8, y: my &* 8, size: 8, top: topV, left: leftV)
        // The 4×4 blocks of the right column read four pixels above-right: the next
        // macroblock's bottom row above, or the last pixel above repeated at the right edge.
        if my == 0 {
            (top16 + 17).update(repeating: 127, count: 4)
        } else if mx &+ 1 < mbw {
            (top16 + 17).update(from: recon.y + ((my &* 16 &- 1) &* ys &+ mx &* 16 &+ 16), count: 4)
        } else {
            (top16 + 17).update(repeating: top16[16], count: 4)
        }
    }

    /// Codes the 16×16 prediction `pred`: transforms, Y2 through the WHT, quantises,
    /// reconstructs. Returns the non-zero mask (bit k: luma block k has AC levels; bit 16: Y2).
    @inline(__always)
    private func reconstructI16(_ src: UnsafePointer<UInt8>, _ ys: Int, pred: UnsafePointer<UInt8>,
                                levels: UnsafeMutablePointer<Int16>, recon: UnsafeMutablePointer<UInt8>,
                                y1: UnsafePointer<QuantMatrix>, y2: UnsafePointer<QuantMatrix>) -> Int {
        let coef = coef16, dcs = dcs, wht = wht
        for blk in 0..<16 {
            let x = blk & 3, y = blk >> 2
            Transforms.forward(src + ((y &* 4) &* ys &+ x &* 4), ys, pred + (y &* 64 &+ x &* 4), 16, coef + blk &* 16)
            dcs[blk] = coef[blk &* 16]
        }
        Transforms.forwardWHT(dcs, wht)
        var nz = Quantize.block(wht, levels + 384, y2, first: 0) > 0 ? 1 << 16 : 0
        Transforms.inverseWHT(wht, dcs)
        for blk in 0..<16 {
            let x = blk & 3, y = blk >> 2
            let c = coef + blk &* 16
            if Quantize.block(c, levels + blk &* 16, y1, first: 1) > 0 { nz |= 1 << blk }
            c[0] = dcs[blk]
            let o = y &* 64 &+ x &* 4
            Transforms.inverseAdd(c, pred + o, 16, recon + o, 16)
        }
        return nz
    }

    /// Token rate of a 16×16 macroblock's Y2 and luma AC blocks.
    @inline(__always)
    private func i16Rate(_ levels: UnsafePointer<Int16>, nz: Int, tnz: UnsafePointer<UInt8>, costs: borrowing TokenCosts) -> Int {
        var rate = costs.blockCost(levels + 384, type: 1, first: 0, ctx: Int(tnz[8]) &+ Int(leftNz[8]), end: scanEnd(levels + 384))
        var t0 = Int(tnz[0]), t1 = Int(tnz[1]), t2 = Int(tnz[2]), t3 = Int(tnz[3])
        for y in 0..<4 {
            var l = Int(leftNz[y])
            for x in 0..<4 {
                let blk = y &* 4 &+ x
                let t = x == 0 ? t0 : x == 1 ? t1 : x == 2 ? t2 : t3
                rate &+= costs.blockCost(levels + blk &* 16, type: 0, first: 1, ctx: t &+ l, end: scanEnd(levels + blk &* 16))
                let f = nz >> blk & 1
                l = f
                switch x { case 0: t0 = f; case 1: t1 = f; case 2: t2 = f; default: t3 = f }
            }
        }
        return rate
    }

    /// The 4×4 path: each sub-block's best mode, reconstruction into `reconI4`, levels into
    /// `levelsI4`, modes into the frame store by the caller. Returns whether it beat `limit`.
    private func tryI4(_ src: UnsafePointer<UInt8>, _ ys: Int, mx: Int, limit: Int, y1: UnsafePointer<QuantMatrix>,
                       sp: UnsafePointer<SegmentParameters>, costs: borrowing TokenCosts, modeCosts: borrowing ModeCosts) -> Bool {
        let recon = reconI4
        let top = top16, left = left16
        let edge = edge4, edgeLeft = edge + 16
        let coef = coef4
        let pred = pred4
        let lambda = sp.pointee.lambdaI4, lambdaMode = sp.pointee.lambdaMode
        var tnzLocal: InlineArray<4, Int> = [Int(topNz[mx &* 9]), Int(topNz[mx &* 9 &+ 1]), Int(topNz[mx &* 9 &+ 2]), Int(topNz[mx &* 9 &+ 3])]
        var lnzLocal: InlineArray<4, Int> = [Int(leftNz[0]), Int(leftNz[1]), Int(leftNz[2]), Int(leftNz[3])]
        var topM: InlineArray<4, Int> = [Int(topModes[mx &* 4]), Int(topModes[mx &* 4 &+ 1]), Int(topModes[mx &* 4 &+ 2]), Int(topModes[mx &* 4 &+ 3])]
        var leftM: InlineArray<4, Int> = [Int(leftModes[0]), Int(leftModes[1]), Int(leftModes[2]), Int(leftModes[3])]
        var total = modeCosts.i4Flag &* lambdaMode
        let i4Modes = levelsI4 // levels; modes go to `bestModes`
        for blk in 0..<16 {
            let x = blk & 3, y = blk >> 2
            // Edges: [corner, 4 above, 4 above-right] and 4 to the left.
            if y == 0 {
                (edge).update(from: top + x &* 4, count: 9)
                if x == 3 { (edge + 5).update(from: top + 17, count: 4) }
            } else {
                let above = recon + ((y &* 4 &- 1) &* 16 &+ x &* 4)
                edge[0] = x == 0 ? left[y &* 4 &- 1] : above[-1]
                (edge + 1).update(from: above, count: 4)
                if x == 3 { (edge + 5).update(from: top + 17, count: 4) } else { (edge + 5).update(from: above + 4, count: 4) }
            }
            if x == 0 {
                edgeLeft.update(from: left + y &* 4, count: 4)
            } else {
                for i in 0..<4 { edgeLeft[i] = recon[(y &* 4 &+ i) &* 16 &+ x &* 4 &- 1] }
            }
            let s = src + ((y &* 4) &* ys &+ x &* 4)
            let context = (topM[x] &* 10 &+ leftM[y]) &* 10
            var trialLevels = levels4A, bestLevels = levels4B
            var trialRecon = recon4A, bestRecon = recon4B
            var best = (score: Int.max, mode: 0, rd: 0, nz: false)
            let ctx = tnzLocal[x] &+ lnzLocal[y]
            for mode in 0..<10 {
                // The header cost alone already loses: nothing below can win (exact skip).
                if Int(modeCosts.i4[context &+ mode]) &* lambda >= best.score { continue }
                let p = pred + mode &* 16
                VP8IntraPrediction.predictSubblock(p, stride: 4, mode: UInt8(mode), top: edge + 1, left: edgeLeft, leftStride: 1)
                Transforms.forward(s, ys, p, 4, coef)
                let end = Quantize.block(coef, trialLevels, y1, first: 0)
                if end > 0 {
                    Transforms.inverseAdd(coef, p, 4, trialRecon, 4)
                } else {
                    trialRecon.update(from: p, count: 16) // nothing coded: the prediction is the result
                }
                let d = Transforms.sse(s, ys, trialRecon, 4, w: 4, h: 4)
                let h = Int(modeCosts.i4[context &+ mode])
                if h &* lambda &+ 256 &* d >= best.score { continue }
                let r = h &+ costs.blockCost(trialLevels, type: 3, first: 0, ctx: ctx, end: end)
                let score = r &* lambda &+ 256 &* d
                if score < best.score {
                    best = (score, mode, r &* lambdaMode &+ 256 &* d, end > 0)
                    swap(&trialLevels, &bestLevels)
                    swap(&trialRecon, &bestRecon)
                }
            }
            total &+= best.rd
            if total >= limit { return false }
            for row in 0..<4 { (recon + ((y &* 4 &+ row) &* 16 &+ x &* 4)).update(from: bestRecon + row &* 4, count: 4) }
            (i4Modes + blk &* 16).update(from: bestLevels, count: 16)
            let f = best.nz ? 1 : 0
            tnzLocal[x] = f
            lnzLocal[y] = f
            topM[x] = best.mode
            leftM[y] = best.mode
            bestModes[blk] = UInt8(best.mode)
        }
        return true
    }

    /// Sub-block modes of the last successful `tryI4`.
    var bestModes: UnsafeMutablePointer<UInt8> { edge4 + 20 }

    /// Codes the chroma prediction `pred` (U at 0, V at 64, stride 8). Returns the non-zero
    /// mask: bits 0...3 U blocks, 4...7 V blocks (raster order within each 8×8).
    @inline(__always)
    private func reconstructUV(_ srcU: UnsafePointer<UInt8>, _ srcV: UnsafePointer<UInt8>, _ uvs: Int, pred: UnsafePointer<UInt8>,
                               levels: UnsafeMutablePointer<Int16>, recon: UnsafeMutablePointer<UInt8>,
                               m: UnsafePointer<QuantMatrix>) -> Int {
        let coef = coefUV
        var nz = 0
        for blk in 0..<8 {
            let plane = blk < 4 ? srcU : srcV
            let x = blk & 1, y = (blk >> 1) & 1
            let o = (blk < 4 ? 0 : 64) &+ y &* 32 &+ x &* 4
            let c = coef + blk &* 16
            Transforms.forward(plane + ((y &* 4) &* uvs &+ x &* 4), uvs, pred + o, 8, c)
            if Quantize.block(c, levels + blk &* 16, m, first: 0) > 0 { nz |= 1 << blk }
            Transforms.inverseAdd(c, pred + o, 8, recon + o, 8)
        }
        return nz
    }

    @inline(__always)
    private func uvRate(_ levels: UnsafePointer<Int16>, tnz: UnsafePointer<UInt8>, costs: borrowing TokenCosts) -> Int {
        var rate = 0
        for plane in 0..<2 {
            var t0 = Int(tnz[4 &+ plane &* 2]), t1 = Int(tnz[5 &+ plane &* 2])
            for y in 0..<2 {
                var l = Int(leftNz[4 &+ plane &* 2 &+ y])
                for x in 0..<2 {
                    let blk = plane &* 4 &+ y &* 2 &+ x
                    let block = levels + blk &* 16
                    let end = scanEnd(block)
                    rate &+= costs.blockCost(block, type: 2, first: 0, ctx: (x == 0 ? t0 : t1) &+ l, end: end)
                    let f = end > 0 ? 1 : 0
                    l = f
                    if x == 0 { t0 = f } else { t1 = f }
                }
            }
        }
        return rate
    }

    private func copyLuma(from block: UnsafePointer<UInt8>, _ recon: borrowing YUVPlanes, mx: Int, my: Int) {
        let ys = recon.yStride
        let dst = recon.y + ((my &* 16) &* ys &+ mx &* 16)
        for row in 0..<16 { (dst + row &* ys).update(from: block + row &* 16, count: 16) }
    }

    private func copyChroma(from block: UnsafePointer<UInt8>, _ recon: borrowing YUVPlanes, mx: Int, my: Int) {
        let uvs = recon.uvStride
        let offset = (my &* 8) &* uvs &+ mx &* 8
        for row in 0..<8 {
            (recon.u + (offset &+ row &* uvs)).update(from: block + row &* 8, count: 8)
            (recon.v + (offset &+ row &* uvs)).update(from: block + (64 &+ row &* 8), count: 8)
        }
    }
}
