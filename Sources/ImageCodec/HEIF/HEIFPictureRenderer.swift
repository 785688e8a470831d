/// Decodes a `HEIFPicturePlan` tile by tile and reduces each converted tile straight into the
/// output at 1/f, so a thumbnail of a 12 MP grid never holds more than one tile's planes,
/// one converted row and the block sums of the output.
///
/// The reduction grid is anchored at the corner of the crop that the transform shows at the
/// top left: every reduced pixel is then the mean of the same f×f block of the *displayed*
/// image (blocks at the far edges are smaller), so turning the small result by the orientation
/// is exact and the crop (`clap`) needs no rounding at reduced size.

/// The tile decoder's signature (`HEVCDecoder.decode`); tests inject a reference decoder.
typealias HEIFTileDecoder = @Sendable (_ parameterSets: [[UInt8]], _ data: ArraySlice<UInt8>, _ lengthSize: Int,
                             _ limits: DecodeLimits) throws -> HEVCPicture

struct HEIFPictureRenderer {
    let container: HEIFContainer
    let plan: HEIFPicturePlan
    let factor: Int
    let limits: DecodeLimits
    /// nil: our HEVC decoder, which a failed tile elsewhere can stop between CTB rows.
    let decodeTile: HEIFTileDecoder?

    var hasChroma: Bool { plan.configuration.chromaFormat != .monochrome }

    /// Output size in stored orientation (crop reduced by `factor`).
    var reducedWidth: Int { (plan.transform.cropWidth + factor - 1) / factor }
    var reducedHeight: Int { (plan.transform.cropHeight + factor - 1) / factor }

    /// Tiles decoded at once: one per thread, at most one per tile.
    static func tilesInFlight(_ plan: HEIFPicturePlan, threads: Int) -> Int {
        max(1, min(threads, plan.tiles.count))
    }

    /// Bytes of the buffers `render` allocates besides the output bitmap: per tile in flight
    /// (`tilesInFlight`) its planes (as the HEVC decoder returns them, 16-bit samples) and its
    /// item data; once, a converted row, the block sums, the column sums and chroma terms of
    /// `drawReduced` and the turned copy of the output.
    /// A single coded picture (`streamsRows`) counts `HEVCDecoder.rowStreamBytes` instead of its planes.
    static func workingBytes(_ plan: HEIFPicturePlan, factor: Int, channels: Int, maxItemBytes: Int, threads: Int,
                             alphaTiles: Bool = false) -> Int? {
        let (cx, cy) = plan.configuration.chromaFormat.subsampling
        let chromaPlanes = plan.configuration.chromaFormat == .monochrome ? 0 : 2
        // The decoder's limits (`tileLimits`) bound the pixels P and each side by D, not the
        // shape: ceil(w/cx)·ceil(h/cy) ≤ (P + 2D + 1)/(cx·cy) however the picture is cut.
        guard let pixels = codedPixels(plan) else { return nil }
        let side = max(plan.tileWidth, plan.tileHeight) + codedPadding
        let chroma = (pixels + 2 * side + 1) / (cx * cy)
        let outW = (plan.transform.cropWidth + factor - 1) / factor, outH = (plan.transform.cropHeight + factor - 1) / factor
        let streamed = streamsRows(plan, alphaTiles: alphaTiles) ? HEVCDecoder.rowStreamBytes(parameterSets: plan.configuration.parameterSets) : nil
        let perTile = streamed.map { DecodeMemoryEstimate.sum([$0, maxItemBytes]) }
            ?? DecodeMemoryEstimate.sum([DecodeMemoryEstimate.product([pixels, 2]),
                                         DecodeMemoryEstimate.product([chroma, 2, chromaPlanes]), maxItemBytes])
        let tiles = perTile.flatMap { DecodeMemoryEstimate.product([$0, tilesInFlight(plan, threads: threads)]) }
        let sums = factor == 1 ? 0 : DecodeMemoryEstimate.product([outW, outH, channels, 4])
        let turned = plan.transform.orientation == .up ? 0 : DecodeMemoryEstimate.product([outW, outH, channels])
        // At 1/f, `drawReduced` also holds three planes of 16-bit column sums and chroma terms.
        let columns = factor == 1 ? 0 : DecodeMemoryEstimate.product([plan.tileWidth + 2, 12])
        return DecodeMemoryEstimate.sum([tiles, DecodeMemoryEstimate.product([plan.tileWidth, channels]), sums, turned, columns])
    }

