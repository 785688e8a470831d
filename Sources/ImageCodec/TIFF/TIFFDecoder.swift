/// TIFF decoding: IFD walk → choose the first full-resolution image → read one block (strip
/// or tile, one per sample plane when planar) at a time → decompress → undo the predictor →
/// convert rows to 8-bit pixels → write them out, or box-reduce them as they arrive.
///
/// A reduced decode never holds the full image: strips feed the reducer row by row, tiles
/// are gathered one band (a row of tiles) at a time, so a thumbnail of a 4000×3000 tiled
/// TIFF holds one 256-row band, not 36 MB. What it does hold is one decompressed block: a
/// file stored as a single strip costs its whole raw size, as in libtiff.
enum TIFFDecoder {
    /// The first full-resolution image's header facts, ICC profile and EXIF.
    static func probe(_ container: TIFFContainer, limits: DecodeLimits) throws -> ImageInfo {
        let (dir, layout) = try mainImage(container, limits: limits)
        return try info(container, dir, layout, limits: limits)
    }

    /// Decodes at 1/`reduction` (1, 2, 4 or 8) of the stored size.
    static func decode(_ container: TIFFContainer, reduction: Int, limits: DecodeLimits,
                       cmyk: ColourTransform?) throws -> DecodedImage {
        try PNGDecoder.checkReduction(reduction)
        let (dir, layout) = try mainImage(container, limits: limits)
        let info = try info(container, dir, layout, limits: limits)
        let plan = Plan(layout, reduction: reduction, fileSize: container.source.size)
        try limits.check(plan.memory)
        try checkWork(pixels: layout.width * layout.height, codedBytes: plan.codedBytes, limits: limits, subject: "TIFF")
        var warnings: [String] = []
        let bitmap = try TIFFBlockRenderer(container: container, layout: layout, plan: plan, limits: limits,
                                           cmyk: cmyk).render(warnings: &warnings)
        return DecodedImage(bitmap: bitmap, info: info, warnings: warnings)
    }

    /// The buffers `decode` would allocate, from the IFD alone.
    static func memoryEstimate(_ container: TIFFContainer, reduction: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        try PNGDecoder.checkReduction(reduction)
        let (_, layout) = try mainImage(container, limits: limits)
        let plan = Plan(layout, reduction: reduction, fileSize: container.source.size)
        try checkWork(pixels: layout.width * layout.height, codedBytes: plan.codedBytes, limits: limits, subject: "TIFF")
        return plan.memory
    }

    /// The work bound HEIF grids use (`DecodeLimits.maxPixelsPerCodedByte`), applied to the
    /// stored bytes of a TIFF's blocks or a GIF file: a few hundred bytes claiming 200 MP of
    /// empty strips (or a 1×1 GIF frame on a 16k × 16k screen) would otherwise buy a second of
    /// CPU each. Deflate's best ratio is about 1,000:1, LZW's about 2,700 pixels per byte, so
    /// real files pass by far; anything up to `freeDecodedPixels` always passes.
    static func checkWork(pixels: Int, codedBytes: Int, limits: DecodeLimits, subject: String) throws {
        guard pixels > DecodeLimits.freeDecodedPixels else { return }
        let (perBytes, o1) = max(0, limits.maxPixelsPerCodedByte).multipliedReportingOverflow(by: codedBytes)
        let (allowed, o2) = DecodeLimits.freeDecodedPixels.addingReportingOverflow(perBytes)
        guard o1 || o2 || pixels <= allowed else {
            throw ImageCodecError(.limitExceeded, "\(subject) of \(pixels) pixels from \(codedBytes) bytes of data exceeds \(limits.maxPixelsPerCodedByte) pixels per byte")
        }
    }

    /// The first image that is not a reduced-resolution copy (NewSubfileType bit 0, or the old
    /// SubfileType 2), else the first image.
    static func mainImage(_ c: TIFFContainer, limits: DecodeLimits) throws -> (TIFFDirectory, TIFFImageLayout) {
        let dirs = try c.imageDirectories()
        let full = try dirs.first { dir in
            try (c.integer(dir, 254) ?? 0) & 1 == 0 && (c.integer(dir, 255) ?? 1) != 2 && dir.entries[256] != nil
        } ?? dirs[0]
        return (full, try TIFFImageLayout(c, full, limits: limits))
    }

