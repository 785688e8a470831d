/// The picture being decoded: sample planes (uncropped) and the per-4×4 and per-CTB facts that
/// prediction, context selection and the loop filters look up. Buffers are allocated once,
/// sized from the SPS after the limits check, and reached through pointers in the hot paths.
///
/// A frame holds either the whole picture or, `windowed`, a window of two CTB rows of samples
/// and per-4×4 facts (the row being decoded and the one above it, which intra prediction and the
/// loop filters of the band read); `HEVCRowStream` slides it down as rows finish. Every access
/// goes through `sample(_:x:y:)` and `blockIndex(x4:y4:)`, which subtract the window's first
/// line. Per-CTB facts stay whole-picture: a few dozen bytes per CTB.
final class HEVCFrame {
    let sps: HEVCSequenceParameterSet
    let pps: HEVCPictureParameterSet
    let layout: HEVCTileLayout
    let width: Int
    let height: Int
    let chromaWidth: Int
    let chromaHeight: Int
    let widthIn4: Int
    let heightIn4: Int
    /// Whether the planes and per-4×4 maps hold only `windowLines` luma lines.
    let windowed: Bool
    /// Luma lines the planes hold: `height`, or two CTB rows when windowed.
    let windowLines: Int
    /// Picture luma line held at the top of the planes (negative while the window's upper
    /// CTB row lies above the picture), its chroma line and its 4×4 row. Read per block.
    @exclusivity(unchecked) private(set) var firstLine = 0
    @exclusivity(unchecked) private(set) var firstChromaLine = 0
    @exclusivity(unchecked) private(set) var firstBlockRow = 0
    /// Luma lines from here on are not decoded yet (the next CTB row when windowed).
    @exclusivity(unchecked) private(set) var undecodedLine = 0
    /// Y, Cb, Cr samples (Cb and Cr empty for monochrome), row stride = plane width.
    let planes: [UnsafeMutablePointer<UInt16>]
    /// Per 4×4 luma block: IntraPredModeY (DC for PCM), coding tree depth, QpY.
    let intraMode: UnsafeMutablePointer<UInt8>
    let ctDepth: UnsafeMutablePointer<UInt8>
    let qpY: UnsafeMutablePointer<Int8>
    /// Per 4×4: z-scan order of the block in decoding order (MinTbAddrZs at 4×4 granularity).
    let zOrder: UnsafeMutablePointer<Int32>
    /// Per 4×4: HEVCFilterMap edge bits, and whether the loop filters must keep the samples.
    let edges: UnsafeMutablePointer<UInt8>
    let keepsSamples: UnsafeMutablePointer<Bool>
    /// Per CTB (raster): SliceAddrRs of the slice that decoded it (-1: not decoded yet), the
    /// index of that slice among the picture's slices, and its tile.
    let ctbSliceAddress: UnsafeMutablePointer<Int32>
    let ctbSliceIndex: UnsafeMutablePointer<Int32>
    let ctbTile: UnsafeMutablePointer<Int32>
    /// Per CTB (raster): its SAO parameters. A pointer rather than an array, so that the
    /// two wavefront threads write their own CTBs' entries without sharing an array's storage.
    let sao: UnsafeMutablePointer<HEVCSAOParameters>
    var sliceFilterParameters: [HEVCSliceFilterParameters] = []

    /// Bytes the buffers above take for a `sps`, for the memory estimate.
    static func bufferBytes(_ sps: HEVCSequenceParameterSet) -> Int? {
        let samples = sampleBytes(sps)
        let blocks = DecodeMemoryEstimate.product([(sps.width + 3) / 4, (sps.height + 3) / 4, 10])
        let ctbs = DecodeMemoryEstimate.product([sps.widthInCtbs, sps.heightInCtbs, 64])
        return DecodeMemoryEstimate.sum([samples, blocks, ctbs])
    }

    /// Bytes of the Y, Cb and Cr planes at two bytes a sample: per luma sample 2 (4:0:0),
    /// 3 (4:2:0), 4 (4:2:2) or 6 (4:4:4).
    static func sampleBytes(_ sps: HEVCSequenceParameterSet) -> Int? {
        DecodeMemoryEstimate.product([sps.width, sps.height, [2, 3, 4, 6][sps.chromaFormat.rawValue]])
    }

