import Testing
@testable import ImageCodec

// Every kernel of `HEVCKernelDispatch` run both ways, the portable build and the AVX2 build of
// the same source, on random and real input, against the scalar code they replace: the
// outputs must be identical, including the values around the output (a kernel must not write
// past its block or row). On a CPU without AVX2 the AVX2 set is nil and the portable set is
// checked twice; the conformance suites cover whichever set the process selected (CI runs them
// once more with GALLERY_PORTABLE_KERNELS=1).

/// Both sets where this CPU has both; the portable set twice otherwise.
private let sets = [HEVCKernelDispatch.portable, HEVCKernelDispatch.avx2 ?? HEVCKernelDispatch.portable]

/// The residual of one coefficient block by the scalar transform and by `kernel`, each in a
/// buffer with 16 guard values after the block.
private func residuals(_ d: [Int32], log2Size: Int, bitDepth: Int, maxRow: Int, maxColumn: Int,
                       _ kernel: HEVCKernelDispatch.InverseDCT?) -> [Int32] {
    let n = 1 << log2Size
    var coefficients = d
    var r = [Int32](repeating: 0x5A5A, count: n * n + 16)
    coefficients.withUnsafeMutableBufferPointer { c in
        r.withUnsafeMutableBufferPointer { out in
            if let kernel {
                HEVCInverseTransform.dct32.withUnsafeBufferPointer { t in
                    kernel(c.baseAddress!, out.baseAddress!, log2Size, Int32(20 - bitDepth), maxRow, maxColumn, t.baseAddress!)
                }
            } else {
                HEVCInverseTransform.inverse(c.baseAddress!, into: out.baseAddress!, log2Size: log2Size, dst: false, bitDepth: bitDepth,
                                             maxRow: maxRow, maxColumn: maxColumn)
            }
        }
    }
    return r
}

/// Mismatches of both sets against the scalar transform on one block.
private func transformMismatches(_ d: [Int32], log2Size: Int, bitDepth: Int) -> Int {
    let n = 1 << log2Size
    var maxRow = 0, maxColumn = 0
    for i in d.indices where d[i] != 0 { maxRow = max(maxRow, i / n); maxColumn = max(maxColumn, i % n) }
    let reference = residuals(d, log2Size: log2Size, bitDepth: bitDepth, maxRow: maxRow, maxColumn: maxColumn, nil)
    return sets.filter { residuals(d, log2Size: log2Size, bitDepth: bitDepth, maxRow: maxRow, maxColumn: maxColumn, $0.inverseDCT) != reference }.count
}

