/// HEVC deblocking (H.265 8.7.2) of an intra picture, plane by plane: every vertical edge of
/// the plane first, then every horizontal edge on the vertically filtered samples.
///
/// Edges to filter come from the filter map's per-4×4 bits, which already hold only the
/// transform and prediction edges on the 8×8 luma grid that the slice rules leave on; every
/// such edge has boundary strength 2 in an intra picture. Luma filters them all in segments of
/// four lines. Chroma filters those that fall on its own 8×8 sample grid, in segments of four
/// chroma lines, taking the edge bit and the QPs at the luma position of the segment's first
/// sample (for 4:2:0 that is every 16 luma samples, with the bit of the first of the two luma
/// segments a chroma segment spans, as H.265 8.7.2.5.2 derives them).
///
/// Edges on the 8-sample grid never share samples they modify or decide on (each reads four
/// samples per side and writes at most three), so one pass per direction in raster order is
/// exactly the spec's order.
enum Deblocking {
    static func apply(to planes: inout [HEVCPlane], map: HEVCFilterMap, chromaFormat: HEVCChromaFormat,
                      bitDepthLuma: Int, bitDepthChroma: Int) {
        guard map.edges.contains(where: { $0 != 0 }) else { return }
        // Offsets are -6...6 in a conforming stream; the clamp only keeps table indices in range.
        // A slice with slice_deblocking_filter_disabled_flag filters none of its coding units'
        // edges (those whose q0 it holds). The map should already lack them; offsets far below
        // any QP make β and tC 0 there, so such an edge is skipped even if the map marks it.
        let off = -1000
        let betaOffsets = map.slices.map { $0.deblockingDisabled ? off : min(max($0.betaOffsetDiv2, -32), 32) * 2 }
        let tcOffsets = map.slices.map { $0.deblockingDisabled ? off : min(max($0.tcOffsetDiv2, -32), 32) * 2 }
        map.edges.withUnsafeBufferPointer { edges in
            map.qpY.withUnsafeBufferPointer { qpY in
                map.keepsSamples.withUnsafeBufferPointer { keeps in
                    map.sliceOfCtb.withUnsafeBufferPointer { sliceOfCtb in
                        betaOffsets.withUnsafeBufferPointer { betaOffset in
                            tcOffsets.withUnsafeBufferPointer { tcOffset in
                                let view = DeblockingBlockView(
                                    edges: edges.baseAddress!, qpY: qpY.baseAddress!, keeps: keeps.baseAddress!,
                                    sliceOfCtb: sliceOfCtb.baseAddress!, betaOffset: betaOffset.baseAddress!,
                                    tcOffset: tcOffset.baseAddress!, widthIn4: map.widthIn4,
                                    log2CtbSize: map.log2CtbSize,
                                    widthInCtbs: map.widthInCtbs)
                                filter(&planes, view: view, map: map, chromaFormat: chromaFormat,
                                       bitDepthLuma: bitDepthLuma, bitDepthChroma: bitDepthChroma)
                            }
                        }
                    }
                }
            }
        }
    }

    private static func filter(_ planes: inout [HEVCPlane], view: DeblockingBlockView, map: HEVCFilterMap,
                               chromaFormat: HEVCChromaFormat, bitDepthLuma: Int, bitDepthChroma: Int) {
        let width = planes[0].width, height = planes[0].height
        planes[0].samples.withUnsafeMutableBufferPointer { buffer in
            let samples = buffer.baseAddress!
            filterLuma(samples, width: width, height: height, view: view, vertical: true, bitDepth: bitDepthLuma)
            filterLuma(samples, width: width, height: height, view: view, vertical: false, bitDepth: bitDepthLuma)
        }
        guard chromaFormat != .monochrome else { return }
        let geometry = ChromaGeometry(format: chromaFormat)
        for index in 1...2 {
            let qpOffset = index == 1 ? map.cbQpOffset : map.crQpOffset
            let cw = planes[index].width, ch = planes[index].height
            planes[index].samples.withUnsafeMutableBufferPointer { buffer in
                let samples = buffer.baseAddress!
                for vertical in [true, false] {
                    filterChroma(samples, width: cw, height: ch, view: view, geometry: geometry, vertical: vertical,
                                 qpOffset: qpOffset, bitDepth: bitDepthChroma)
                }
            }
        }
    }

