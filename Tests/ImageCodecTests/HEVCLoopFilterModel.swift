@testable import ImageCodec

/// A deliberately literal model of H.265 deblocking (8.7.2) and SAO (8.7.3) for the loop-filter
/// tests: 2-D arrays, the spec's variable names, one sample at a time, every condition looked
/// up where the spec looks it up, and none of the production code's shortcuts (no skipped
/// edges, no line bands, no per-CTB neighbour masks, slice order from tile-scan addresses).
/// Slow, and meant to be read beside the spec.
struct LoopFilterModel {
    /// Picture description the model reads; the tests build the production `HEVCFilterMap` from it.
    struct Picture {
        var width: Int
        var height: Int
        var format: HEVCChromaFormat
        var bitDepthY: Int
        var bitDepthC: Int
        var log2CtbSize: Int
        /// Tile column and row boundaries in CTBs (colBd, rowBd of 6.5.1), ending with the picture size.
        var colBd: [Int]
        var rowBd: [Int]
        var loopFilterAcrossTiles: Bool
        var cbQpOffset: Int
        var crQpOffset: Int
        /// Per 4×4 luma block (row-major), as the map holds them.
        var edges: [UInt8]
        var qpY: [Int]
        var keeps: [Bool]
        /// Per CTB in raster order.
        var sliceOfCtb: [Int]
        var sao: [HEVCSAOParameters]
        var slices: [HEVCSliceFilterParameters]

        var ctbSize: Int { 1 << log2CtbSize }
        var widthInCtbs: Int { (width + ctbSize - 1) / ctbSize }
        var heightInCtbs: Int { (height + ctbSize - 1) / ctbSize }
        var widthIn4: Int { (width + 3) / 4 }
        var subWidthC: Int { format.subsampling.x }
        var subHeightC: Int { format.subsampling.y }
        var chromaArrayType: Int { format.rawValue }

        func block(_ xL: Int, _ yL: Int) -> Int { (yL / 4) * widthIn4 + xL / 4 }
        func ctbAddrRs(_ xL: Int, _ yL: Int) -> Int { (yL >> log2CtbSize) * widthInCtbs + (xL >> log2CtbSize) }
        func sliceOf(_ xL: Int, _ yL: Int) -> HEVCSliceFilterParameters { slices[sliceOfCtb[ctbAddrRs(xL, yL)]] }

        /// TileId of a CTB, from the column and row boundaries (6.5.1).
        func tileId(ctbAddrRs: Int) -> Int {
            let x = ctbAddrRs % widthInCtbs, y = ctbAddrRs / widthInCtbs
            let i = colBd.lastIndex { $0 <= x }!, j = rowBd.lastIndex { $0 <= y }!
            return j * (colBd.count - 1) + i
        }

        /// CtbAddrRsToTs (6-5): the decoding order of CTBs with tiles.
        func ctbAddrRsToTs(_ ctbAddrRs: Int) -> Int {
            let tbX = ctbAddrRs % widthInCtbs, tbY = ctbAddrRs / widthInCtbs
            var tileX = 0, tileY = 0
            for i in 0..<(colBd.count - 1) where tbX >= colBd[i] { tileX = i }
            for j in 0..<(rowBd.count - 1) where tbY >= rowBd[j] { tileY = j }
            var v = 0
            for i in 0..<tileX { v += (rowBd[tileY + 1] - rowBd[tileY]) * (colBd[i + 1] - colBd[i]) }
            for j in 0..<tileY { v += widthInCtbs * (rowBd[j + 1] - rowBd[j]) }
            v += (tbY - rowBd[tileY]) * (colBd[tileX + 1] - colBd[tileX]) + tbX - colBd[tileX]
            return v
        }
    }

    // MARK: Tables