    /// One tile decoded and checked, ready to draw: the stored-picture rectangle it covers
    /// inside the crop, its planes, its alpha tile and its colour converter.
    struct DecodedTile {
        let x0: Int, x1: Int, y0: Int, y1: Int
        let tileX: Int, tileY: Int
        let picture: HEVCPicture
        let alpha: HEVCPicture?
        let converter: HEIFColourConverter
    }

    /// The displayed picture reduced by `factor`: gray or RGB, with alpha when `alpha` (the
    /// displayed alpha plane at full size, `plan.displayWidth` wide) or `alphaTiles` (an alpha
    /// plan that `alphaFollowsTiles` this one, decoded tile by tile) is given. Tiles decode on
    /// up to `limits.maxThreads` threads (`HEIFTileWorkers`); the pixels do not depend on it.
    func render(alpha: [UInt8]?, alphaTiles: HEIFPicturePlan? = nil, premultiplied: Bool) throws -> Bitmap {
        let t = plan.transform
        let opaque = alpha == nil && alphaTiles == nil
        let layout: Bitmap.Layout = hasChroma ? (opaque ? .rgb : .rgba) : (opaque ? .gray : .grayAlpha)
        let c = layout.channels
        let outW = reducedWidth, outH = reducedHeight
        var output = try Bitmap(width: outW, height: outH, layout: layout)
        let f = factor
        let phaseX = t.anchorsAtRight ? (f - t.cropWidth % f) % f : 0
        let phaseY = t.anchorsAtBottom ? (f - t.cropHeight % f) % f : 0
        // At 1/f the sums of each output row become its means as soon as the tiles over it
        // are drawn, and their pages go back (`HEIFBlockSums`).
        let sums = f == 1 ? nil : try HEIFBlockSums(count: outW * outH * c)
        var progress = HEIFRowProgress(plan, factor: f, phaseY: phaseY, outHeight: outH)
        var row = [UInt8](repeating: 0, count: plan.tileWidth * c)
        let threads = Self.tilesInFlight(plan, threads: limits.maxThreads)

        try row.withUnsafeMutableBufferPointer { rowBuf in
            try output.pixels.withUnsafeMutableBufferPointer { outBuf in
                let target = DrawTarget(row: rowBuf.baseAddress!, output: outBuf.baseAddress!, sums: sums?.pointer,
                                        channels: c, hasAlpha: layout.hasAlpha, outW: outW, phaseX: phaseX, phaseY: phaseY)
                let draw = { (index: Int, tile: DecodedTile) throws in
                    try self.draw(tile, into: target, alpha: alpha, premultiplied: premultiplied)
                    guard let sums else { return }
                    let rows = progress.drawn(index)
                    self.finish(rows, sums: sums, into: target)
                }
                if Self.streamsRows(plan, alphaTiles: alphaTiles != nil) && decodeTile == nil {
                    try drawRows(into: target, alpha: alpha, premultiplied: premultiplied)
                    if let sums { finish(progress.drawn(0), sums: sums, into: target) }
                } else if threads == 1 {
                    for index in plan.tiles.indices {
                        if let tile = try decodedTile(at: index, alphaTiles: alphaTiles, stop: nil) { try draw(index, tile) }
                    }
                } else {
                    try HEIFTileWorkers<DecodedTile>.run(count: plan.tiles.count, threads: threads,
                                                          decode: { try self.decodedTile(at: $0, alphaTiles: alphaTiles, stop: $1) },
                                                          reduce: { try draw($0, $1) })
                }
                // Rows no drawn tile covers (none when every tile decodes) are means of nothing.
                if let sums { finish(progress.finalRows..<outH, sums: sums, into: target) }
            }
        }
        return t.orientation.apply(to: output)
    }

