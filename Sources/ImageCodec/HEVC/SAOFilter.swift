/// HEVC sample adaptive offset (H.265 8.7.3), CTB by CTB and component by component, on the
/// deblocked picture.
///
/// SAO reads the deblocked value of each sample's neighbours, including those in CTBs already
/// filtered, so the input must survive its own output. Instead of a copy of the plane, each CTB
/// row works from a band of `ctbHeight + 2` deblocked lines (the row, the line above it, the
/// line below it): the line above is carried over from the previous row's band before SAO
/// overwrote it. That costs one copy of the plane in small pieces and a few kilobytes of memory.
/// Rows where no CTB uses SAO for the component are not copied at all.
///
/// Edge offset works in two parts per CTB: the inner samples, whose two neighbours lie in the
/// same CTB and need no check, in a tight loop; then the frame of border samples, each checked
/// against the picture border and a 3×3 table of which neighbouring CTBs the slice and tile
/// rules let it read. Samples the map marks as kept (PCM with pcm_loop_filter_disabled_flag,
/// cu_transquant_bypass) are put back from the band afterwards.
enum SAOFilter {
    static func apply(to planes: inout [HEVCPlane], map: HEVCFilterMap, chromaFormat: HEVCChromaFormat,
                      bitDepthLuma: Int, bitDepthChroma: Int) {
        let ctbCount = map.sao.count
        var enabled = [Bool](repeating: false, count: ctbCount)
        let acrossSlices = map.slices.map(\.loopFilterAcrossSlices)
        for component in 0..<chromaFormat.planeCount {
            var any = false
            for ctb in 0..<ctbCount {
                let slice = map.slices[Int(map.sliceOfCtb[ctb])]
                let on = map.sao[ctb].type(component) != 0 && (component == 0 ? slice.saoLuma : slice.saoChroma)
                enabled[ctb] = on
                any = any || on
            }
            guard any else { continue }
            let (sw, sh) = component == 0 ? (1, 1) : chromaFormat.subsampling
            let bitDepth = component == 0 ? bitDepthLuma : bitDepthChroma
            let ctbSize = 1 << map.log2CtbSize
            let geometry = SAOGeometry(component: component, width: planes[component].width,
                                       height: planes[component].height, ctbWidth: ctbSize / sw,
                                       ctbHeight: ctbSize / sh, subWidth: sw, subHeight: sh, bitDepth: bitDepth)
            var band = [UInt16](repeating: 0, count: (geometry.ctbHeight + 2) * geometry.width)
            var table = [Int32](repeating: 0, count: 32)
            planes[component].samples.withUnsafeMutableBufferPointer { plane in
                band.withUnsafeMutableBufferPointer { band in
                    table.withUnsafeMutableBufferPointer { table in
                        enabled.withUnsafeBufferPointer { enabled in
                            map.keepsSamples.withUnsafeBufferPointer { keeps in
                                map.sliceOfCtb.withUnsafeBufferPointer { sliceOfCtb in
                                    map.tileOfCtb.withUnsafeBufferPointer { tileOfCtb in
                                        acrossSlices.withUnsafeBufferPointer { acrossSlices in
                                            let context = SAOContext(
                                                plane: plane.baseAddress!, band: band.baseAddress!,
                                                table: table.baseAddress!, enabled: enabled.baseAddress!,
                                                keeps: keeps.baseAddress!, sliceOfCtb: sliceOfCtb.baseAddress!,
                                                tileOfCtb: tileOfCtb.baseAddress!,
                                                acrossSlices: acrossSlices.baseAddress!,
                                                acrossTiles: map.loopFilterAcrossTiles, widthIn4: map.widthIn4,
                                                heightIn4: map.heightIn4,
                                                widthInCtbs: map.widthInCtbs, heightInCtbs: map.heightInCtbs)
                                            filterComponent(context, geometry: geometry, sao: map.sao)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private static func filterComponent(_ context: SAOContext, geometry g: SAOGeometry, sao: [HEVCSAOParameters]) {
        let width = g.width
        var bandHoldsLineAbove = false
        for ry in 0..<context.heightInCtbs {
            let y0 = ry &* g.ctbHeight
            guard y0 < g.height else { break }
            let rows = min(g.ctbHeight, g.height &- y0)
            let rowStart = ry &* context.widthInCtbs
            var rowUsed = false
            for rx in 0..<context.widthInCtbs where context.enabled[rowStart &+ rx] { rowUsed = true }
            guard rowUsed else {
                bandHoldsLineAbove = false
                continue
            }
            // Band line i holds picture line y0 - 1 + i.
            if y0 > 0 {
                let source = bandHoldsLineAbove ? UnsafePointer(context.band + g.ctbHeight &* width)
                                                : UnsafePointer(context.plane + (y0 &- 1) &* width)
                context.band.update(from: source, count: width)
            }
            let copyLines = min(rows &+ 1, g.height &- y0)
            (context.band + width).update(from: context.plane + y0 &* width, count: copyLines &* width)
            bandHoldsLineAbove = true
            for rx in 0..<context.widthInCtbs where context.enabled[rowStart &+ rx] {
                let x0 = rx &* g.ctbWidth
                guard x0 < width else { break }
                let block = SAOBlock(x0: x0, y0: y0, width: min(g.ctbWidth, width &- x0), height: rows,
                                     ctbX: rx, ctbY: ry)
                let parameters = sao[rowStart &+ rx]
                let offsets = parameters.offsets(g.component)
                if parameters.type(g.component) == 1 {
                    SAOKernels.bandOffset(context, g, block, offsets: offsets,
                                          bandPosition: Int(parameters.bandPosition(g.component)))
                } else {
                    SAOKernels.edgeOffset(context, g, block, offsets: offsets,
                                          edgeClass: Int(parameters.edgeClass(g.component)))
                }
                restoreKeptSamples(context, g, block)
            }
        }
    }

    /// Puts back the deblocked (= reconstructed) value of samples SAO must leave alone.
    private static func restoreKeptSamples(_ c: SAOContext, _ g: SAOGeometry, _ b: SAOBlock) {
        let lumaX0 = b.x0 &* g.subWidth, lumaY0 = b.y0 &* g.subHeight
        let bx0 = lumaX0 >> 2, by0 = lumaY0 >> 2
        let bx1 = min((lumaX0 &+ b.width &* g.subWidth &+ 3) >> 2, c.widthIn4)
        let by1 = min((lumaY0 &+ b.height &* g.subHeight &+ 3) >> 2, c.heightIn4)
        for by in by0..<by1 {
            for bx in bx0..<bx1 where c.keeps[by &* c.widthIn4 &+ bx] {
                let xs = (bx << 2) / g.subWidth, xe = min(((bx << 2) &+ 4) / g.subWidth, g.width)
                let ys = (by << 2) / g.subHeight, ye = min(((by << 2) &+ 4) / g.subHeight, g.height)
                var y = ys
                while y < ye {
                    let line = c.band + (y &- b.y0 &+ 1) &* g.width
                    var x = xs
                    while x < xe {
                        c.plane[y &* g.width &+ x] = line[x]
                        x = x &+ 1
                    }
                    y = y &+ 1
                }
            }
        }
    }
}

/// The filter map's arrays and the working buffers of one component, as raw pointers.
struct SAOContext {
    let plane: UnsafeMutablePointer<UInt16>
    /// `ctbHeight + 2` deblocked lines around the current CTB row.
    let band: UnsafeMutablePointer<UInt16>
    /// 32 entries of scratch for the per-CTB offset table.
    let table: UnsafeMutablePointer<Int32>
    /// Per CTB: SAO applies to this component.
    let enabled: UnsafePointer<Bool>
    let keeps: UnsafePointer<Bool>
    let sliceOfCtb: UnsafePointer<Int32>
    let tileOfCtb: UnsafePointer<Int32>
    /// Per slice: slice_loop_filter_across_slices_enabled_flag.
    let acrossSlices: UnsafePointer<Bool>
    let acrossTiles: Bool
    let widthIn4: Int
    let heightIn4: Int
    let widthInCtbs: Int
    let heightInCtbs: Int
}

/// Sizes of one component's plane and CTBs, in its own samples.
struct SAOGeometry {
    let component: Int
    let width: Int
    let height: Int
    let ctbWidth: Int
    let ctbHeight: Int
    let subWidth: Int
    let subHeight: Int
    let bitDepth: Int
}

/// One CTB's samples in a component: origin, size (cut at the picture border) and CTB address.
struct SAOBlock {
    let x0: Int
    let y0: Int
    let width: Int
    let height: Int
    let ctbX: Int
    let ctbY: Int
}

extension HEVCSAOParameters {
    /// SaoTypeIdx of component `c` (0 Y, 1 Cb, 2 Cr).
    @inline(__always)
    func type(_ c: Int) -> UInt8 { c == 0 ? typeIndex.0 : c == 1 ? typeIndex.1 : typeIndex.2 }

    /// SaoOffsetVal[1...4] of component `c`.
    @inline(__always)
    func offsets(_ c: Int) -> SIMD4<Int16> { c == 0 ? offsets.0 : c == 1 ? offsets.1 : offsets.2 }

    @inline(__always)
    func bandPosition(_ c: Int) -> UInt8 { c == 0 ? bandPosition.0 : c == 1 ? bandPosition.1 : bandPosition.2 }

    @inline(__always)
    func edgeClass(_ c: Int) -> UInt8 { c == 0 ? edgeClass.0 : c == 1 ? edgeClass.1 : edgeClass.2 }
}