    /// Luma edges of one direction; a vertical edge at luma x = 8k is the left side of 4×4
    /// column 2k, a horizontal edge at y = 8k the top of 4×4 row 2k.
    private static func filterLuma(_ samples: UnsafeMutablePointer<UInt16>, width: Int, height: Int,
                                   view: DeblockingBlockView, vertical: Bool, bitDepth: Int) {
        let bit = vertical ? HEVCFilterMap.verticalEdge : HEVCFilterMap.horizontalEdge
        let across = vertical ? 1 : width, along = vertical ? width : 1
        let maxValue = (1 << bitDepth) - 1
        let w4 = view.widthIn4
        // A segment needs four samples on each side and four lines along the edge: whole 4×4
        // blocks of the plane (p0 of an edge on the 8-grid is always at least 4 samples in).
        let endX4 = width >> 2, endY4 = height >> 2
        let stepX = vertical ? 2 : 1, stepY = vertical ? 1 : 2
        let toP = vertical ? 1 : w4
        var by = vertical ? 0 : 2
        while by < endY4 {
            var bx = vertical ? 2 : 0
            let row = by &* w4
            while bx < endX4 {
                let q = row &+ bx
                if view.edges[q] & bit != 0 {
                    let p = q &- toP
                    let x0 = bx << 2, y0 = by << 2
                    let qpL = (Int(view.qpY[q]) &+ Int(view.qpY[p]) &+ 1) >> 1
                    let slice = view.slice(lumaX: x0, lumaY: y0)
                    let tc = DeblockingKernels.tcForIntraEdge(qp: qpL, tcOffset: view.tcOffset[slice], bitDepth: bitDepth)
                    let beta = DeblockingKernels.beta(qpL: qpL, betaOffset: view.betaOffset[slice], bitDepth: bitDepth)
                    let filterP = !view.keeps[p], filterQ = !view.keeps[q]
                    // tC = 0 or β = 0 cannot change a sample; skip the decisions.
                    if tc > 0, beta > 0, filterP || filterQ {
                        DeblockingKernels.lumaEdge(samples + (y0 &* width &+ x0), across: across, along: along,
                                                   beta: beta, tc: tc, filterP: filterP, filterQ: filterQ,
                                                   maxValue: maxValue)
                    }
                }
                bx = bx &+ stepX
            }
            by = by &+ stepY
        }
    }

    /// Chroma edges of one direction on the chroma 8×8 grid, in segments of four chroma lines.
    private static func filterChroma(_ samples: UnsafeMutablePointer<UInt16>, width: Int, height: Int,
                                     view: DeblockingBlockView, geometry: ChromaGeometry, vertical: Bool,
                                     qpOffset: Int, bitDepth: Int) {
        let bit = vertical ? HEVCFilterMap.verticalEdge : HEVCFilterMap.horizontalEdge
        let across = vertical ? 1 : width, along = vertical ? width : 1
        let maxValue = (1 << bitDepth) - 1
        let w4 = view.widthIn4
        let toP = vertical ? 1 : w4
        let stepX = vertical ? 8 : 4, stepY = vertical ? 4 : 8
        // Segments need two samples on each side and four lines along the edge.
        let endX = vertical ? width - 1 : width - 3
        let endY = vertical ? height - 3 : height - 1
        let sw = geometry.subWidth, sh = geometry.subHeight, arrayType = geometry.chromaArrayType
        var y = vertical ? 0 : 8
        while y < endY {
            var x = vertical ? 8 : 0
            let lumaY = y &* sh
            while x < endX {
                let lumaX = x &* sw
                let q = (lumaY >> 2) &* w4 &+ (lumaX >> 2)
                if view.edges[q] & bit != 0 {
                    let p = q &- toP
                    let qPi = ((Int(view.qpY[q]) &+ Int(view.qpY[p]) &+ 1) >> 1) &+ qpOffset
                    let qpC = DeblockingKernels.chromaQp(qPi, chromaArrayType: arrayType)
                    let slice = view.slice(lumaX: lumaX, lumaY: lumaY)
                    let tc = DeblockingKernels.tcForIntraEdge(qp: qpC, tcOffset: view.tcOffset[slice], bitDepth: bitDepth)
                    let filterP = !view.keeps[p], filterQ = !view.keeps[q]
                    if tc > 0, filterP || filterQ {
                        DeblockingKernels.chromaEdge(samples + (y &* width &+ x), across: across, along: along, tc: tc,
                                                     filterP: filterP, filterQ: filterQ, maxValue: maxValue)
                    }
                }
                x = x &+ stepX
            }
            y = y &+ stepY
        }
    }
}

/// The filter map's per-4×4 and per-CTB arrays as raw pointers, taken once for the whole pass.
struct DeblockingBlockView {
    let edges: UnsafePointer<UInt8>
    let qpY: UnsafePointer<Int8>
    let keeps: UnsafePointer<Bool>
    let sliceOfCtb: UnsafePointer<Int32>
    /// Per slice: slice_beta_offset_div2 << 1 and slice_tc_offset_div2 << 1.
    let betaOffset: UnsafePointer<Int>
    let tcOffset: UnsafePointer<Int>
    let widthIn4: Int
    let log2CtbSize: Int
    let widthInCtbs: Int

    /// The slice holding the luma sample (x, y): the one whose offsets the edge with q0,0 there uses.
    @inline(__always)
    func slice(lumaX: Int, lumaY: Int) -> Int {
        Int(sliceOfCtb[(lumaY >> log2CtbSize) &* widthInCtbs &+ (lumaX >> log2CtbSize)])
    }
}

/// Where chroma samples sit relative to luma, for the filters.
struct ChromaGeometry {
    let subWidth: Int
    let subHeight: Int
    /// ChromaArrayType (chroma_format_idc; separate colour planes are not supported).
    let chromaArrayType: Int

    init(format: HEVCChromaFormat) {
        (subWidth, subHeight) = format.subsampling
        chromaArrayType = format.rawValue
    }
}