    /// Decodes one coded picture of `configuration` with the injected decoder, or with ours,
    /// which gives up at the next CTB row once `stop()` is true.
    /// The picture may be at most `codedPadding` larger than the tile in each direction (the
    /// limit the decoder gets), so a hostile SPS cannot claim more than the memory estimate.
    func decodePicture(_ configuration: HEVCConfiguration, data: ArraySlice<UInt8>, stop: (() -> Bool)?) throws -> HEVCPicture {
        let tileLimits = Self.tileLimits(plan, limits)
        if let decodeTile { return try decodeTile(configuration.parameterSets, data, configuration.lengthSize, tileLimits) }
        return try HEVCDecoder.decode(parameterSets: configuration.parameterSets, data: data, lengthSize: configuration.lengthSize,
                                      limits: tileLimits, stop: stop)
    }

    /// How much larger than its `ispe` a coded picture may be in each direction: one CTB of
    /// 64, as libheif allows (`tighten_image_size_limit_for_ispe`); encoders pad to 8 or 64.
    static let codedPadding = 64

    /// Most pixels one coded picture of `plan` may have: the tile padded by `codedPadding`.
    static func codedPixels(_ plan: HEIFPicturePlan) -> Int? {
        DecodeMemoryEstimate.product([plan.tileWidth + codedPadding, plan.tileHeight + codedPadding])
    }

    /// `limits` narrowed to one coded picture of `plan`: at most `codedPixels` pixels and a
    /// side at most the longer tile side plus `codedPadding`.
    static func tileLimits(_ plan: HEIFPicturePlan, _ limits: DecodeLimits) -> DecodeLimits {
        var tight = limits
        tight.maxPixels = min(limits.maxPixels, codedPixels(plan) ?? limits.maxPixels)
        tight.maxDimension = min(limits.maxDimension, max(plan.tileWidth, plan.tileHeight) + codedPadding)
        // Tiles decoded on several threads each keep their wavefront rows on their own thread.
        if tilesInFlight(plan, threads: limits.maxThreads) > 1 { tight.maxThreads = 1 }
        return tight
    }

    /// Throws `.corrupt` unless a picture decoded from `item` (its cropped size) covers the
    /// plan's tile in the configured chroma format and its planes hold their samples: what
    /// both the tile path and the band path check before drawing.
    func checkDecoded(item: Int, width: Int, height: Int, chromaFormat: HEVCChromaFormat, planesFit: Bool) throws {
        guard width >= plan.tileWidth, height >= plan.tileHeight, chromaFormat == plan.configuration.chromaFormat, planesFit else {
            throw ImageCodecError(.corrupt, "item \(item) decodes to \(width)x\(height) \(chromaFormat), expected \(plan.tileWidth)x\(plan.tileHeight) \(plan.configuration.chromaFormat)")
        }
    }

    /// Decodes tile `index` (and its alpha tile) and checks its planes; nil when the tile lies
    /// outside the crop.
    func decodedTile(at index: Int, alphaTiles: HEIFPicturePlan?, stop: (() -> Bool)?) throws -> DecodedTile? {
        let tile = plan.tiles[index]
        guard let (x0, x1, y0, y1) = visibleRect(ofTile: index) else { return nil }
        let data = try container.data(of: tile.itemID, limits: limits)
        let picture = try decodePicture(plan.configuration, data: data, stop: stop)
        try checkDecoded(item: tile.itemID, width: picture.width, height: picture.height, chromaFormat: picture.chromaFormat,
                         planesFit: picture.planes.count == picture.chromaFormat.planeCount && picture.planes[0].width == picture.width
                             && picture.planes[0].samples.count >= picture.width * picture.height)
        let alphaTile = try alphaTiles.map { try decodeAlphaTile($0, index: index, stop: stop) }
        if picture.planes.count == 3 {
            let (sx, sy) = picture.chromaFormat.subsampling
            let need = ((picture.width + sx - 1) / sx, (picture.height + sy - 1) / sy)
            let chromaSamples = picture.planes[1].width * need.1
            guard picture.planes[1].width >= need.0, picture.planes[2].width == picture.planes[1].width,
                  picture.planes[1].samples.count >= chromaSamples, picture.planes[2].samples.count >= chromaSamples else {
                throw ImageCodecError(.corrupt, "tile \(tile.itemID) chroma planes are too small")
            }
        }
        return DecodedTile(x0: x0, x1: x1, y0: y0, y1: y1, tileX: tile.x, tileY: tile.y, picture: picture, alpha: alphaTile,
                           converter: converter(for: picture))
    }