/// The block sums of rows `y0..<y1`, columns `x0..<x0+count` of 8-bit 4:2:0 planes reduced by
/// `factor` (phases `phaseX`, `phaseY`): by `kernels` (the sequence `drawReduced` runs), or,
/// for nil, by the converter's RGB rows added pixel by pixel (the general path).
private func blockSums(y: [UInt16], cb: [UInt16], cr: [UInt16], width: Int, chromaWidth: Int, x0: Int, count: Int, y0: Int, y1: Int,
                       factor f: Int, phaseX: Int, phaseY: Int, _ kernels: HEVCKernelDispatch?) -> [UInt32] {
    let converter = HEIFColourConverter(chroma: .yuv420, bitDepthLuma: 8, bitDepthChroma: 8, nclx: nil,
                                        signal: HEVCVideoSignal(fullRange: true, matrixCoefficients: 1))
    precondition(converter.fixedPoint)
    let outW = (count + phaseX + f - 1) / f, outH = (y1 - y0 + phaseY + f - 1) / f
    var sums = [UInt32](repeating: 0, count: outW * outH * 3)
    y.withUnsafeBufferPointer { yp in
        cb.withUnsafeBufferPointer { cbp in
            cr.withUnsafeBufferPointer { crp in
                sums.withUnsafeMutableBufferPointer { s in
                    guard let kernels else {
                        var row = [UInt8](repeating: 0, count: count * 3)
                        for line in y0..<y1 {
                            row.withUnsafeMutableBufferPointer { rp in
                                converter.convertRow(y: yp.baseAddress!, cb: cbp.baseAddress, cr: crp.baseAddress, row: line, x0: x0, count: count,
                                                     width: width, chromaWidth: chromaWidth, out: rp.baseAddress!, stride: 3)
                            }
                            let band = (line - y0 + phaseY) / f * outW * 3
                            for i in 0..<count {
                                for k in 0..<3 { s[band + (i + phaseX) / f * 3 + k] += UInt32(row[i * 3 + k]) }
                            }
                        }
                        return
                    }
                    let k = HEIFReductionLanes.Coefficients(iR: Int32(converter.iR), iGb: Int32(converter.iGb), iGr: Int32(converter.iGr),
                                                            iB: Int32(converter.iB))
                    // Guard values after each plane of column sums must survive.
                    let pitch = count + 16
                    var columnSums = [UInt16](repeating: 0, count: 3 * pitch)
                    var terms = [Int16](repeating: 0, count: 3 * pitch)
                    for plane in 0..<3 { for g in count..<pitch { columnSums[plane * pitch + g] = 0x5A5A } }
                    columnSums.withUnsafeMutableBufferPointer { cs in
                        terms.withUnsafeMutableBufferPointer { tp in
                            var blockRow = -1, rows = 0
                            for line in y0..<y1 {
                                let by = (line - y0 + phaseY) / f
                                if by != blockRow && rows > 0 {
                                    kernels.heifFlush(cs.baseAddress!, pitch, count, 0, phaseX, f, s.baseAddress! + blockRow * outW * 3)
                                    rows = 0
                                }
                                blockRow = by
                                let c = (line >> 1) * chromaWidth
                                HEIFReductionLanes.chromaTerms(cb: cbp.baseAddress! + c, cr: crp.baseAddress! + c, x0: x0, count: count, k,
                                                               terms: tp.baseAddress!, pitch: pitch)
                                kernels.heifAddRow(yp.baseAddress! + line * width + x0, count, tp.baseAddress! + (x0 & 1), cs.baseAddress!, pitch)
                                rows += 1
                            }
                            if rows > 0 { kernels.heifFlush(cs.baseAddress!, pitch, count, 0, phaseX, f, s.baseAddress! + blockRow * outW * 3) }
                        }
                    }
                    for plane in 0..<3 { for g in count..<pitch where columnSums[plane * pitch + g] != 0x5A5A { s[0] &+= 1_000_000 } }
                }
            }
        }
    }
    return sums
}

/// Planar prediction of an n×n block from reference line `p` (4n + 1 values, `predictIntra`'s
/// layout) by `kernel`, or for nil by the formula of H.265 8.4.4.2.5 written out per sample,
/// into rows `n + 5` apart whose gaps hold guard values.
private func planar(_ p: [Int32], log2Size: Int, _ kernel: HEVCKernelDispatch.IntraPlanar?) -> [UInt16] {
    let n = 1 << log2Size, stride = n + 5, c = 2 * n
    var out = [UInt16](repeating: 0xA5A5, count: stride * n + 8)
    guard let kernel else {
        for y in 0..<n { for x in 0..<n {
            let v = Int32(n - 1 - x) * p[c - 1 - y] + Int32(x + 1) * p[c + 1 + n] + Int32(n - 1 - y) * p[c + 1 + x]
                + Int32(y + 1) * p[c - 1 - n] + Int32(n)
            out[y * stride + x] = UInt16(v >> Int32(log2Size + 1))
        } }
        return out
    }
    p.withUnsafeBufferPointer { pp in out.withUnsafeMutableBufferPointer { kernel(pp.baseAddress!, log2Size, $0.baseAddress!, stride) } }
    return out
}

@Suite("Kernel dispatch: HEVC and HEIC kernels, portable and AVX2 builds agree")
struct HEVCKernelDispatchTests {
    @Test("the selected set is one of the two")
    func selection() {
        let names = [HEVCKernelDispatch.portable.name] + (HEVCKernelDispatch.avx2.map { [$0.name] } ?? [])
        print("HEVC kernel dispatch: selected \(HEVCKernelDispatch.selected.name), available \(names.joined(separator: ", "))")
        #expect(names.contains(HEVCKernelDispatch.selected.name))
    }

