/// The single-picture path of `HEIFPictureRenderer`: a primary image coded as one HEVC picture
/// (heif-enc, many Android phones and cameras) is decoded in bands of finished lines
/// (`HEVCDecoder.decodeRows`) and each band is drawn into the output as it arrives, exactly as a
/// grid's tiles are, so a thumbnail holds two CTB rows of the picture instead of all of it.
extension HEIFPictureRenderer {
    /// Whether `plan` is drawn band by band: one coded picture whose alpha, if any, is not
    /// decoded alongside it tile by tile (that alpha picture is decoded whole with the colour
    /// one). A picture the HEVC decoder cannot window (several tile columns) still comes as one
    /// band; `workingBytes` then counts it whole.
    static func streamsRows(_ plan: HEIFPicturePlan, alphaTiles: Bool) -> Bool {
        plan.tiles.count == 1 && !alphaTiles && plan.overlay == nil
    }

    /// Decodes the plan's only picture band by band and draws the part of each band inside the
    /// crop into `target`.
    func drawRows(into target: DrawTarget, alpha: [UInt8]?, premultiplied: Bool) throws {
        let tile = plan.tiles[0]
        guard let (x0, x1, y0, y1) = visibleRect(ofTile: 0) else { return }
        let data = try container.data(of: tile.itemID, limits: limits)
        let configuration = plan.configuration
        var firstConverter: HEIFColourConverter?
        try HEVCDecoder.decodeRows(parameterSets: configuration.parameterSets, data: data, lengthSize: configuration.lengthSize,
                                   limits: Self.tileLimits(plan, limits)) { band in
            let picture = band.picture
            // Size and format only: a band's planes are a window the decoder sized itself.
            try checkDecoded(item: tile.itemID, width: band.croppedWidth, height: band.croppedHeight,
                             chromaFormat: picture.chromaFormat, planesFit: true)
            let bandConverter = firstConverter ?? converter(for: picture)
            firstConverter = bandConverter
            // Stored (cropped) lines this band finishes, inside the crop.
            let from = max(y0, tile.y + band.rows.lowerBound - band.cropTop)
            let to = min(y1, tile.y + band.rows.upperBound - band.cropTop)
            guard from < to else { return }
            let drawn = DecodedTile(x0: x0, x1: x1, y0: from, y1: to, tileX: tile.x - band.cropLeft,
                                    tileY: tile.y + band.top - band.cropTop, picture: picture, alpha: nil, converter: bandConverter)
            try draw(drawn, into: target, alpha: alpha, premultiplied: premultiplied)
        }
    }
}