    /// The stored-picture rectangle of tile `index` inside the crop; nil when it lies outside.
    func visibleRect(ofTile index: Int) -> (x0: Int, x1: Int, y0: Int, y1: Int)? {
        let t = plan.transform
        let tile = plan.tiles[index]
        let x0 = max(tile.x, t.cropX), x1 = min(tile.x + plan.tileWidth, t.cropX + t.cropWidth)
        let y0 = max(tile.y, t.cropY), y1 = min(tile.y + plan.tileHeight, t.cropY + t.cropHeight)
        return x0 < x1 && y0 < y1 ? (x0, x1, y0, y1) : nil
    }

    /// The colour converter for a decoded picture of this plan (its format, depths and signal,
    /// the plan's `nclx`).
    func converter(for picture: HEVCPicture) -> HEIFColourConverter {
        HEIFColourConverter(chroma: picture.chromaFormat, bitDepthLuma: picture.bitDepthLuma, bitDepthChroma: picture.bitDepthChroma,
                            nclx: plan.nclx, signal: picture.videoSignal)
    }

    /// The buffers a tile is drawn into: the converted row, the output and (at 1/f) the block sums.
    struct DrawTarget {
        let row: UnsafeMutablePointer<UInt8>
        let output: UnsafeMutablePointer<UInt8>
        let sums: UnsafeMutablePointer<UInt32>?
        let channels: Int
        let hasAlpha: Bool
        let outW: Int
        let phaseX: Int
        let phaseY: Int
    }

    /// Converts a decoded tile row by row and copies (full size) or adds (reduced) each row
    /// into `target`.
    func draw(_ tile: DecodedTile, into target: DrawTarget, alpha: [UInt8]?, premultiplied: Bool) throws {
        if drawsReduced(tile, into: target, alpha: alpha) {
            drawReduced(tile, into: target)
            return
        }
        let t = plan.transform
        let picture = tile.picture
        let c = target.channels
        let chromaWidth = picture.planes.count == 3 ? picture.planes[1].width : 0
        let yPlane = picture.planes[0].samples
        let cbPlane = picture.planes.count == 3 ? picture.planes[1].samples : []
        let crPlane = picture.planes.count == 3 ? picture.planes[2].samples : []
        let count = tile.x1 - tile.x0
        try yPlane.withUnsafeBufferPointer { yp in
            try cbPlane.withUnsafeBufferPointer { cbp in
                try crPlane.withUnsafeBufferPointer { crp in
                    for y in tile.y0..<tile.y1 {
                        tile.converter.convertRow(y: yp.baseAddress!, cb: cbp.baseAddress, cr: crp.baseAddress, row: y - tile.tileY,
                                                  x0: tile.x0 - tile.tileX, count: count, width: picture.width, chromaWidth: chromaWidth,
                                                  out: target.row, stride: c)
                        if let alpha { try fillAlpha(alpha, row: target.row, y: y - t.cropY, x0: tile.x0 - t.cropX, count: count, channels: c, premultiplied: premultiplied) }
                        if let alphaTile = tile.alpha { fillAlpha(from: alphaTile, row: target.row, y: y - tile.tileY, x0: tile.x0 - tile.tileX, count: count, channels: c, premultiplied: premultiplied) }
                        let ry = y - t.cropY, rx = tile.x0 - t.cropX
                        if let sums = target.sums {
                            accumulate(target.row, count: count, rx: rx, ry: ry, phaseX: target.phaseX, phaseY: target.phaseY,
                                       channels: c, hasAlpha: target.hasAlpha, outW: target.outW, sums: sums)
                        } else {
                            (target.output + (ry * target.outW + rx) * c).update(from: target.row, count: count * c)
                        }
                    }
                }
            }
        }
    }