    /// Table 8-12, as the spec prints it: Q, β′, tC′.
    static let table812: [(q: Int, beta: Int, tc: Int)] = {
        let beta = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                    20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64]
        let tc = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3,
                  3, 3, 4, 4, 4, 5, 5, 6, 6, 7, 8, 9, 10, 11, 13, 14, 16, 18, 20, 22, 24]
        return (0...53).map { ($0, $0 < 52 ? beta[$0] : -1, tc[$0]) }
    }()

    /// Table 8-10: QpC as a function of qPi for ChromaArrayType 1.
    static func qpCTable(_ qPi: Int) -> Int {
        if qPi < 30 { return qPi }
        if qPi > 42 { return qPi - 6 }
        return [29, 30, 31, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37][qPi - 30]
    }

    static func clip3(_ lo: Int, _ hi: Int, _ v: Int) -> Int { v < lo ? lo : v > hi ? hi : v }

    // MARK: Deblocking

    /// Counters of the decisions the model took, to show a test reached every path.
    struct Stats {
        var strong = 0, normal = 0, normalWithP1 = 0, noFilter = 0, chroma = 0
    }

    /// 8.7.2 on `rec` (component, row, column); returns the deblocked picture.
    static func deblock(_ rec: [[[Int]]], _ pic: Picture, stats: inout Stats) -> [[[Int]]] {
        var picture = rec
        for vertical in [true, false] {
            // The spec filters edge after edge in place; read decisions from a snapshot of the
            // picture at the start of the direction, which must give the same result because
            // edges on the 8-grid never touch the same samples.
            let input = picture
            var output = picture
            lumaEdges(input, &output, pic, vertical: vertical, stats: &stats)
            if pic.chromaArrayType != 0 {
                for cIdx in 1...2 { chromaEdges(input, &output, pic, cIdx: cIdx, vertical: vertical, stats: &stats) }
            }
            picture = output
        }
        return picture
    }

    static func bS(_ pic: Picture, xL: Int, yL: Int, vertical: Bool) -> Int {
        let bit = vertical ? HEVCFilterMap.verticalEdge : HEVCFilterMap.horizontalEdge
        return pic.edges[pic.block(xL, yL)] & bit != 0 ? 2 : 0
    }

    static func lumaEdges(_ input: [[[Int]]], _ output: inout [[[Int]]], _ pic: Picture, vertical: Bool, stats: inout Stats) {
        let bitDepth = pic.bitDepthY
        // Edges of the 8×8 grid, in segments of 4 lines (xD, yD: position of q0,0).
        for yD in stride(from: 0, to: pic.height, by: vertical ? 4 : 8) {
            for xD in stride(from: 0, to: pic.width, by: vertical ? 8 : 4) where (vertical ? xD : yD) > 0 {
                guard bS(pic, xL: xD, yL: yD, vertical: vertical) == 2 else { continue }
                // 8.7.2: a coding unit's edges (q0 inside it) are left alone when its slice has
                // slice_deblocking_filter_disabled_flag.
                if pic.sliceOf(xD, yD).deblockingDisabled { continue }
                func pos(_ i: Int, _ k: Int, q: Bool) -> (x: Int, y: Int) {
                    let d = q ? i : -i - 1
                    return vertical ? (xD + d, yD + k) : (xD + k, yD + d)
                }
                func p(_ i: Int, _ k: Int) -> Int { let s = pos(i, k, q: false); return input[0][s.y][s.x] }
                func q(_ i: Int, _ k: Int) -> Int { let s = pos(i, k, q: true); return input[0][s.y][s.x] }
                let p00 = pos(0, 0, q: false)
                let qpQ = pic.qpY[pic.block(xD, yD)], qpP = pic.qpY[pic.block(p00.x, p00.y)]
                let qPL = (qpQ + qpP + 1) >> 1
                let slice = pic.sliceOf(xD, yD)
                let qBeta = clip3(0, 51, qPL + (slice.betaOffsetDiv2 << 1))
                let beta = table812[qBeta].beta * (1 << (bitDepth - 8))
                let qTc = clip3(0, 53, qPL + 2 * (2 - 1) + (slice.tcOffsetDiv2 << 1))
                let tC = table812[qTc].tc * (1 << (bitDepth - 8))
                let dp0 = abs(p(2, 0) - 2 * p(1, 0) + p(0, 0)), dp3 = abs(p(2, 3) - 2 * p(1, 3) + p(0, 3))
                let dq0 = abs(q(2, 0) - 2 * q(1, 0) + q(0, 0)), dq3 = abs(q(2, 3) - 2 * q(1, 3) + q(0, 3))
                let dpq0 = dp0 + dq0, dpq3 = dp3 + dq3, dp = dp0 + dp3, dq = dq0 + dq3, d = dpq0 + dpq3
                var dE = 0, dEp = 0, dEq = 0
                if d < beta {
                    // 8.7.2.5.6 for lines 0 and 3, with dpq = 2 * dpqK.
                    func dSam(_ k: Int, _ dpq: Int) -> Bool {
                        dpq < (beta >> 2) && abs(p(3, k) - p(0, k)) + abs(q(0, k) - q(3, k)) < (beta >> 3)
                            && abs(p(0, k) - q(0, k)) < ((5 * tC + 1) >> 1)
                    }
                    let dSam0 = dSam(0, 2 * dpq0), dSam3 = dSam(3, 2 * dpq3)
                    dE = 1
                    if dSam0 && dSam3 { dE = 2 }
                    if dp < ((beta + (beta >> 1)) >> 3) { dEp = 1 }
                    if dq < ((beta + (beta >> 1)) >> 3) { dEq = 1 }
                }
                if dE == 0 { stats.noFilter += 1; continue }
                if dE == 2 { stats.strong += 1 } else { stats.normal += 1; if dEp == 1 { stats.normalWithP1 += 1 } }
                let maxY = (1 << bitDepth) - 1
                for k in 0..<4 {
                    var pN = [p(0, k), p(1, k), p(2, k)], qN = [q(0, k), q(1, k), q(2, k)]
                    var nDp = 0, nDq = 0
                    let (p0, p1, p2, p3) = (p(0, k), p(1, k), p(2, k), p(3, k))
                    let (q0, q1, q2, q3) = (q(0, k), q(1, k), q(2, k), q(3, k))
                    if dE == 2 {
                        nDp = 3; nDq = 3
                        pN[0] = clip3(p0 - 2 * tC, p0 + 2 * tC, (p2 + 2 * p1 + 2 * p0 + 2 * q0 + q1 + 4) >> 3)
                        pN[1] = clip3(p1 - 2 * tC, p1 + 2 * tC, (p2 + p1 + p0 + q0 + 2) >> 2)
                        pN[2] = clip3(p2 - 2 * tC, p2 + 2 * tC, (2 * p3 + 3 * p2 + p1 + p0 + q0 + 4) >> 3)
                        qN[0] = clip3(q0 - 2 * tC, q0 + 2 * tC, (p1 + 2 * p0 + 2 * q0 + 2 * q1 + q2 + 4) >> 3)
                        qN[1] = clip3(q1 - 2 * tC, q1 + 2 * tC, (p0 + q0 + q1 + q2 + 2) >> 2)
                        qN[2] = clip3(q2 - 2 * tC, q2 + 2 * tC, (p0 + q0 + q1 + 3 * q2 + 2 * q3 + 4) >> 3)
                    } else {
                        var delta = (9 * (q0 - p0) - 3 * (q1 - p1) + 8) >> 4
                        if abs(delta) < tC * 10 {
                            delta = clip3(-tC, tC, delta)
                            pN[0] = clip3(0, maxY, p0 + delta)
                            qN[0] = clip3(0, maxY, q0 - delta)
                            if dEp == 1 {
                                let deltaP = clip3(-(tC >> 1), tC >> 1, (((p2 + p0 + 1) >> 1) - p1 + delta) >> 1)
                                pN[1] = clip3(0, maxY, p1 + deltaP)
                            }
                            if dEq == 1 {
                                let deltaQ = clip3(-(tC >> 1), tC >> 1, (((q2 + q0 + 1) >> 1) - q1 - delta) >> 1)
                                qN[1] = clip3(0, maxY, q1 + deltaQ)
                            }
                            nDp = dEp + 1; nDq = dEq + 1
                        }
                    }
                    let pk = pos(0, k, q: false), qk = pos(0, k, q: true)
                    if pic.keeps[pic.block(pk.x, pk.y)] { nDp = 0 }
                    if pic.keeps[pic.block(qk.x, qk.y)] { nDq = 0 }
                    for i in 0..<nDp { let s = pos(i, k, q: false); output[0][s.y][s.x] = pN[i] }
                    for i in 0..<nDq { let s = pos(i, k, q: true); output[0][s.y][s.x] = qN[i] }
                }
            }
        }
    }

    static func chromaEdges(_ input: [[[Int]]], _ output: inout [[[Int]]], _ pic: Picture, cIdx: Int, vertical: Bool,
                            stats: inout Stats) {
        let wC = pic.width / pic.subWidthC, hC = pic.height / pic.subHeightC
        let bitDepth = pic.bitDepthC, maxC = (1 << bitDepth) - 1
        let cQpPicOffset = cIdx == 1 ? pic.cbQpOffset : pic.crQpOffset
        // Edges on the chroma 8×8 sample grid, in segments of 4 chroma lines.
        for yC in stride(from: 0, to: hC, by: vertical ? 4 : 8) {
            for xC in stride(from: 0, to: wC, by: vertical ? 8 : 4) where (vertical ? xC : yC) > 0 {
                let xL = xC * pic.subWidthC, yL = yC * pic.subHeightC
                guard bS(pic, xL: xL, yL: yL, vertical: vertical) == 2 else { continue }
                if pic.sliceOf(xL, yL).deblockingDisabled { continue }
                func pos(_ i: Int, _ k: Int, q: Bool) -> (x: Int, y: Int) {
                    let d = q ? i : -i - 1
                    return vertical ? (xC + d, yC + k) : (xC + k, yC + d)
                }
                let p00 = pos(0, 0, q: false)
                let lumaP = (p00.x * pic.subWidthC, p00.y * pic.subHeightC)
                let qpQ = pic.qpY[pic.block(xL, yL)], qpP = pic.qpY[pic.block(lumaP.0, lumaP.1)]
                let qPi = ((qpQ + qpP + 1) >> 1) + cQpPicOffset
                let qpC = pic.chromaArrayType == 1 ? qpCTable(qPi) : min(qPi, 51)
                let slice = pic.sliceOf(xL, yL)
                let qTc = clip3(0, 53, qpC + 2 * (2 - 1) + (slice.tcOffsetDiv2 << 1))
                let tC = table812[qTc].tc * (1 << (bitDepth - 8))
                stats.chroma += 1
                let keepP = pic.keeps[pic.block(lumaP.0, lumaP.1)], keepQ = pic.keeps[pic.block(xL, yL)]
                for k in 0..<4 {
                    let sp0 = pos(0, k, q: false), sp1 = pos(1, k, q: false)
                    let sq0 = pos(0, k, q: true), sq1 = pos(1, k, q: true)
                    let p0 = input[cIdx][sp0.y][sp0.x], p1 = input[cIdx][sp1.y][sp1.x]
                    let q0 = input[cIdx][sq0.y][sq0.x], q1 = input[cIdx][sq1.y][sq1.x]
                    let delta = clip3(-tC, tC, ((((q0 - p0) << 2) + p1 - q1 + 4) >> 3))
                    if !keepP { output[cIdx][sp0.y][sp0.x] = clip3(0, maxC, p0 + delta) }
                    if !keepQ { output[cIdx][sq0.y][sq0.x] = clip3(0, maxC, q0 - delta) }
                }
            }
        }
    }

    // MARK: SAO

    /// 8.7.3 on the deblocked picture `rec`; returns the SAO output.
    static func sao(_ rec: [[[Int]]], _ pic: Picture) -> [[[Int]]] {
        var out = rec
        let components = pic.chromaArrayType == 0 ? 1 : 3
        for ctb in 0..<(pic.widthInCtbs * pic.heightInCtbs) {
            let rx = ctb % pic.widthInCtbs, ry = ctb / pic.widthInCtbs
            let slice = pic.slices[pic.sliceOfCtb[ctb]]
            for cIdx in 0..<components {
                if cIdx == 0 && !slice.saoLuma { continue }
                if cIdx > 0 && !slice.saoChroma { continue }
                let sw = cIdx == 0 ? 1 : pic.subWidthC, sh = cIdx == 0 ? 1 : pic.subHeightC
                let nCtbSw = pic.ctbSize / sw, nCtbSh = pic.ctbSize / sh
                let wPic = pic.width / sw, hPic = pic.height / sh
                for j in 0..<nCtbSh {
                    for i in 0..<nCtbSw {
                        let xSi = rx * nCtbSw + i, ySj = ry * nCtbSh + j
                        guard xSi < wPic, ySj < hPic else { continue }
                        out[cIdx][ySj][xSi] = saoSample(rec, pic, cIdx: cIdx, ctb: ctb, xSi: xSi, ySj: ySj, sw: sw, sh: sh)
                    }
                }
            }
        }
        return out
    }

    static func saoSample(_ rec: [[[Int]]], _ pic: Picture, cIdx: Int, ctb: Int, xSi: Int, ySj: Int, sw: Int, sh: Int) -> Int {
        let params = pic.sao[ctb]
        let saoTypeIdx = cIdx == 0 ? params.typeIndex.0 : cIdx == 1 ? params.typeIndex.1 : params.typeIndex.2
        let offs = cIdx == 0 ? params.offsets.0 : cIdx == 1 ? params.offsets.1 : params.offsets.2
        let saoOffsetVal = [0, Int(offs[0]), Int(offs[1]), Int(offs[2]), Int(offs[3])]
        let bitDepth = cIdx == 0 ? pic.bitDepthY : pic.bitDepthC
        let value = rec[cIdx][ySj][xSi]
        let xYi = xSi * sw, yYj = ySj * sh
        if pic.keeps[pic.block(xYi, yYj)] || saoTypeIdx == 0 { return value }
        if saoTypeIdx == 2 {
            let eoClass = Int(cIdx == 0 ? params.edgeClass.0 : cIdx == 1 ? params.edgeClass.1 : params.edgeClass.2)
            let hPos = [[-1, 1], [0, 0], [-1, 1], [1, -1]][eoClass]
            let vPos = [[0, 0], [-1, 1], [-1, 1], [-1, 1]][eoClass]
            let wPic = pic.width / sw, hPic = pic.height / sh
            for k in 0..<2 {
                let xSik = xSi + hPos[k], ySjk = ySj + vPos[k]
                if xSik < 0 || ySjk < 0 || xSik >= wPic || ySjk >= hPic { return value }
                // Luma positions of the two samples; slices compared by decoding order (the
                // tile-scan address of their CTBs stands in for MinTbAddrZs).
                let cur = pic.ctbAddrRs(xYi, yYj), nb = pic.ctbAddrRs(xSik * sw, ySjk * sh)
                let curSlice = pic.sliceOfCtb[cur], nbSlice = pic.sliceOfCtb[nb]
                if curSlice != nbSlice {
                    let curTs = pic.ctbAddrRsToTs(cur), nbTs = pic.ctbAddrRsToTs(nb)
                    if nbTs < curTs && !pic.slices[curSlice].loopFilterAcrossSlices { return value }
                    if curTs < nbTs && !pic.slices[nbSlice].loopFilterAcrossSlices { return value }
                }
                if !pic.loopFilterAcrossTiles && pic.tileId(ctbAddrRs: cur) != pic.tileId(ctbAddrRs: nb) { return value }
            }
            func sign(_ v: Int) -> Int { v > 0 ? 1 : v < 0 ? -1 : 0 }
            var edgeIdx = 2 + sign(value - rec[cIdx][ySj + vPos[0]][xSi + hPos[0]])
                + sign(value - rec[cIdx][ySj + vPos[1]][xSi + hPos[1]])
            if edgeIdx == 0 || edgeIdx == 1 || edgeIdx == 2 { edgeIdx = edgeIdx == 2 ? 0 : edgeIdx + 1 }
            return clip3(0, (1 << bitDepth) - 1, value + saoOffsetVal[edgeIdx])
        }
        let bandShift = bitDepth - 5
        let bandPos = Int(cIdx == 0 ? params.bandPosition.0 : cIdx == 1 ? params.bandPosition.1 : params.bandPosition.2)
        var bandTable = [Int](repeating: 0, count: 32)
        for k in 0...3 { bandTable[(k + bandPos) & 31] = k + 1 }
        let bandIdx = bandTable[value >> bandShift]
        return clip3(0, (1 << bitDepth) - 1, value + saoOffsetVal[bandIdx])
    }
}
