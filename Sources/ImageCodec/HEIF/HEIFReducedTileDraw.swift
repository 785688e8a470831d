/// The fast way to draw a tile into a reduced output: 8-bit 4:2:0 full-range pictures (iPhone
/// photos) without alpha go through `HEIFReductionLanes` (fixed-point conversion on 16-bit
/// lanes, rows summed per column before the sums across a block), every other picture through
/// `draw` (a converted RGB row, each pixel added into its block). Both give the same sums.
extension HEIFPictureRenderer {
    /// Whether `tile` can be drawn by `drawReduced` into `target`.
    func drawsReduced(_ tile: DecodedTile, into target: DrawTarget, alpha: [UInt8]?) -> Bool {
        let k = tile.converter
        return target.sums != nil && alpha == nil && tile.alpha == nil && !target.hasAlpha && target.channels == 3
            && k.fixedPoint && k.lumaShift == 0 && k.chromaShift == 0 && k.chroma == .yuv420
            && tile.picture.planes.count == 3 && factor <= 257
    }

    /// Draws `tile` (checked by `drawsReduced`) into the block sums of `target`.
    func drawReduced(_ tile: DecodedTile, into target: DrawTarget) {
        guard let blockSums = target.sums else { return }
        let t = plan.transform
        let picture = tile.picture
        let f = factor
        let count = tile.x1 - tile.x0
        let x0 = tile.x0 - tile.tileX
        let rx = tile.x0 - t.cropX
        let chromaWidth = picture.planes[1].width
        let k = tile.converter
        let coefficients = HEIFReductionLanes.Coefficients(iR: Int32(k.iR), iGb: Int32(k.iGb), iGr: Int32(k.iGr), iB: Int32(k.iB))
        let kernels = HEVCKernelDispatch.selected
        // Three planes of column sums and of chroma terms, each `pitch` values (the terms run
        // from an even column, one further when x0 is odd).
        let pitch = count + 2
        withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 3 * pitch) { sumBuffer in
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: 3 * pitch) { termBuffer in
                let sums = sumBuffer.baseAddress!, terms = termBuffer.baseAddress!
                sums.initialize(repeating: 0, count: 3 * pitch)
                terms.initialize(repeating: 0, count: 3 * pitch)
                picture.planes[0].samples.withUnsafeBufferPointer { yp in
                    picture.planes[1].samples.withUnsafeBufferPointer { cbp in
                        picture.planes[2].samples.withUnsafeBufferPointer { crp in
                            var termRow = -1
                            var blockRow = -1
                            var rows = 0
                            for y in tile.y0..<tile.y1 {
                                let row = y - tile.tileY
                                let by = (y - t.cropY + target.phaseY) / f
                                if by != blockRow && rows > 0 {
                                    kernels.heifFlush(sums, pitch, count, rx, target.phaseX, f, blockSums + blockRow * target.outW * 3)
                                    rows = 0
                                }
                                blockRow = by
                                if row >> 1 != termRow {
                                    termRow = row >> 1
                                    let c = termRow * chromaWidth
                                    HEIFReductionLanes.chromaTerms(cb: cbp.baseAddress! + c, cr: crp.baseAddress! + c, x0: x0, count: count,
                                                                   coefficients, terms: terms, pitch: pitch)
                                }
                                kernels.heifAddRow(yp.baseAddress! + row * picture.width + x0, count, terms + (x0 & 1), sums, pitch)
                                rows += 1
                            }
                            if rows > 0 {
                                kernels.heifFlush(sums, pitch, count, rx, target.phaseX, f, blockSums + blockRow * target.outW * 3)
                            }
                        }
                    }
                }
            }
        }
    }
}