    /// Alpha of crop-relative stored pixels (x0 + i, y), read from the displayed alpha plane.
    private func fillAlpha(_ alpha: [UInt8], row: UnsafeMutablePointer<UInt8>, y: Int, x0: Int, count: Int, channels: Int,
                           premultiplied: Bool) throws {
        let t = plan.transform
        let dw = t.displayWidth
        guard alpha.count >= dw * t.displayHeight else { throw ImageCodecError(.corrupt, "alpha plane is too small") }
        let (ax, ay) = displayPoint(x0, y)
        let (bx, by) = displayPoint(x0 + 1, y)
        let step = (by - ay) * dw + (bx - ax)
        var index = ay * dw + ax
        alpha.withUnsafeBufferPointer { a in
            var o = row
            for _ in 0..<count {
                let v = a[index]
                o[channels - 1] = v
                if premultiplied {
                    for k in 0..<(channels - 1) { o[k] = v == 0 ? 0 : UInt8(min(255, (Int(o[k]) * 255 + Int(v) / 2) / Int(v))) }
                }
                index &+= step
                o += channels
            }
        }
    }

    /// Display coordinates of crop-relative stored pixel (x, y): the inverse of `storedPoint`.
    private func displayPoint(_ x: Int, _ y: Int) -> (Int, Int) {
        let w = plan.transform.cropWidth, h = plan.transform.cropHeight
        switch plan.transform.orientation {
        case .up: return (x, y)
        case .mirrored: return (w - 1 - x, y)
        case .rotated180: return (w - 1 - x, h - 1 - y)
        case .mirroredVertically: return (x, h - 1 - y)
        case .transposed: return (y, x)
        case .rotatedClockwise: return (h - 1 - y, x)
        case .transversed: return (h - 1 - y, w - 1 - x)
        case .rotatedCounterClockwise: return (y, w - 1 - x)
        }
    }

    /// Adds one converted row segment to the block sums (colour weighted by alpha, as the PNG
    /// reducer does, so transparent pixels do not tint their neighbours).
    private func accumulate(_ row: UnsafePointer<UInt8>, count: Int, rx: Int, ry: Int, phaseX: Int, phaseY: Int,
                            channels c: Int, hasAlpha: Bool, outW: Int, sums: UnsafeMutablePointer<UInt32>) {
        let f = factor
        let band = sums + ((ry + phaseY) / f) &* outW &* c
        var p = row
        for i in 0..<count {
            let s = band + ((rx &+ i &+ phaseX) / f) &* c
            if hasAlpha {
                let a = UInt32(p[c &- 1])
                for k in 0..<(c &- 1) { s[k] &+= UInt32(p[k]) &* a }
                s[c &- 1] &+= a
            } else {
                for k in 0..<c { s[k] &+= UInt32(p[k]) }
            }
            p += c
        }
    }

    /// Block sums of output rows `rows` to means in the output; each block counts only the
    /// crop pixels it covers. The rows' sums are given back afterwards.
    private func finish(_ rows: Range<Int>, sums: HEIFBlockSums, into target: DrawTarget) {
        guard !rows.isEmpty else { return }
        let f = factor, c = target.channels, w = target.outW
        let cw = plan.transform.cropWidth, ch = plan.transform.cropHeight
        let phaseX = target.phaseX, phaseY = target.phaseY
        let s = sums.pointer, out = target.output
        for by in rows {
            let rowCount = min(ch, (by + 1) * f - phaseY) - max(0, by * f - phaseY)
            for bx in 0..<w {
                let cols = min(cw, (bx + 1) * f - phaseX) - max(0, bx * f - phaseX)
                let n = UInt32(rowCount * cols)
                let i = (by * w + bx) * c
                if target.hasAlpha {
                    let alphaSum = s[i + c - 1]
                    for k in 0..<(c - 1) { out[i + k] = alphaSum == 0 ? 0 : UInt8(truncatingIfNeeded: (s[i + k] + alphaSum / 2) / alphaSum) }
                    out[i + c - 1] = UInt8(truncatingIfNeeded: (alphaSum + n / 2) / n)
                } else {
                    for k in 0..<c { out[i + k] = UInt8(truncatingIfNeeded: (s[i + k] + n / 2) / n) }
                }
            }
        }
        sums.release((rows.lowerBound * w * c)..<(rows.upperBound * w * c))
    }
}
