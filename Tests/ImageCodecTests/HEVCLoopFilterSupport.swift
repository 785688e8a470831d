@testable import ImageCodec

/// Builds loop-filter inputs for the tests: the model's picture description, the production
/// `HEVCFilterMap` and planes from it, and random pictures whose content makes every filter
/// path fire (flat blocks with steps for the strong filter, gentle ramps for the normal one).
enum LoopFilterFixtures {
    typealias Samples = [[[Int]]]

    /// A picture with one slice, one tile, no edges, QP 30 everywhere and SAO off.
    static func plain(width: Int, height: Int, format: HEVCChromaFormat = .yuv420, bitDepth: Int = 8,
                      log2CtbSize: Int = 4) -> LoopFilterModel.Picture {
        let w4 = (width + 3) / 4, h4 = (height + 3) / 4
        let ctb = 1 << log2CtbSize
        let ctbs = ((width + ctb - 1) / ctb) * ((height + ctb - 1) / ctb)
        return LoopFilterModel.Picture(
            width: width, height: height, format: format, bitDepthY: bitDepth, bitDepthC: bitDepth,
            log2CtbSize: log2CtbSize, colBd: [0, (width + ctb - 1) / ctb], rowBd: [0, (height + ctb - 1) / ctb],
            loopFilterAcrossTiles: true, cbQpOffset: 0, crQpOffset: 0,
            edges: [UInt8](repeating: 0, count: w4 * h4), qpY: [Int](repeating: 30, count: w4 * h4),
            keeps: [Bool](repeating: false, count: w4 * h4), sliceOfCtb: [Int](repeating: 0, count: ctbs),
            sao: [HEVCSAOParameters](repeating: HEVCSAOParameters(), count: ctbs),
            slices: [slice()])
    }

    static func slice(beta: Int = 0, tc: Int = 0, across: Bool = true, saoLuma: Bool = true,
                      saoChroma: Bool = true, deblockingDisabled: Bool = false) -> HEVCSliceFilterParameters {
        HEVCSliceFilterParameters(deblockingDisabled: deblockingDisabled, betaOffsetDiv2: beta, tcOffsetDiv2: tc,
                                  loopFilterAcrossSlices: across, saoLuma: saoLuma, saoChroma: saoChroma)
    }

    static func map(_ pic: LoopFilterModel.Picture) -> HEVCFilterMap {
        var map = HEVCFilterMap(width: pic.width, height: pic.height, log2CtbSize: pic.log2CtbSize,
                                loopFilterAcrossTiles: pic.loopFilterAcrossTiles, cbQpOffset: pic.cbQpOffset,
                                crQpOffset: pic.crQpOffset)
        map.edges = pic.edges
        map.qpY = pic.qpY.map { Int8($0) }
        map.keepsSamples = pic.keeps
        map.sliceOfCtb = pic.sliceOfCtb.map { Int32($0) }
        map.tileOfCtb = (0..<pic.sliceOfCtb.count).map { Int32(pic.tileId(ctbAddrRs: $0)) }
        map.sao = pic.sao
        map.slices = pic.slices
        return map
    }

    static func planes(_ samples: Samples) -> [HEVCPlane] {
        samples.map { rows in
            HEVCPlane(width: rows[0].count, height: rows.count, samples: rows.flatMap { $0.map { UInt16($0) } })
        }
    }

    static func samples(_ planes: [HEVCPlane]) -> Samples {
        planes.map { plane in
            (0..<plane.height).map { y in (0..<plane.width).map { Int(plane.samples[y * plane.width + $0]) } }
        }
    }

    /// Runs the production filters.
    static func production(_ samples: Samples, _ pic: LoopFilterModel.Picture) -> Samples {
        var planes = planes(samples)
        HEVCLoopFilter.apply(to: &planes, map: map(pic), chromaFormat: pic.format, bitDepthLuma: pic.bitDepthY,
                             bitDepthChroma: pic.bitDepthC)
        return LoopFilterFixtures.samples(planes)
    }

    /// Runs the model: deblocking, then SAO.
    static func model(_ samples: Samples, _ pic: LoopFilterModel.Picture, stats: inout LoopFilterModel.Stats) -> Samples {
        LoopFilterModel.sao(LoopFilterModel.deblock(samples, pic, stats: &stats), pic)
    }

    /// Constant planes of `value` at the picture's component sizes.
    static func flat(_ pic: LoopFilterModel.Picture, value: Int) -> Samples {
        let count = pic.format == .monochrome ? 1 : 3
        return (0..<count).map { c in
            let w = c == 0 ? pic.width : pic.width / pic.subWidthC, h = c == 0 ? pic.height : pic.height / pic.subHeightC
            return [[Int]](repeating: [Int](repeating: value, count: w), count: h)
        }
    }

    /// Number of differing samples per component.
    static func differences(_ a: Samples, _ b: Samples) -> [Int] {
        zip(a, b).map { pa, pb in zip(pa, pb).reduce(0) { n, rows in n + zip(rows.0, rows.1).filter { $0 != $1 }.count } }
    }

    // MARK: Random pictures