    @Test("inverse DCT 8 to 32: random sparse, dense and extreme blocks equal the scalar butterflies")
    func inverseDCTRandom() {
        var rng = SplitMix64(seed: 265)
        var mismatches = 0
        for trial in 0..<6_000 {
            let log2Size = 3 + trial % 3
            let n = 1 << log2Size
            let bitDepth = [8, 10, 12][trial % 3 == 0 ? rng.int(0...2) : 0]
            var d = [Int32](repeating: 0, count: n * n)
            let rows = rng.int(1...n), columns = rng.int(1...n)
            let density = [3, 20, 60, 100][trial % 4]
            let limit = trial % 5 == 0 ? 32_768 : [64, 600, 4000][trial % 3]
            for y in 0..<rows { for x in 0..<columns where (x == 0 && y == 0) || rng.int(0...99) < density {
                d[y * n + x] = Int32(max(-32_768, min(32_767, rng.int(-limit...limit))))
            } }
            mismatches += transformMismatches(d, log2Size: log2Size, bitDepth: bitDepth)
        }
        #expect(mismatches == 0)
    }

    @Test("inverse DCT 8 to 32: blocks of a real picture, forward-transformed and quantised")
    func inverseDCTReal() throws {
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let config = graph.primary.configuration
        let data = try graph.container.data(of: graph.primary.tiles[20].itemID, limits: .default)
        let picture = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize)
        let plane = picture.planes[0]
        let m = HEVCInverseTransform.dct32
        var blocks = 0, mismatches = 0
        for log2Size in 3...5 {
            let n = 1 << log2Size, step = 32 >> log2Size
            for by in stride(from: 0, to: plane.samples.count / plane.width - n, by: n) {
                for bx in stride(from: 0, to: plane.width - n, by: n) {
                    // Residual: the block minus its left neighbour column (a crude prediction).
                    var x = [Int](repeating: 0, count: n * n)
                    for i in 0..<n { for j in 0..<n {
                        x[i * n + j] = Int(plane.samples[(by + i) * plane.width + bx + j]) - Int(plane.samples[(by + i) * plane.width + max(0, bx - 1)])
                    } }
                    // Forward DCT (H.265's shifts for 8 bits), then a coarse quantiser.
                    var tmp = [Int](repeating: 0, count: n * n), d = [Int32](repeating: 0, count: n * n)
                    for k in 0..<n { for j in 0..<n {
                        var s = 0
                        for i in 0..<n { s += Int(m[k * step * 32 + i]) * x[i * n + j] }
                        tmp[k * n + j] = s >> (log2Size - 1)
                    } }
                    let q = [1, 12, 48][(bx / n + by / n) % 3]
                    for k in 0..<n { for l in 0..<n {
                        var s = 0
                        for j in 0..<n { s += Int(m[l * step * 32 + j]) * tmp[k * n + j] }
                        d[k * n + l] = Int32(max(-32_768, min(32_767, (s >> (log2Size + 6)) / q * q)))
                    } }
                    blocks += 1
                    mismatches += transformMismatches(d, log2Size: log2Size, bitDepth: 8)
                }
            }
        }
        #expect(blocks > 300)
        #expect(mismatches == 0)
    }

    @Test("planar intra prediction 4 to 32: random reference lines of 8 to 16 bits and lines of a real picture")
    func planarPrediction() throws {
        var rng = SplitMix64(seed: 8442)
        var lines: [(log2Size: Int, p: [Int32])] = []
        for trial in 0..<2_000 {
            let log2Size = 2 + trial % 4, bits = [8, 10, 16][trial % 3]
            lines.append((log2Size, (0...(4 << log2Size)).map { _ in Int32(rng.int(0...(1 << bits) - 1)) }))
        }
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let config = graph.primary.configuration
        let data = try graph.container.data(of: graph.primary.tiles[30].itemID, limits: .default)
        let picture = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize)
        let plane = picture.planes[0]
        for row in stride(from: 0, to: 400, by: 3) {
            let log2Size = 2 + row % 4
            lines.append((log2Size, (0...(4 << log2Size)).map { Int32(plane.samples[row * plane.width + $0]) }))
        }
        var mismatches = 0
        for (log2Size, p) in lines {
            let reference = planar(p, log2Size: log2Size, nil)
            mismatches += sets.filter { planar(p, log2Size: log2Size, $0.intraPlanar) != reference }.count
        }
        #expect(mismatches == 0)
    }

    @Test("residual plus prediction 4 to 32: random residuals over random and real samples, 8 to 12 bits, clipped as 8.6.7")
    func addResidual() throws {
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let config = graph.primary.configuration
        let data = try graph.container.data(of: graph.primary.tiles[40].itemID, limits: .default)
        let real = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize).planes[0]
        var rng = SplitMix64(seed: 867)
        var mismatches = 0
        for trial in 0..<3_000 {
            let log2Size = 2 + trial % 4, n = 1 << log2Size, stride = n + 3
            let bitDepth = [8, 10, 12][trial % 3], maxValue = (1 << bitDepth) - 1
            let spread = [8, 300, 70_000][trial % 3]
            let residual = (0..<n * n).map { _ in Int32(rng.int(-spread...spread)) }
            var plane = [UInt16](repeating: 0xA5A5, count: stride * n + 8)
            for y in 0..<n { for x in 0..<n {
                plane[y * stride + x] = trial % 2 == 0 ? UInt16(rng.int(0...maxValue))
                    : real.samples[(y + trial % 64) * real.width + x + trial % 100]
            } }
            var expected = plane
            for y in 0..<n { for x in 0..<n {
                expected[y * stride + x] = UInt16(min(max(Int32(plane[y * stride + x]) + residual[y * n + x], 0), Int32(maxValue)))
            } }
            for set in sets {
                var out = plane
                residual.withUnsafeBufferPointer { r in
                    out.withUnsafeMutableBufferPointer { set.addResidual(r.baseAddress!, $0.baseAddress!, stride, log2Size, Int32(maxValue)) }
                }
                if out != expected { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("HEIC reduction rows: random 8-bit 4:2:0 planes, odd and even starts, factors 1 to 20, equal the converter's sums")
    func reductionRandom() {
        var rng = SplitMix64(seed: 27)
        var mismatches = 0
        for trial in 0..<300 {
            let width = rng.int(2...90), height = rng.int(2...40)
            let chromaWidth = (width + 1) / 2
            let y = (0..<width * height).map { _ in UInt16(rng.int(0...255)) }
            let cb = (0..<chromaWidth * (height + 1) / 2).map { _ in UInt16(trial % 4 == 0 ? [0, 255][rng.int(0...1)] : rng.int(0...255)) }
            let cr = (0..<chromaWidth * (height + 1) / 2).map { _ in UInt16(trial % 4 == 0 ? [0, 255][rng.int(0...1)] : rng.int(0...255)) }
            let x0 = rng.int(0...width - 1), count = rng.int(1...width - x0)
            let y0 = rng.int(0...height - 1), y1 = rng.int(y0 + 1...height)
            let f = rng.int(1...20)
            let phaseX = rng.int(0...f - 1), phaseY = rng.int(0...f - 1)
            let reference = blockSums(y: y, cb: cb, cr: cr, width: width, chromaWidth: chromaWidth, x0: x0, count: count, y0: y0, y1: y1,
                                      factor: f, phaseX: phaseX, phaseY: phaseY, nil)
            for set in sets where blockSums(y: y, cb: cb, cr: cr, width: width, chromaWidth: chromaWidth, x0: x0, count: count, y0: y0, y1: y1,
                                            factor: f, phaseX: phaseX, phaseY: phaseY, set) != reference {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test("HEIC reduction rows: an iPhone tile at 1/8 and 1/7, equal the converter's sums")
    func reductionReal() throws {
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let config = graph.primary.configuration
        let data = try graph.container.data(of: graph.primary.tiles[9].itemID, limits: .default)
        let p = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize)
        #expect(p.chromaFormat == .yuv420 && p.bitDepthLuma == 8)
        for (f, x0, phase) in [(8, 0, 0), (7, 3, 5)] {
            let args = (y: p.planes[0].samples, cb: p.planes[1].samples, cr: p.planes[2].samples)
            let reference = blockSums(y: args.y, cb: args.cb, cr: args.cr, width: p.width, chromaWidth: p.planes[1].width, x0: x0,
                                      count: p.width - x0, y0: 1, y1: p.height, factor: f, phaseX: phase, phaseY: phase, nil)
            for set in sets {
                let sums = blockSums(y: args.y, cb: args.cb, cr: args.cr, width: p.width, chromaWidth: p.planes[1].width, x0: x0,
                                     count: p.width - x0, y0: 1, y1: p.height, factor: f, phaseX: phase, phaseY: phase, set)
                #expect(sums == reference, "\(set.name) at 1/\(f)")
            }
        }
    }
}