    static func info(_ c: TIFFContainer, _ dir: TIFFDirectory, _ l: TIFFImageLayout, limits: DecodeLimits) throws -> ImageInfo {
        var exif = TIFFExifSubset.metadata(c, ifd0: try c.directory(at: c.firstIFD))
        if dir.offset != c.firstIFD, let o = try c.integer(dir, 274) { exif.orientation = Orientation(exifValue: o) }
        let icc = try dir.entries[34675].flatMap { try c.valueBytes($0, maxCount: limits.maxMetadataBytes) }
        var info = ImageInfo(format: .tiff, width: l.width, height: l.height, components: l.layout.channels,
                             hasAlpha: l.alpha != .none, bitDepth: l.bitsPerSample, progressive: false,
                             colorSpace: l.colourSpaceName, exif: exif, iccProfile: icc)
        info.tileCount = l.tiled ? l.blocksAcross * l.blocksDown : 1
        info.text = TIFFDecoder.embeddedText(c, try c.directory(at: c.firstIFD), exif: exif, limits: limits)
        info.container = "TIFF · \(TIFFImageLayout.compressionNames[l.compression] ?? "?")\(c.big ? " · BigTIFF" : "")"
        return info
    }

    /// XMP (tag 700) and IPTC-IIM (tag 33723) of IFD0, merged with the EXIF text; damaged or
    /// oversized entries are skipped.
    static func embeddedText(_ c: TIFFContainer, _ ifd0: TIFFDirectory, exif: ExifMetadata, limits: DecodeLimits) -> ImageText {
        var embedded = EmbeddedMetadata(maxBytes: limits.maxMetadataBytes)
        if let e = ifd0.entries[700], let bytes = (try? c.valueBytes(e, maxCount: limits.maxMetadataBytes)) ?? nil {
            embedded.addXMP(bytes)
        }
        if let e = ifd0.entries[33723], let bytes = (try? c.valueBytes(e, maxCount: limits.maxMetadataBytes / 4)) ?? nil {
            embedded.addIIM(bytes)
        }
        return embedded.text(exif: exif.text)
    }

    /// The output and buffers of one decode, decided from the layout: `decode` allocates by it
    /// and `memoryEstimate` reports it.
    struct Plan {
        let reduction: Int
        let outWidth: Int
        let outHeight: Int
        let memory: DecodeMemoryEstimate
        /// Largest compressed block read, clipped to the file.
        let maxBlockInput: Int
        /// Stored bytes of all blocks, each clipped to the file (for the work bound).
        let codedBytes: Int

        init(_ l: TIFFImageLayout, reduction: Int, fileSize: Int) {
            self.reduction = reduction
            outWidth = (l.width + reduction - 1) / reduction
            outHeight = (l.height + reduction - 1) / reduction
            maxBlockInput = min(l.byteCounts.max() ?? 0, fileSize)
            codedBytes = l.byteCounts.reduce(0) { $0 + min(max(0, $1), fileSize) }
            let ch = l.layout.channels
            var m = DecodeMemoryEstimate("TIFF \(l.width)x\(l.height) at \(8 / reduction)/8")
            m.add("output", outWidth, outHeight, ch)
            m.add("blocks", l.blockBytes, l.planar == 2 ? l.samplesPerPixel : 1)
            m.add("block input", maxBlockInput)
            m.add("row scratch", bytes: TIFFPixelConverter.scratchBytes(l))
            if l.compression == 7 { m.add("JPEG block", l.blockWidth, l.blockHeight, 3, 2) }
            if reduction > 1 {
                m.add("band", l.width, l.tiled ? l.blockHeight : 1, ch)
                m.add("block sums", bytes: PNGBoxReducer.sumBytes(width: l.width, height: l.height, channels: ch,
                                                                    factor: reduction, scattered: false))
            }
            memory = m
        }
    }
}