    static func random(seed: UInt64, width: Int, height: Int, format: HEVCChromaFormat, bitDepth: Int,
                       log2CtbSize: Int) -> (LoopFilterModel.Picture, Samples) {
        var rng = SplitMix64(seed: seed)
        var pic = plain(width: width, height: height, format: format, bitDepth: bitDepth, log2CtbSize: log2CtbSize)
        pic.bitDepthC = bitDepth == 8 ? 8 : rng.int(8...10) == 8 ? 8 : bitDepth
        let wCtb = pic.widthInCtbs, hCtb = pic.heightInCtbs
        pic.colBd = boundaries(count: wCtb, rng: &rng)
        pic.rowBd = boundaries(count: hCtb, rng: &rng)
        pic.loopFilterAcrossTiles = rng.int(0...1) == 1
        pic.cbQpOffset = rng.int(-12...12)
        pic.crQpOffset = rng.int(-12...12)

        // Slices: runs of CTBs in decoding (tile-scan) order.
        let ctbs = wCtb * hCtb
        var rsOfTs = [Int](repeating: 0, count: ctbs)
        for rs in 0..<ctbs { rsOfTs[pic.ctbAddrRsToTs(rs)] = rs }
        var sliceIndex = 0
        pic.slices = [randomSlice(&rng)]
        for ts in 0..<ctbs {
            if ts > 0 && rng.int(0...5) == 0 {
                sliceIndex += 1
                pic.slices.append(randomSlice(&rng))
            }
            pic.sliceOfCtb[rsOfTs[ts]] = sliceIndex
        }

        let w4 = pic.widthIn4, h4 = (height + 3) / 4
        let qpRange = (bitDepth == 8 ? 0 : -6 * (bitDepth - 8))...51
        for by8 in 0..<((h4 + 1) / 2) {
            for bx8 in 0..<((w4 + 1) / 2) {
                let qp = rng.int(0...3) == 0 ? rng.int(qpRange) : rng.int(27...51)
                let keep = rng.int(0...19) == 0
                for by in (2 * by8)..<min(2 * by8 + 2, h4) {
                    for bx in (2 * bx8)..<min(2 * bx8 + 2, w4) {
                        let i = by * w4 + bx
                        pic.qpY[i] = qp
                        pic.keeps[i] = keep
                        var bits: UInt8 = 0
                        if bx % 2 == 0 && bx > 0 && rng.int(0...3) != 0 { bits |= HEVCFilterMap.verticalEdge }
                        if by % 2 == 0 && by > 0 && rng.int(0...3) != 0 { bits |= HEVCFilterMap.horizontalEdge }
                        pic.edges[i] = bits
                    }
                }
            }
        }

        var samples = flat(pic, value: 0)
        for c in 0..<samples.count {
            let depth = c == 0 ? pic.bitDepthY : pic.bitDepthC
            let maxValue = (1 << depth) - 1, unit = 1 << (depth - 8)
            let h = samples[c].count, w = samples[c][0].count
            let block = 4
            for by in stride(from: 0, to: h, by: block) {
                for bx in stride(from: 0, to: w, by: block) {
                    let base = rng.int(0...maxValue)
                    let step = rng.int(0...3) == 0 ? rng.int(-40...40) * unit : rng.int(-4...4) * unit
                    let slopeX = rng.int(-2...2), slopeY = rng.int(-2...2)
                    let noise = rng.int(0...2) == 0 ? 0 : rng.int(0...3) * unit
                    for y in by..<min(by + block, h) {
                        for x in bx..<min(bx + block, w) {
                            let n = noise == 0 ? 0 : rng.int(-noise...noise)
                            let v = base + step + slopeX * (x - bx) * unit + slopeY * (y - by) * unit + n
                            samples[c][y][x] = min(max(v, 0), maxValue)
                        }
                    }
                }
            }
            // Smooth across blocks half of the time so edges are steps between similar areas.
            if rng.int(0...1) == 0 {
                for y in 0..<h { for x in 1..<w where (x % block) != 0 || rng.int(0...1) == 0 {
                    samples[c][y][x] = (samples[c][y][x - 1] * 3 + samples[c][y][x]) / 4
                } }
            }
        }

        for ctb in 0..<ctbs {
            var p = HEVCSAOParameters()
            let xs = (ctb % wCtb) << log2CtbSize, ys = (ctb / wCtb) << log2CtbSize
            var types = [UInt8](), offs = [SIMD4<Int16>](), bands = [UInt8](), classes = [UInt8]()
            for c in 0..<3 {
                let depth = c == 0 ? pic.bitDepthY : pic.bitDepthC
                let limit = (1 << (min(depth, 10) - 5)) - 1
                types.append(UInt8(rng.int(0...2)))
                offs.append(SIMD4((0..<4).map { _ in Int16(rng.int(-limit...limit)) }))
                var band = rng.int(0...31)
                if c < samples.count && rng.int(0...1) == 0 {
                    let sw = c == 0 ? 1 : pic.subWidthC, sh = c == 0 ? 1 : pic.subHeightC
                    band = (samples[c][ys / sh][xs / sw] >> (depth - 5)) - rng.int(0...3)
                }
                bands.append(UInt8(band & 31))
                classes.append(UInt8(rng.int(0...3)))
            }
            p.typeIndex = (types[0], types[1], types[2])
            p.offsets = (offs[0], offs[1], offs[2])
            p.bandPosition = (bands[0], bands[1], bands[2])
            p.edgeClass = (classes[0], classes[1], classes[2])
            pic.sao[ctb] = p
        }
        return (pic, samples)
    }

    private static func randomSlice(_ rng: inout SplitMix64) -> HEVCSliceFilterParameters {
        slice(beta: rng.int(-6...6), tc: rng.int(-6...6), across: rng.int(0...1) == 1,
              saoLuma: rng.int(0...4) != 0, saoChroma: rng.int(0...4) != 0, deblockingDisabled: rng.int(0...7) == 0)
    }

    /// 0, some sorted inner cut points, `count`.
    private static func boundaries(count: Int, rng: inout SplitMix64) -> [Int] {
        var cuts = Set<Int>()
        if count > 1 { for _ in 0..<rng.int(0...2) { cuts.insert(rng.int(1...(count - 1))) } }
        return [0] + cuts.sorted() + [count]
    }
}
