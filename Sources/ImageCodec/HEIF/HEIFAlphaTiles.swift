/// Alpha decoded tile by tile beside the colour tiles. When the alpha item has the colour
/// item's layout (same base size, tile size, columns and transform: what an encoder writes
/// for a grid with a grid alpha), alpha tile i covers exactly the pixels of colour tile i, so
/// the renderer decodes both together and a thumbnail never holds the full-size alpha plane.
/// Other alpha items (one coded picture under a grid, another size, other transforms) take
/// the general path: the whole alpha plane at full size, scaled to the shown size.
///
/// The alpha sample is the luma sample cut to 8 bits by a right shift, with no range
/// conversion, as libheif does.
extension HEIFPictureRenderer {
    /// Whether `alpha` can be decoded tile by tile beside `colour`.
    static func alphaFollowsTiles(_ alpha: HEIFPicturePlan, _ colour: HEIFPicturePlan) -> Bool {
        alpha.overlay == nil && colour.overlay == nil && alpha.tiles.count == colour.tiles.count
            && alpha.tileWidth == colour.tileWidth && alpha.tileHeight == colour.tileHeight && alpha.columns == colour.columns
            && alpha.baseWidth == colour.baseWidth && alpha.baseHeight == colour.baseHeight && alpha.transform == colour.transform
            && zip(alpha.tiles, colour.tiles).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    /// Bytes of one decoded alpha tile (all its planes, 16-bit samples) and its item data copy.
    static func alphaTileBytes(_ alpha: HEIFPicturePlan, maxItemBytes: Int) -> Int? {
        let (cx, cy) = alpha.configuration.chromaFormat.subsampling
        let chromaPlanes = alpha.configuration.chromaFormat == .monochrome ? 0 : 2
        let w = alpha.tileWidth + 8, h = alpha.tileHeight + 8
        return DecodeMemoryEstimate.sum([DecodeMemoryEstimate.product([w, h, 2]),
                                         DecodeMemoryEstimate.product([(w + cx - 1) / cx, (h + cy - 1) / cy, 2, chromaPlanes]),
                                         maxItemBytes])
    }

    /// Decodes alpha tile `index` of `alpha` and checks it covers a tile.
    func decodeAlphaTile(_ alpha: HEIFPicturePlan, index: Int, stop: (() -> Bool)?) throws -> HEVCPicture {
        let tile = alpha.tiles[index]
        let data = try container.data(of: tile.itemID, limits: limits)
        let picture = try decodePicture(alpha.configuration, data: data, stop: stop)
        guard picture.width >= alpha.tileWidth, picture.height >= alpha.tileHeight, !picture.planes.isEmpty,
              picture.planes[0].width == picture.width, picture.planes[0].samples.count >= picture.width * picture.height,
              (8...16).contains(picture.bitDepthLuma) else {
            throw ImageCodecError(.corrupt, "alpha tile \(tile.itemID) decodes to \(picture.width)x\(picture.height), expected \(alpha.tileWidth)x\(alpha.tileHeight)")
        }
        return picture
    }

    /// Writes the alpha of `count` converted pixels (tile-relative row `y`, from column `x0`)
    /// into `row`, un-premultiplying colour when the file says it is premultiplied.
    func fillAlpha(from tile: HEVCPicture, row: UnsafeMutablePointer<UInt8>, y: Int, x0: Int, count: Int, channels: Int,
                   premultiplied: Bool) {
        let shift = tile.bitDepthLuma - 8
        tile.planes[0].samples.withUnsafeBufferPointer { a in
            let src = a.baseAddress! + (y &* tile.width &+ x0)
            var o = row
            for i in 0..<count {
                let v = UInt8(truncatingIfNeeded: Int(src[i]) >> shift)
                o[channels &- 1] = v
                if premultiplied {
                    for k in 0..<(channels &- 1) { o[k] = v == 0 ? 0 : UInt8(min(255, (Int(o[k]) &* 255 &+ Int(v) / 2) / Int(v))) }
                }
                o += channels
            }
        }
    }
}
