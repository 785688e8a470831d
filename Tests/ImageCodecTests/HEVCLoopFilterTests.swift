import Testing
@testable import ImageCodec

/// Deblocking and SAO against hand-computed values from H.265 8.7.2 / 8.7.3, and against the
/// literal model (HEVCLoopFilterModel.swift) on random pictures of every chroma format.
@Suite struct HEVCLoopFilterTests {
    typealias F = LoopFilterFixtures

    // MARK: Tables and QP mapping

    @Test func betaAndTcTablesMatchTable812At8And10Bits() {
        // Spot values read off table 8-12.
        let beta: [(Int, Int)] = [(0, 0), (15, 0), (16, 6), (28, 18), (29, 20), (40, 42), (51, 64)]
        let tc: [(Int, Int)] = [(17, 0), (18, 1), (26, 1), (27, 2), (31, 3), (35, 4), (38, 5), (40, 6), (42, 7),
                                (46, 11), (47, 13), (53, 24)]
        for (q, b) in beta {
            #expect(DeblockingKernels.beta(qpL: q, betaOffset: 0, bitDepth: 8) == b)
            #expect(DeblockingKernels.beta(qpL: q, betaOffset: 0, bitDepth: 10) == b * 4)
        }
        for (q, t) in tc {
            #expect(DeblockingKernels.tcForIntraEdge(qp: q - 2, tcOffset: 0, bitDepth: 8) == t)
            #expect(DeblockingKernels.tcForIntraEdge(qp: q - 2, tcOffset: 0, bitDepth: 10) == t * 4)
        }
        // Whole tables against the model's copy, with clipping of Q at both ends.
        for q in -20...80 {
            let qb = min(max(q, 0), 51), qt = min(max(q + 2, 0), 53)
            #expect(DeblockingKernels.beta(qpL: q, betaOffset: 0, bitDepth: 8) == LoopFilterModel.table812[qb].beta)
            #expect(DeblockingKernels.tcForIntraEdge(qp: q, tcOffset: 0, bitDepth: 9) == LoopFilterModel.table812[qt].tc * 2)
        }
        // β′ follows Q - 10 on 16...28 and 2Q - 38 on 29...51.
        for q in 16...28 { #expect(LoopFilterModel.table812[q].beta == q - 10) }
        for q in 29...51 { #expect(LoopFilterModel.table812[q].beta == 2 * q - 38) }
    }

    @Test func chromaQpMapping() {
        let expected420: [Int: Int] = [-5: -5, 0: 0, 29: 29, 30: 29, 31: 30, 34: 33, 35: 33, 36: 34, 39: 35, 42: 37,
                                       43: 37, 51: 45, 57: 51]
        for (qPi, qpC) in expected420 {
            #expect(DeblockingKernels.chromaQp(qPi, chromaArrayType: 1) == qpC)
        }
        for qPi in -20...70 {
            #expect(DeblockingKernels.chromaQp(qPi, chromaArrayType: 1) == LoopFilterModel.qpCTable(qPi))
            #expect(DeblockingKernels.chromaQp(qPi, chromaArrayType: 2) == min(qPi, 51))
            #expect(DeblockingKernels.chromaQp(qPi, chromaArrayType: 3) == min(qPi, 51))
        }
    }

    // MARK: Luma deblocking by hand

    /// A 16×8 picture with one vertical edge at x = 8: p side `p`, q side `q`, flat.
    private func stepPicture(p: Int, q: Int, qp: Int) -> (LoopFilterModel.Picture, F.Samples) {
        var pic = F.plain(width: 16, height: 8, format: .monochrome)
        for by in 0..<2 { pic.edges[by * 4 + 2] = HEVCFilterMap.verticalEdge }
        pic.qpY = pic.qpY.map { _ in qp }
        let row = [Int](repeating: p, count: 8) + [Int](repeating: q, count: 8)
        return (pic, [[[Int]](repeating: row, count: 8)])
    }

    @Test func lumaStrongFilter() {
        // qPL 36: β = β′(36) = 34, tC = tC′(38) = 5, so |p0 - q0| = 10 < (5·5 + 1) >> 1 = 13: strong.
        let (pic, samples) = stepPicture(p: 100, q: 110, qp: 36)
        let out = F.production(samples, pic)
        for y in 0..<8 { #expect(out[0][y] == [100, 100, 100, 100, 100, 101, 103, 104, 106, 108, 109, 110, 110, 110, 110, 110]) }
    }

    @Test func lumaNormalFilter() {
        // qPL 30: β = 22, tC = 3; 10 ≥ (3·5 + 1) >> 1 = 8, so normal. Δ = (90 - 30 + 8) >> 4 = 4 → 3;
        // dEp, dEq: dp = dq = 0 < 4. Δp = (0 + 3) >> 1 = 1; Δq = (0 - 3) >> 1 = -2 → -1.
        let (pic, samples) = stepPicture(p: 100, q: 110, qp: 30)
        let out = F.production(samples, pic)
        for y in 0..<8 { #expect(out[0][y] == [100, 100, 100, 100, 100, 100, 101, 103, 107, 109, 110, 110, 110, 110, 110, 110]) }
    }

    @Test func lumaNoFilterWhenActivityExceedsBeta() {
        // A ramp of slope changes on the p side: d ≥ β at qPL 20 (β = 10).
        var (pic, samples) = stepPicture(p: 100, q: 110, qp: 20)
        for y in 0..<8 { samples[0][y][5] = 90; samples[0][y][7] = 90 }
        let out = F.production(samples, pic)
        #expect(out == samples)
        pic.qpY = pic.qpY.map { _ in 51 }
        #expect(F.production(samples, pic) != samples)
    }

    @Test func lumaKeepsSamplesSide() {
        let made = stepPicture(p: 100, q: 110, qp: 36)
        var pic = made.0
        let samples = made.1
        for by in 0..<2 { pic.keeps[by * 4 + 2] = true; pic.keeps[by * 4 + 3] = true }
        var out = F.production(samples, pic)
        for y in 0..<8 { #expect(out[0][y] == [100, 100, 100, 100, 100, 101, 103, 104, 110, 110, 110, 110, 110, 110, 110, 110]) }
        pic.keeps = pic.keeps.map { _ in true }
        out = F.production(samples, pic)
        #expect(out == samples)
    }

    @Test func lumaTenBitScalesBetaAndTc() {
        // The 8-bit normal case scaled by 4: tC = 12, β = 88; Δ = (9·40 - 3·40 + 8) >> 4 = 15 → 12.
        var (pic, samples) = stepPicture(p: 400, q: 440, qp: 30)
        pic.bitDepthY = 10
        samples[0][0][0] = 400
        let out = F.production(samples, pic)
        var stats = LoopFilterModel.Stats()
        #expect(out == F.model(samples, pic, stats: &stats))
        #expect(out[0][0][7] == 412 && out[0][0][8] == 428)
    }

    @Test func sliceOffsetsComeFromTheSliceHoldingQ00() {
        // Two 16×16 CTBs side by side in two slices; the edge at x = 16 has q0,0 in slice 1.
        var pic = F.plain(width: 32, height: 16, format: .monochrome)
        for by in 0..<4 { pic.edges[by * 8 + 4] = HEVCFilterMap.verticalEdge }
        pic.sliceOfCtb = [0, 1]
        let row = [Int](repeating: 100, count: 16) + [Int](repeating: 110, count: 16)
        let samples = [[[Int]](repeating: row, count: 16)]
        // tc_offset_div2 = -6 lowers Q by 12 (tC′(20) = 1); slice 0's offsets must not matter.
        pic.slices = [F.slice(tc: -6), F.slice(tc: 0)]
        let filtered = F.production(samples, pic)
        #expect(filtered[0][0][15] == 103 && filtered[0][0][16] == 107)
        pic.slices = [F.slice(tc: 0), F.slice(tc: -6)]
        let weak = F.production(samples, pic)
        #expect(weak[0][0][15] == 101 && weak[0][0][16] == 109)
        // β: at QP 22, slice 1's beta_offset_div2 -6 gives Q = 10 and β = 0 (no filtering), +6
        // gives β′(34) = 30; slice 0's offset must not matter.
        pic.qpY = pic.qpY.map { _ in 22 }
        pic.slices = [F.slice(beta: 6), F.slice(beta: -6)]
        #expect(F.production(samples, pic) == samples)
        pic.slices = [F.slice(beta: -6), F.slice(beta: 6)]
        #expect(F.production(samples, pic) != samples)
    }

    @Test func deblockingDisabledSliceSkipsEdgesWithQ0InIt() {
        // Edge at x = 16 between CTB 0 (slice 0) and CTB 1 (slice 1), marked in the map.
        var pic = F.plain(width: 32, height: 16, format: .monochrome)
        for by in 0..<4 { pic.edges[by * 8 + 4] = HEVCFilterMap.verticalEdge }
        pic.sliceOfCtb = [0, 1]
        let row = [Int](repeating: 100, count: 16) + [Int](repeating: 110, count: 16)
        let samples = [[[Int]](repeating: row, count: 16)]
        pic.slices = [F.slice(), F.slice(deblockingDisabled: true)]
        #expect(F.production(samples, pic) == samples)
        // The disabled slice on the p side does not stop the edge of slice 1's coding unit.
        pic.slices = [F.slice(deblockingDisabled: true), F.slice()]
        let out = F.production(samples, pic)
        #expect(out[0][0][15] == 103 && out[0][0][16] == 107)
    }

    @Test func horizontalEdgesSeeVerticallyFilteredSamples() {
        // A 16×16 picture split in four flat quadrants; both edges marked everywhere.
        var pic = F.plain(width: 16, height: 16, format: .monochrome)
        for i in 0..<16 where i % 4 == 2 { pic.edges[i] |= HEVCFilterMap.verticalEdge }
        for i in 8..<12 { pic.edges[i] |= HEVCFilterMap.horizontalEdge }
        pic.qpY = pic.qpY.map { _ in 40 }
        // Quadrants plus a little texture.
        let samples: F.Samples = [(0..<16).map { y in
            (0..<16).map { x in (x < 8 ? 60 : 80) + (y < 8 ? 0 : 30) + (x &* 7 &+ y &* y &* 13) % 5 }
        }]
        var stats = LoopFilterModel.Stats()
        let expected = F.model(samples, pic, stats: &stats)
        #expect(F.production(samples, pic) == expected)
        // Vertical-only filtering followed by horizontal-only must equal the combined run.
        var vOnly = pic
        vOnly.edges = pic.edges.map { $0 & HEVCFilterMap.verticalEdge }
        var hOnly = pic
        hOnly.edges = pic.edges.map { $0 & HEVCFilterMap.horizontalEdge }
        #expect(F.production(F.production(samples, vOnly), hOnly) == expected)
    }

    // MARK: Chroma deblocking by hand

    @Test func chromaFilterOn420Grid() {
        // 32×16 luma, 4:2:0: chroma 16×8. Luma vertical edges at x = 8, 16, 24; chroma filters
        // only x = 16 (chroma 8). qPi = 30 → QpC 29 → tC′(31) = 3.
        // Δ = (((110 - 120) << 2) + 120 - 110 + 4) >> 3 = -4 → -3.
        var pic = F.plain(width: 32, height: 16, format: .yuv420)
        for by in 0..<4 { for bx in [2, 4, 6] { pic.edges[by * 8 + bx] = HEVCFilterMap.verticalEdge } }
        var samples = F.flat(pic, value: 100)
        for c in 1...2 { for y in 0..<8 { for x in 0..<16 { samples[c][y][x] = x < 4 ? 100 : x < 8 ? 120 : x < 12 ? 110 : 130 } } }
        samples[0] = [[Int]](repeating: [Int](repeating: 100, count: 32), count: 16)
        let out = F.production(samples, pic)
        for c in 1...2 {
            for y in 0..<8 {
                #expect(out[c][y] == [100, 100, 100, 100, 120, 120, 120, 117, 113, 110, 110, 110, 130, 130, 130, 130])
            }
        }
        // cQpPicOffset: pps_cr_qp_offset +12 → qPi 42 → QpC 37 → tC′(39) = 5: Δ = -4 unclipped
        // on Cr only.
        pic.crQpOffset = 12
        let offset = F.production(samples, pic)
        #expect(offset[1] == out[1])
        #expect(offset[2][0][7] == 116 && offset[2][0][8] == 114)
    }

    @Test func chromaQpUsesMinFor422And444() {
        for format in [HEVCChromaFormat.yuv422, .yuv444] {
            var pic = F.plain(width: 32, height: 32, format: format)
            for i in 0..<pic.edges.count where (i % 8) % 2 == 0 && i % 8 > 0 { pic.edges[i] |= HEVCFilterMap.verticalEdge }
            for i in 0..<pic.edges.count where (i / 8) % 2 == 0 && i / 8 > 0 { pic.edges[i] |= HEVCFilterMap.horizontalEdge }
            pic.qpY = pic.qpY.map { _ in 38 }
            pic.cbQpOffset = 4
            var samples = F.flat(pic, value: 0)
            for c in 0..<3 { for y in 0..<samples[c].count { for x in 0..<samples[c][0].count {
                samples[c][y][x] = 100 + ((x / 8 + y / 8) % 2) * 12
            } } }
            var stats = LoopFilterModel.Stats()
            let expected = F.model(samples, pic, stats: &stats)
            #expect(F.production(samples, pic) == expected, "\(format)")
            #expect(stats.chroma > 0)
        }
    }

    // MARK: SAO by hand

    /// A 16×16 luma-only picture, one CTB, SAO as given.
    private func saoPicture(type: UInt8, offsets: SIMD4<Int16>, band: UInt8 = 0, edgeClass: UInt8 = 0,
                            bitDepth: Int = 8) -> LoopFilterModel.Picture {
        var pic = F.plain(width: 16, height: 16, format: .monochrome, bitDepth: bitDepth)
        pic.sao[0].typeIndex.0 = type
        pic.sao[0].offsets.0 = offsets
        pic.sao[0].bandPosition.0 = band
        pic.sao[0].edgeClass.0 = edgeClass
        return pic
    }

    @Test func saoBandOffset() {
        let pic = saoPicture(type: 1, offsets: SIMD4(1, 2, -3, 4), band: 12)
        let values = [95, 96, 103, 104, 111, 112, 119, 120, 127, 128, 0, 255]
        let expected = [95, 97, 104, 106, 113, 109, 116, 124, 131, 128, 0, 255]
        var samples: F.Samples = [[[Int]](repeating: [Int](repeating: 50, count: 16), count: 16)]
        for (i, v) in values.enumerated() { samples[0][3][i] = v }
        let out = F.production(samples, pic)
        #expect(Array(out[0][3][0..<12]) == expected)
        #expect(out[0][0][0] == 50)
        // Band position 30 wraps: bands 30, 31, 0, 1; clipping at both ends.
        let wrap = saoPicture(type: 1, offsets: SIMD4(7, 7, -7, -7), band: 30)
        var edge: F.Samples = [[[Int]](repeating: [Int](repeating: 50, count: 16), count: 16)]
        edge[0][0][0] = 250; edge[0][0][1] = 3; edge[0][0][2] = 9; edge[0][0][3] = 16; edge[0][0][4] = 241
        let wrapped = F.production(edge, wrap)
        #expect(Array(wrapped[0][0][0..<5]) == [255, 0, 2, 16, 248])
    }

    @Test func saoBandOffsetTenBit() {
        let pic = saoPicture(type: 1, offsets: SIMD4(-31, 1, 2, 31), band: 31, bitDepth: 10)
        var samples: F.Samples = [[[Int]](repeating: [Int](repeating: 500, count: 16), count: 16)]
        samples[0][5][5] = 1023; samples[0][5][6] = 992; samples[0][5][7] = 991; samples[0][5][8] = 0; samples[0][5][9] = 95
        let out = F.production(samples, pic)
        #expect(Array(out[0][5][5..<10]) == [992, 961, 991, 1, 126])
    }

    @Test func saoEdgeClasses() {
        // A single peak at (6, 6) and a valley at (10, 10) in a flat field of 100.
        var samples: F.Samples = [[[Int]](repeating: [Int](repeating: 100, count: 16), count: 16)]
        samples[0][6][6] = 110
        samples[0][10][10] = 90
        for edgeClass in UInt8(0)...3 {
            let pic = saoPicture(type: 2, offsets: SIMD4(5, 3, -3, -5), edgeClass: edgeClass)
            let out = F.production(samples, pic)
            // Local max → edgeIdx 4; local min → edgeIdx 1.
            #expect(out[0][6][6] == 105)
            #expect(out[0][10][10] == 95)
            // The peak's neighbours along the class direction are concave corners (edgeIdx 2: one
            // neighbour higher, one equal); off the direction they see no edge.
            let (h, v) = [(1, 0), (0, 1), (1, 1), (-1, 1)][Int(edgeClass)]
            #expect(out[0][6 + v][6 + h] == 103)
            #expect(out[0][6 - v][6 - h] == 103)
            #expect(out[0][10 + v][10 + h] == 97)
            let (oh, ov) = [(0, 1), (1, 0), (1, -1), (1, 1)][Int(edgeClass)]
            #expect(out[0][6 + ov][6 + oh] == 100)
            var stats = LoopFilterModel.Stats()
            #expect(out == F.model(samples, pic, stats: &stats))
        }
    }

    @Test func saoLeavesPictureBorderSamples() {
        // Class 0 on a column pattern that makes every sample an edge: columns 0 and 15 keep theirs.
        var samples: F.Samples = [(0..<16).map { _ in (0..<16).map { $0 % 2 == 0 ? 100 : 120 } }]
        samples[0][0][0] = 100
        let pic = saoPicture(type: 2, offsets: SIMD4(5, 3, -3, -5), edgeClass: 0)
        let out = F.production(samples, pic)
        for y in 0..<16 {
            #expect(out[0][y][0] == 100 && out[0][y][15] == 120)
            #expect(out[0][y][2] == 105 && out[0][y][13] == 115)
        }
        // Class 1 on rows: rows 0 and 15 keep theirs.
        let rows: F.Samples = [(0..<16).map { y in [Int](repeating: y % 2 == 0 ? 100 : 120, count: 16) }]
        let vertical = F.production(rows, saoPicture(type: 2, offsets: SIMD4(5, 3, -3, -5), edgeClass: 1))
        #expect(vertical[0][0] == rows[0][0] && vertical[0][15] == rows[0][15])
        #expect(vertical[0][1] == [Int](repeating: 115, count: 16))
    }

    /// Two 16×16 CTBs side by side with a column pattern crossing the border at x = 16.
    private func twoCtbSAO(slices: [HEVCSliceFilterParameters], sliceOfCtb: [Int], tiles: Bool = false,
                           acrossTiles: Bool = true) -> (F.Samples, F.Samples) {
        var pic = F.plain(width: 32, height: 16, format: .monochrome)
        pic.slices = slices
        pic.sliceOfCtb = sliceOfCtb
        if tiles { pic.colBd = [0, 1, 2] }
        pic.loopFilterAcrossTiles = acrossTiles
        for ctb in 0..<2 {
            pic.sao[ctb].typeIndex.0 = 2
            pic.sao[ctb].offsets.0 = SIMD4(5, 3, -3, -5)
        }
        let samples: F.Samples = [(0..<16).map { _ in (0..<32).map { $0 % 2 == 0 ? 100 : 120 } }]
        var stats = LoopFilterModel.Stats()
        let out = F.production(samples, pic)
        #expect(out == F.model(samples, pic, stats: &stats))
        return (samples, out)
    }

    @Test func saoSliceBorderFollowsTheLaterSlicesFlag() {
        // Slice 1 (later) forbids filtering across: neither x = 15 nor x = 16 changes.
        var (_, out) = twoCtbSAO(slices: [F.slice(across: true), F.slice(across: false)], sliceOfCtb: [0, 1])
        #expect(out[0][4][15] == 120 && out[0][4][16] == 100)
        #expect(out[0][4][14] == 105 && out[0][4][17] == 115)
        // Slice 0 (earlier) forbids, slice 1 allows: both change.
        (_, out) = twoCtbSAO(slices: [F.slice(across: false), F.slice(across: true)], sliceOfCtb: [0, 1])
        #expect(out[0][4][15] == 115 && out[0][4][16] == 105)
        // Same slice: the flag plays no part.
        (_, out) = twoCtbSAO(slices: [F.slice(across: false)], sliceOfCtb: [0, 0])
        #expect(out[0][4][15] == 115 && out[0][4][16] == 105)
    }

    @Test func saoTileBorder() {
        var (_, out) = twoCtbSAO(slices: [F.slice()], sliceOfCtb: [0, 0], tiles: true, acrossTiles: false)
        #expect(out[0][4][15] == 120 && out[0][4][16] == 100)
        (_, out) = twoCtbSAO(slices: [F.slice()], sliceOfCtb: [0, 0], tiles: true, acrossTiles: true)
        #expect(out[0][4][15] == 115 && out[0][4][16] == 105)
    }

    @Test func saoRespectsKeepsSamplesAndSliceFlags() {
        var pic = saoPicture(type: 1, offsets: SIMD4(4, 4, 4, 4), band: 12)
        pic.keeps[5] = true  // luma 4×4 at (4, 4)
        let samples: F.Samples = [[[Int]](repeating: [Int](repeating: 100, count: 16), count: 16)]
        let out = F.production(samples, pic)
        for y in 0..<16 { for x in 0..<16 {
            #expect(out[0][y][x] == ((4..<8).contains(x) && (4..<8).contains(y) ? 100 : 104))
        } }
        pic.slices = [F.slice(saoLuma: false)]
        #expect(F.production(samples, pic) == samples)
    }

    @Test func saoChromaKeepsSamplesMapThroughSubsampling() {
        var pic = F.plain(width: 32, height: 32, format: .yuv420)
        pic.sao[0].typeIndex = (1, 1, 1)
        pic.sao[0].offsets = (SIMD4(repeating: 3), SIMD4(repeating: 3), SIMD4(repeating: 3))
        pic.sao[0].bandPosition = (12, 12, 12)
        pic.keeps[1 * 8 + 2] = true  // luma 4×4 at (8, 4) → chroma (4..5, 2..3)
        let samples = F.flat(pic, value: 100)
        let out = F.production(samples, pic)
        var stats = LoopFilterModel.Stats()
        #expect(out == F.model(samples, pic, stats: &stats))
        #expect(out[1][2][4] == 100 && out[1][3][5] == 100 && out[1][2][6] == 103 && out[1][1][4] == 103)
        pic.slices = [F.slice(saoChroma: false)]
        let lumaOnly = F.production(samples, pic)
        #expect(lumaOnly[1] == samples[1] && lumaOnly[2] == samples[2] && lumaOnly[0] != samples[0])
    }

    // MARK: Against the literal model

    @Test(arguments: [
        (HEVCChromaFormat.yuv420, 8, 4, 72, 56), (.yuv420, 8, 5, 96, 80), (.yuv420, 10, 4, 80, 48),
        (.yuv422, 8, 4, 72, 40), (.yuv422, 10, 5, 64, 72), (.yuv444, 8, 4, 56, 48), (.yuv444, 10, 4, 48, 56),
        (.monochrome, 8, 4, 64, 40), (.monochrome, 12, 4, 40, 64), (.yuv420, 8, 6, 136, 72),
    ])
    func matchesLiteralModel(format: HEVCChromaFormat, bitDepth: Int, log2Ctb: Int, width: Int, height: Int) {
        var total = LoopFilterModel.Stats()
        var saoChanged = 0
        for seed in UInt64(1)...12 {
            let (pic, samples) = F.random(seed: seed &* 7919 &+ UInt64(width), width: width, height: height,
                                          format: format, bitDepth: bitDepth, log2CtbSize: log2Ctb)
            // Deblocking alone first (SAO off), then both.
            var noSAO = pic
            noSAO.sao = pic.sao.map { _ in HEVCSAOParameters() }
            var stats = LoopFilterModel.Stats()
            let deblocked = F.model(samples, noSAO, stats: &stats)
            let ours = F.production(samples, noSAO)
            let d1 = F.differences(ours, deblocked)
            #expect(d1.allSatisfy { $0 == 0 }, "deblocking seed \(seed): differing samples per plane \(d1)")
            var ignored = LoopFilterModel.Stats()
            let expected = F.model(samples, pic, stats: &ignored)
            let both = F.production(samples, pic)
            let d2 = F.differences(both, expected)
            #expect(d2.allSatisfy { $0 == 0 }, "deblocking + SAO seed \(seed): differing samples per plane \(d2)")
            saoChanged += F.differences(expected, deblocked).reduce(0, +)
            total.strong += stats.strong; total.normal += stats.normal; total.normalWithP1 += stats.normalWithP1
            total.noFilter += stats.noFilter; total.chroma += stats.chroma
        }
        print("loop filter model \(format) \(bitDepth)-bit CTB \(1 << log2Ctb) \(width)×\(height): luma segments strong \(total.strong), normal \(total.normal) (\(total.normalWithP1) with p1), unfiltered \(total.noFilter); chroma segments \(total.chroma); samples SAO changed \(saoChanged)")
        #expect(total.strong > 0 && total.normal > 0 && total.noFilter > 0)
        #expect(saoChanged > 0)
        if format != .monochrome { #expect(total.chroma > 0) }
    }
}

/// Throughput of the production filters on a 1080p-class 4:2:0 picture with every 8×8 edge
/// marked (the worst case for deblocking) and SAO on every CTB; prints the figures.
@Suite struct HEVCLoopFilterSpeedTests {
    @Test func throughputOn1080p() {
        let width = 1920, height = 1088, log2Ctb = 6
        var map = HEVCFilterMap(width: width, height: height, log2CtbSize: log2Ctb, loopFilterAcrossTiles: true,
                                cbQpOffset: 0, crQpOffset: 0)
        let w4 = map.widthIn4
        for i in 0..<map.edges.count {
            let bx = i % w4, by = i / w4
            map.edges[i] = (bx % 2 == 0 && bx > 0 ? HEVCFilterMap.verticalEdge : 0)
                | (by % 2 == 0 && by > 0 ? HEVCFilterMap.horizontalEdge : 0)
        }
        map.qpY = map.qpY.map { _ in 32 }
        map.slices = [LoopFilterFixtures.slice()]
        for ctb in 0..<map.sao.count {
            var p = HEVCSAOParameters()
            let type: UInt8 = ctb % 3 == 0 ? 1 : 2
            p.typeIndex = (type, type, type)
            p.offsets = (SIMD4(3, 1, -1, -3), SIMD4(2, 1, -1, -2), SIMD4(2, 1, -1, -2))
            p.bandPosition = (14, 14, 14)
            p.edgeClass = (UInt8(ctb % 4), UInt8(ctb % 4), UInt8((ctb + 1) % 4))
            map.sao[ctb] = p
        }
        var rng = SplitMix64(seed: 42)
        func plane(_ w: Int, _ h: Int) -> HEVCPlane {
            var s = [UInt16](repeating: 0, count: w * h)
            for y in 0..<h { for x in 0..<w {
                s[y * w + x] = UInt16(100 + (x / 8 + y / 8) % 5 * 3 + (x * 7 + y * 3) % 5 + Int(rng.next() % 3))
            } }
            return HEVCPlane(width: w, height: h, samples: s)
        }
        let original = [plane(width, height), plane(width / 2, height / 2), plane(width / 2, height / 2)]
        var noSAO = map
        noSAO.sao = map.sao.map { _ in HEVCSAOParameters() }
        var noDeblock = map
        noDeblock.edges = map.edges.map { _ in 0 }
        let clock = ContinuousClock()
        for (name, m) in [("deblocking", noSAO), ("SAO", noDeblock), ("both", map)] {
            var best = Duration.seconds(100)
            for _ in 0..<5 {
                var planes = original
                let t = clock.measure {
                    HEVCLoopFilter.apply(to: &planes, map: m, chromaFormat: .yuv420, bitDepthLuma: 8, bitDepthChroma: 8)
                }
                best = min(best, t)
                #expect(planes != original)
            }
            let ms = Double(best.components.attoseconds) / 1e15 + Double(best.components.seconds) * 1e3
            print("loop filter speed \(name): \(width)×\(height) 4:2:0 8-bit in \(ms) ms (\(Double(width * height) / ms / 1000) MP/s)")
        }
    }
}