    /// Bytes a windowed frame and the band `HEVCRowStream` filters take: two CTB rows of
    /// samples and per-4×4 facts, their copy for the filters (samples and 3 bytes per 4×4),
    /// SAO's line band, and per CTB its facts, SAO parameters and tile-scan tables (< 96 bytes).
    static func windowBytes(_ sps: HEVCSequenceParameterSet) -> Int? {
        let lines = 2 * sps.ctbSize
        let samples = DecodeMemoryEstimate.product([sps.width, lines, [2, 3, 4, 6][sps.chromaFormat.rawValue], 2])
        let blocks = DecodeMemoryEstimate.product([(sps.width + 3) / 4, lines / 4, 10 + 3])
        let saoBand = DecodeMemoryEstimate.product([sps.width, sps.ctbSize + 2, 2])
        let ctbs = DecodeMemoryEstimate.product([sps.widthInCtbs, sps.heightInCtbs, 96])
        return DecodeMemoryEstimate.sum([samples, blocks, saoBand, ctbs])
    }

    /// Whether a picture of this layout can be decoded in a window: CTBs then arrive in raster
    /// order, which holds with a single tile column.
    static func canWindow(_ layout: HEVCTileLayout) -> Bool { layout.columnBoundaries.count == 2 }

    init(sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet, layout: HEVCTileLayout, windowed: Bool = false) {
        self.sps = sps
        self.pps = pps
        self.layout = layout
        width = sps.width
        height = sps.height
        let (sx, sy) = sps.chromaFormat.subsampling
        chromaWidth = sps.chromaFormat == .monochrome ? 0 : width / sx
        chromaHeight = sps.chromaFormat == .monochrome ? 0 : height / sy
        widthIn4 = (width + 3) / 4
        heightIn4 = (height + 3) / 4
        self.windowed = windowed
        windowLines = windowed ? 2 * sps.ctbSize : height
        let heldChromaLines = sps.chromaFormat == .monochrome ? 0 : windowLines / sy
        let heldBlockRows = windowed ? windowLines / 4 : heightIn4
        func alloc<T>(_ count: Int, _ value: T) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
            p.initialize(repeating: value, count: max(count, 1))
            return p
        }
        let lumaMid = UInt16(1 << (sps.bitDepthLuma - 1))
        let chromaMid = UInt16(1 << (sps.bitDepthChroma - 1))
        var planes = [alloc(width * windowLines, lumaMid)]
        if sps.chromaFormat != .monochrome {
            planes.append(alloc(chromaWidth * heldChromaLines, chromaMid))
            planes.append(alloc(chromaWidth * heldChromaLines, chromaMid))
        }
        self.planes = planes
        let blocks = widthIn4 * heldBlockRows
        intraMode = alloc(blocks, 1)
        ctDepth = alloc(blocks, 0)
        qpY = alloc(blocks, 0)
        zOrder = alloc(blocks, 0)
        edges = alloc(blocks, 0)
        keepsSamples = alloc(blocks, false)
        let ctbs = layout.widthInCtbs * layout.heightInCtbs
        ctbSliceAddress = alloc(ctbs, -1)
        ctbSliceIndex = alloc(ctbs, 0)
        ctbTile = alloc(ctbs, 0)
        sao = alloc(ctbs, HEVCSAOParameters())
        for ts in 0..<ctbs { ctbTile[layout.tsToRs[ts]] = Int32(layout.tileIdOfTs[ts]) }
        if windowed {
            // The upper CTB row of the window starts above the picture; the lower one is row 0.
            moveWindow(to: -sps.ctbSize)
        } else {
            undecodedLine = height
            fillZOrder(blockRows: 0..<heightIn4)
        }
    }

    /// Points the window at picture lines `line ..< line + windowLines` (`line` a multiple of
    /// the CTB size), keeping the lines both windows share and resetting the others, and
    /// derives the z-scan order of the new 4×4 rows.
    func moveWindow(to line: Int) {
        let (_, sy) = sps.chromaFormat.subsampling
        let shift = line - firstLine
        let keep = shift <= 0 || shift >= windowLines ? 0 : windowLines - shift
        let chromaKeep = keep / sy, chromaLines = windowLines / sy
        let lumaMid = UInt16(1 << (sps.bitDepthLuma - 1)), chromaMid = UInt16(1 << (sps.bitDepthChroma - 1))
        for (i, p) in planes.enumerated() {
            let w = i == 0 ? width : chromaWidth
            let held = i == 0 ? keep : chromaKeep, total = i == 0 ? windowLines : chromaLines
            if held > 0 && held < total { p.update(from: p + (total - held) * w, count: held * w) }
            (p + held * w).update(repeating: i == 0 ? lumaMid : chromaMid, count: (total - held) * w)
        }
        let rows = windowLines / 4, keptRows = keep / 4
        func slide<T>(_ p: UnsafeMutablePointer<T>, _ value: T) {
            if keptRows > 0 && keptRows < rows { p.update(from: p + (rows - keptRows) * widthIn4, count: keptRows * widthIn4) }
            (p + keptRows * widthIn4).update(repeating: value, count: (rows - keptRows) * widthIn4)
        }
        slide(intraMode, 1)
        slide(ctDepth, 0)
        slide(qpY, 0)
        slide(zOrder, 0)
        slide(edges, 0)
        slide(keepsSamples, false)
        firstLine = line
        firstChromaLine = line / sy
        firstBlockRow = line >> 2
        undecodedLine = line + windowLines
        let newRows = (line >> 2) + keptRows
        fillZOrder(blockRows: max(0, newRows)..<min(heightIn4, (line >> 2) + rows))
    }

    /// The z-scan order of every 4×4 block in `blockRows`: the CTB's tile-scan address, then
    /// the block's Morton code inside its CTB (x bits on even positions, y bits on odd ones),
    /// read from per-coordinate tables built once per call rather than bit by bit per block.
    private func fillZOrder(blockRows: Range<Int>) {
        let log2Ctb4 = sps.log2CtbSize - 2
        let mask = (1 << log2Ctb4) - 1
        func spread(_ v: Int) -> Int {
            var m = 0
            for bit in 0..<log2Ctb4 { m |= ((v >> bit) & 1) << (2 * bit) }
            return m
        }
        let xBits = (0...mask).map { Int32(spread($0)) }
        let ctbs = layout.widthInCtbs
        xBits.withUnsafeBufferPointer { xb in
            layout.rsToTs.withUnsafeBufferPointer { ts in
                for y4 in blockRows {
                    let yBits = Int32(spread(y4 & mask) << 1)
                    let ctbRow = (y4 >> log2Ctb4) * ctbs
                    let out = zOrder + blockIndex(x4: 0, y4: y4)
                    for x4 in 0..<widthIn4 {
                        let ctb = Int32(truncatingIfNeeded: ts[ctbRow &+ (x4 >> log2Ctb4)] << (2 * log2Ctb4))
                        out[x4] = ctb | xb[x4 & mask] | yBits
                    }
                }
            }
        }
    }

    /// Where 4×4 block (x4, y4) of the picture sits in the per-4×4 maps; the caller keeps it
    /// inside the window (the block being decoded, or a neighbour `available` accepted).
    @inline(__always)
    func blockIndex(x4: Int, y4: Int) -> Int { (y4 &- firstBlockRow) &* widthIn4 &+ x4 }

    /// The sample at (x, y) of `component`, in that component's own sample coordinates.
    @inline(__always)
    func sample(_ component: Int, x: Int, y: Int) -> UnsafeMutablePointer<UInt16> {
        component == 0 ? planes[0] + ((y &- firstLine) &* width &+ x)
                       : planes[component] + ((y &- firstChromaLine) &* chromaWidth &+ x)
    }

    deinit {
        for p in planes { p.deallocate() }
        intraMode.deallocate()
        ctDepth.deallocate()
        qpY.deallocate()
        zOrder.deallocate()
        edges.deallocate()
        keepsSamples.deallocate()
        ctbSliceAddress.deallocate()
        ctbSliceIndex.deallocate()
        ctbTile.deallocate()
        sao.deallocate()
    }

    /// Forgets what decoding CTB rows `ctbRows` wrote besides samples (which a decode of the
    /// rows writes in full), so that they decode again from scratch after a wavefront decode
    /// gave up (`HEVCWavefront`, which runs on whole frames only: `ctbRows` must be held).
    func resetRows(_ ctbRows: Range<Int>) {
        let w = layout.widthInCtbs
        let firstCtb = ctbRows.lowerBound * w, ctbs = ctbRows.count * w
        (ctbSliceAddress + firstCtb).update(repeating: -1, count: ctbs)
        (ctbSliceIndex + firstCtb).update(repeating: 0, count: ctbs)
        (sao + firstCtb).update(repeating: HEVCSAOParameters(), count: ctbs)
        let log2Ctb4 = sps.log2CtbSize - 2
        let firstRow4 = ctbRows.lowerBound << log2Ctb4
        let rows4 = min(heightIn4, ctbRows.upperBound << log2Ctb4) - firstRow4
        guard rows4 > 0 else { return }
        let start = blockIndex(x4: 0, y4: firstRow4), blocks = rows4 * widthIn4
        (intraMode + start).update(repeating: 1, count: blocks)
        (ctDepth + start).update(repeating: 0, count: blocks)
        (qpY + start).update(repeating: 0, count: blocks)
        (edges + start).update(repeating: 0, count: blocks)
        (keepsSamples + start).update(repeating: false, count: blocks)
    }

    /// 6.4.1: whether the sample at (xN, yN) is decoded and usable for predicting the block
    /// at (xCur, yCur): inside the picture, earlier in decoding order, same slice and tile.
    @inline(__always)
    func available(xCur: Int, yCur: Int, xN: Int, yN: Int) -> Bool {
        guard xN >= 0, yN >= 0, xN < width, yN < height, yN < undecodedLine else { return false }
        let n = blockIndex(x4: xN >> 2, y4: yN >> 2)
        let c = blockIndex(x4: xCur >> 2, y4: yCur >> 2)
        guard zOrder[n] <= zOrder[c] else { return false }
        let log2Ctb = sps.log2CtbSize
        let ctbN = (yN >> log2Ctb) &* layout.widthInCtbs &+ (xN >> log2Ctb)
        let ctbC = (yCur >> log2Ctb) &* layout.widthInCtbs &+ (xCur >> log2Ctb)
        return ctbSliceAddress[ctbN] == ctbSliceAddress[ctbC] && ctbTile[ctbN] == ctbTile[ctbC]
    }

    /// Picture lines `lines` (held in the window, starting on a CTB row) as plane arrays,
    /// uncropped, for the loop filters.
    func planeArrays(lines: Range<Int>) -> [HEVCPlane] {
        let (_, sy) = sps.chromaFormat.subsampling
        var out: [HEVCPlane] = []
        for (i, _) in planes.enumerated() {
            let w = i == 0 ? width : chromaWidth
            let first = i == 0 ? lines.lowerBound : lines.lowerBound / sy
            let h = i == 0 ? lines.count : lines.count / sy
            out.append(HEVCPlane(width: w, height: h, samples: Array(UnsafeBufferPointer(start: sample(i, x: 0, y: first), count: w * h))))
        }
        return out
    }

    /// The decoded planes as arrays (uncropped), for the loop filters.
    func planeArrays() -> [HEVCPlane] { planeArrays(lines: 0..<height) }

    /// What the loop filters need for picture lines `lines` (held in the window, starting on
    /// a CTB row), gathered from the per-block facts, as if those lines were the picture.
    func filterMap(lines: Range<Int>) -> HEVCFilterMap {
        var map = HEVCFilterMap(width: width, height: lines.count, log2CtbSize: sps.log2CtbSize,
                                loopFilterAcrossTiles: pps.loopFilterAcrossTiles,
                                cbQpOffset: pps.cbQpOffset, crQpOffset: pps.crQpOffset)
        let start = blockIndex(x4: 0, y4: lines.lowerBound >> 2)
        let blocks = widthIn4 * map.heightIn4
        map.edges = Array(UnsafeBufferPointer(start: edges + start, count: blocks))
        map.qpY = Array(UnsafeBufferPointer(start: qpY + start, count: blocks))
        map.keepsSamples = Array(UnsafeBufferPointer(start: keepsSamples + start, count: blocks))
        let firstCtb = (lines.lowerBound >> sps.log2CtbSize) * layout.widthInCtbs
        let ctbs = layout.widthInCtbs * map.heightInCtbs
        map.sliceOfCtb = Array(UnsafeBufferPointer(start: ctbSliceIndex + firstCtb, count: ctbs))
        map.tileOfCtb = Array(UnsafeBufferPointer(start: ctbTile + firstCtb, count: ctbs))
        map.sao = Array(UnsafeBufferPointer(start: sao + firstCtb, count: ctbs))
        map.slices = sliceFilterParameters
        return map
    }

    /// What the loop filters need for the whole picture.
    func filterMap() -> HEVCFilterMap { filterMap(lines: 0..<height) }
}
