/// The picture being decoded: sample planes (uncropped) and the per-4×4 and per-CTB facts that
/// prediction, context selection and the loop filters look up. Buffers are allocated once,
/// sized from the SPS after the limits check, and reached through pointers in the hot paths.
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
    var sao: [HEVCSAOParameters]
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

    init(sps: HEVCSequenceParameterSet, pps: HEVCPictureParameterSet, layout: HEVCTileLayout) {
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
        func alloc<T>(_ count: Int, _ value: T) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
            p.initialize(repeating: value, count: max(count, 1))
            return p
        }
        let lumaMid = UInt16(1 << (sps.bitDepthLuma - 1))
        let chromaMid = UInt16(1 << (sps.bitDepthChroma - 1))
        var planes = [alloc(width * height, lumaMid)]
        if sps.chromaFormat != .monochrome {
            planes.append(alloc(chromaWidth * chromaHeight, chromaMid))
            planes.append(alloc(chromaWidth * chromaHeight, chromaMid))
        }
        self.planes = planes
        let blocks = widthIn4 * heightIn4
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
        sao = [HEVCSAOParameters](repeating: HEVCSAOParameters(), count: ctbs)
        let log2Ctb4 = sps.log2CtbSize - 2
        for y4 in 0..<heightIn4 {
            for x4 in 0..<widthIn4 {
                let ctb = (y4 >> log2Ctb4) * layout.widthInCtbs + (x4 >> log2Ctb4)
                var morton = 0
                for bit in 0..<log2Ctb4 {
                    morton |= ((x4 >> bit) & 1) << (2 * bit) | ((y4 >> bit) & 1) << (2 * bit + 1)
                }
                zOrder[y4 * widthIn4 + x4] = Int32(layout.rsToTs[ctb] << (2 * log2Ctb4) | morton)
            }
        }
        for ts in 0..<ctbs { ctbTile[layout.tsToRs[ts]] = Int32(layout.tileIdOfTs[ts]) }
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
    }

    /// 6.4.1: whether the sample at (xN, yN) is decoded and usable for predicting the block
    /// at (xCur, yCur): inside the picture, earlier in decoding order, same slice and tile.
    @inline(__always)
    func available(xCur: Int, yCur: Int, xN: Int, yN: Int) -> Bool {
        guard xN >= 0, yN >= 0, xN < width, yN < height else { return false }
        let n = (yN >> 2) &* widthIn4 &+ (xN >> 2)
        let c = (yCur >> 2) &* widthIn4 &+ (xCur >> 2)
        guard zOrder[n] <= zOrder[c] else { return false }
        let log2Ctb = sps.log2CtbSize
        let ctbN = (yN >> log2Ctb) &* layout.widthInCtbs &+ (xN >> log2Ctb)
        let ctbC = (yCur >> log2Ctb) &* layout.widthInCtbs &+ (xCur >> log2Ctb)
        return ctbSliceAddress[ctbN] == ctbSliceAddress[ctbC] && ctbTile[ctbN] == ctbTile[ctbC]
    }

    /// The decoded planes as arrays (uncropped), for the loop filters.
    func planeArrays() -> [HEVCPlane] {
        var out: [HEVCPlane] = []
        for (i, p) in planes.enumerated() {
            let w = i == 0 ? width : chromaWidth, h = i == 0 ? height : chromaHeight
            out.append(HEVCPlane(width: w, height: h, samples: Array(UnsafeBufferPointer(start: p, count: w * h))))
        }
        return out
    }

    /// What the loop filters need, gathered from the per-block facts.
    func filterMap() -> HEVCFilterMap {
        var map = HEVCFilterMap(width: width, height: height, log2CtbSize: sps.log2CtbSize,
                                loopFilterAcrossTiles: pps.loopFilterAcrossTiles,
                                cbQpOffset: pps.cbQpOffset, crQpOffset: pps.crQpOffset)
        let blocks = widthIn4 * heightIn4
        map.edges = Array(UnsafeBufferPointer(start: edges, count: blocks))
        map.qpY = Array(UnsafeBufferPointer(start: qpY, count: blocks))
        map.keepsSamples = Array(UnsafeBufferPointer(start: keepsSamples, count: blocks))
        let ctbs = layout.widthInCtbs * layout.heightInCtbs
        map.sliceOfCtb = Array(UnsafeBufferPointer(start: ctbSliceIndex, count: ctbs))
        map.tileOfCtb = Array(UnsafeBufferPointer(start: ctbTile, count: ctbs))
        map.sao = sao
        map.slices = sliceFilterParameters
        return map
    }
}
