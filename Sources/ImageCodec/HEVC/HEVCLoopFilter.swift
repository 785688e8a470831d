/// The in-loop filters of an intra picture, run once the slice decoder has reconstructed every
/// CTB: deblocking (H.265 8.7.2) over the whole picture, then SAO (8.7.3) on the deblocked result.
///
/// Both stages read only the `HEVCFilterMap` the slice decoder filled, so they run as two plain
/// passes over the planes instead of CTB by CTB inside the parser. Deblocking works in place
/// (every vertical edge of the picture, then every horizontal edge); SAO keeps a few lines of
/// the deblocked picture per CTB row (see `SAOFilter`), not a copy of the picture.
enum HEVCLoopFilter {
    /// Deblocking (H.265 8.7.2) then SAO (8.7.3) over the whole decoded (uncropped) picture.
    ///
    /// `planes` are Y, then Cb and Cr unless monochrome, each `width × height` of the decoded
    /// picture (chroma at its subsampled size). A map or plane set that does not describe the
    /// same picture is a bug in the caller: the planes are then left unfiltered (and a debug
    /// build stops), never read or written out of range.
    static func apply(to planes: inout [HEVCPlane], map: HEVCFilterMap, chromaFormat: HEVCChromaFormat,
                      bitDepthLuma: Int, bitDepthChroma: Int) {
        guard isConsistent(planes: planes, map: map, chromaFormat: chromaFormat,
                           bitDepthLuma: bitDepthLuma, bitDepthChroma: bitDepthChroma) else {
            assertionFailure("HEVCLoopFilter: filter map and planes do not describe the same picture")
            return
        }
        Deblocking.apply(to: &planes, map: map, chromaFormat: chromaFormat,
                         bitDepthLuma: bitDepthLuma, bitDepthChroma: bitDepthChroma)
        SAOFilter.apply(to: &planes, map: map, chromaFormat: chromaFormat,
                        bitDepthLuma: bitDepthLuma, bitDepthChroma: bitDepthChroma)
    }

    /// Every size and index the filters trust without further checks in their loops.
    static func isConsistent(planes: [HEVCPlane], map: HEVCFilterMap, chromaFormat: HEVCChromaFormat,
                             bitDepthLuma: Int, bitDepthChroma: Int) -> Bool {
        guard planes.count == chromaFormat.planeCount, (8...16).contains(bitDepthLuma),
              (8...16).contains(bitDepthChroma), (3...7).contains(map.log2CtbSize) else { return false }
        let luma = planes[0]
        guard luma.width > 0, luma.height > 0,
              map.widthIn4 == (luma.width + 3) / 4, map.heightIn4 == (luma.height + 3) / 4 else { return false }
        let ctb = 1 << map.log2CtbSize
        guard map.widthInCtbs == (luma.width + ctb - 1) / ctb,
              map.heightInCtbs == (luma.height + ctb - 1) / ctb else { return false }
        let blocks = map.widthIn4 * map.heightIn4
        let ctbs = map.widthInCtbs * map.heightInCtbs
        guard map.edges.count == blocks, map.qpY.count == blocks, map.keepsSamples.count == blocks,
              map.sliceOfCtb.count == ctbs, map.tileOfCtb.count == ctbs, map.sao.count == ctbs else { return false }
        let sliceCount = map.slices.count
        for s in map.sliceOfCtb where s < 0 || Int(s) >= sliceCount { return false }
        let (sw, sh) = chromaFormat.subsampling
        for (index, plane) in planes.enumerated() {
            let w = index == 0 ? luma.width : (luma.width + sw - 1) / sw
            let h = index == 0 ? luma.height : (luma.height + sh - 1) / sh
            guard plane.width == w, plane.height == h, plane.samples.count == w * h else { return false }
        }
        return true
    }
}
