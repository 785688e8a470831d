/// Camera raws through their largest embedded JPEG preview: find the previews (see
/// `TIFFRawPreviews`, `CR3Preview`, `RAFPreview`), pick the largest, read only its bytes and
/// decode it with the JPEG decoder at the asked scale. The image reports the raw's EXIF
/// (camera, lens, exposure, date, GPS) and orientation, which the preview, stored as the
/// sensor saw it, needs to be shown upright.
enum RawDecoder {
    /// The raw's structure, or nil when `source` is a TIFF that is no raw.
    static func open(_ source: ByteSource, limits: DecodeLimits) throws -> RawPreviewFile? {
        let head = try source.read(offset: 0, count: min(source.size, 16))
        if head.starts(with: Array("FUJIFILMCCD-RAW".utf8)) { return try RAFPreview.open(source, limits: limits) }
        if head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) { return try CR3Preview.open(source, limits: limits) }
        return try TIFFRawPreviews.open(TIFFContainer(source))
    }

    static func probe(_ raw: RawPreviewFile, _ source: ByteSource, limits: DecodeLimits) throws -> ImageInfo {
        let preview = try raw.chosen()
        try limits.check(width: preview.width, height: preview.height)
        let head = try source.read(offset: preview.offset, count: min(preview.length, 256 << 10))
        return info(raw, preview, jpeg: try JPEGDecoder.probe(head, limits: limits))
    }

    static func decode(_ raw: RawPreviewFile, _ source: ByteSource, scale: Int, limits: DecodeLimits,
                       cmyk: ColourTransform?) throws -> DecodedImage {
        let preview = try raw.chosen()
        try limits.check(inputBytes: preview.length)
        let bytes = try source.read(offset: preview.offset, count: preview.length)
        var image = try JPEGDecoder.decode(bytes, scale: scale, limits: limits, cmyk: cmyk)
        image.info = info(raw, preview, jpeg: image.info)
        return image
    }

    /// The JPEG decode's buffers plus the preview's bytes, which the decode holds.
    static func memoryEstimate(_ raw: RawPreviewFile, _ source: ByteSource, scale: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        let preview = try raw.chosen()
        try limits.check(inputBytes: preview.length)
        let bytes = try source.read(offset: preview.offset, count: preview.length)
        var estimate = try JPEGDecoder.memoryEstimate(bytes, scale: scale, limits: limits)
        estimate.add("embedded preview", preview.length)
        return estimate
    }

    /// The preview's JPEG facts under the raw's name, EXIF and orientation (the preview's own
    /// EXIF when the raw has none, as in RAF).
    static func info(_ raw: RawPreviewFile, _ preview: RawPreviewFile.Preview, jpeg: ImageInfo) -> ImageInfo {
        var info = jpeg
        info.format = .raw
        if raw.exif != ExifMetadata() { info.exif = raw.exif }
        if !raw.text.isEmpty { info.text = raw.text }
        info.container = "\(raw.name) · embedded preview \(preview.width)×\(preview.height)"
        return info
    }
}
