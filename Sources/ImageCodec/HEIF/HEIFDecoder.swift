/// HEIF/HEIC still images: probe, memory estimate and decode of the primary image (with its
/// grid, `iden`, transforms and alpha), tile by tile at a reduced scale.
///
/// The returned image is already transformed (`clap`, `irot`, `imir`): HEIF defines the shown
/// image that way, and viewers ignore the EXIF orientation of HEIF files, so `info.width` and
/// `info.height` are the displayed size and `info.exif.orientation` is always `.up` (date and
/// camera are kept).
enum HEIFDecoder {
    static func probe(_ bytes: [UInt8], limits: DecodeLimits) throws -> ImageInfo {
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: limits)
        return info(graph)
    }

    static func info(_ graph: HEIFImageGraph) -> ImageInfo {
        let p = graph.primary
        let config = p.configuration
        let mono = config.chromaFormat == .monochrome
        let sampling: String
        switch config.chromaFormat {
        case .monochrome: sampling = "4:0:0"
        case .yuv420: sampling = "4:2:0"
        case .yuv422: sampling = "4:2:2"
        case .yuv444: sampling = "4:4:4"
        }
        var exif = graph.exif ?? ExifMetadata()
        exif.orientation = .up
        var info = ImageInfo(format: .heif, width: p.displayWidth, height: p.displayHeight,
                             components: (mono ? 1 : 3) + (graph.alpha == nil ? 0 : 1), hasAlpha: graph.alpha != nil,
                             bitDepth: config.bitDepthLuma, progressive: false, colorSpace: mono ? "Gray" : "YCbCr",
                             sampling: [sampling], exif: exif, iccProfile: p.icc, codePoints: p.nclx)
        info.tileCount = p.tiles.count
        var embedded = EmbeddedMetadata()
        if let xmp = graph.xmp { embedded.addXMP(xmp) }
        info.text = embedded.text(exif: exif.text)
        info.embeddedThumbnails = graph.thumbnails.enumerated().map {
            EmbeddedThumbnail(index: $0.offset, width: $0.element.plan.displayWidth, height: $0.element.plan.displayHeight)
        }
        return info
    }

    static func thumbnailMemoryEstimate(_ bytes: [UInt8], index: Int, reduction: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: limits)
        guard graph.thumbnails.indices.contains(index) else { throw ImageCodecError(.invalidArgument, "no embedded thumbnail \(index)") }
        return estimate(graph, plan: graph.thumbnails[index].plan, alpha: nil, reduction: reduction, threads: limits.maxThreads)
    }

    /// Decodes embedded thumbnail `index` of the primary image (no alpha).
    static func decodeThumbnail(_ bytes: [UInt8], index: Int, reduction: Int, limits: DecodeLimits,
                                tileDecoder: HEIFTileDecoder? = nil) throws -> DecodedImage {
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: limits)
        guard graph.thumbnails.indices.contains(index) else { throw ImageCodecError(.invalidArgument, "no embedded thumbnail \(index)") }
        let plan = graph.thumbnails[index].plan
        try limits.check(estimate(graph, plan: plan, alpha: nil, reduction: reduction, threads: limits.maxThreads))
        var result = info(graph)
        result.width = plan.displayWidth
        result.height = plan.displayHeight
        result.tileCount = plan.tiles.count
        result.hasAlpha = false
        let bitmap = try render(graph, plan: plan, reduction: reduction, limits: limits, decodeTile: tileDecoder)
        return DecodedImage(bitmap: bitmap, info: result)
    }

    static func memoryEstimate(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: limits)
        return estimate(graph, reduction: reduction, threads: limits.maxThreads)
    }

    static func estimate(_ graph: HEIFImageGraph, reduction f: Int, threads: Int) -> DecodeMemoryEstimate {
        estimate(graph, plan: graph.primary, alpha: graph.alpha, reduction: f, threads: threads)
    }

    /// Output bitmap, the buffers of the tiles in flight (one per thread, see
    /// `HEIFPictureRenderer.tilesInFlight`), and for alpha the displayed alpha plane and its decode.
    static func estimate(_ graph: HEIFImageGraph, plan p: HEIFPicturePlan, alpha: HEIFPicturePlan?, reduction f: Int,
                         threads: Int) -> DecodeMemoryEstimate {
        let channels = (p.configuration.chromaFormat == .monochrome ? 1 : 3) + (alpha == nil ? 0 : 1)
        var e = DecodeMemoryEstimate("HEIF \(p.displayWidth)x\(p.displayHeight) (\(p.tiles.count) tiles) at \(8 / f)/8")
        let outW = (p.displayWidth + f - 1) / f, outH = (p.displayHeight + f - 1) / f
        e.add("output", outW, outH, channels)
        if p.overlay != nil {
            e.add("overlay canvas and inputs", bytes: HEIFOverlayRenderer.workingBytes(p, factor: f, threads: threads) { maxItemCopy(graph, $0) })
            return e
        }
        let alphaTiles = alpha.map { HEIFPictureRenderer.alphaFollowsTiles($0, p) } ?? false
        e.add("tile buffers", bytes: HEIFPictureRenderer.workingBytes(p, factor: f, channels: channels, maxItemBytes: maxItemCopy(graph, p),
                                                                             threads: threads, alphaTiles: alphaTiles))
        if let a = alpha, HEIFPictureRenderer.alphaFollowsTiles(a, p) {
            let inFlight = HEIFPictureRenderer.tilesInFlight(p, threads: threads)
            e.add("alpha tiles", bytes: HEIFPictureRenderer.alphaTileBytes(a, maxItemBytes: maxItemCopy(graph, a))
                .flatMap { DecodeMemoryEstimate.product([$0, inFlight]) })
        } else if let a = alpha {
            e.add("alpha plane", p.displayWidth, p.displayHeight)
            e.add("alpha decode", bytes: DecodeMemoryEstimate.sum([DecodeMemoryEstimate.product([a.displayWidth, a.displayHeight]),
                                                                   HEIFPictureRenderer.workingBytes(a, factor: 1, channels: 1, maxItemBytes: maxItemCopy(graph, a),
                                                                                                    threads: threads)]))
        }
        return e
    }

    private static func maxItemCopy(_ graph: HEIFImageGraph, _ plan: HEIFPicturePlan) -> Int {
        plan.tiles.reduce(0) { m, t in max(m, graph.container.locations[t.itemID].map(HEIFItemLocations.copiedBytes) ?? 0) }
    }

    /// Decodes the primary image reduced by `reduction` (1, 2, 4 or 8): ceil(size / reduction).
    static func decode(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits,
                       tileDecoder: HEIFTileDecoder? = nil) throws -> DecodedImage {
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: limits)
        try limits.check(estimate(graph, reduction: reduction, threads: limits.maxThreads))
        let p = graph.primary
        var alphaPlane: [UInt8]?
        if let a = graph.alpha, !HEIFPictureRenderer.alphaFollowsTiles(a, p) {
            let renderer = HEIFPictureRenderer(container: graph.container, plan: a, factor: 1, limits: limits, decodeTile: tileDecoder)
            var plane = try renderer.render(alpha: nil, premultiplied: false)
            if plane.layout != .gray { plane = plane.converted(to: .gray) }
            alphaPlane = scaledNearest(plane, width: p.displayWidth, height: p.displayHeight)
        }
        let alphaTiles = graph.alpha.flatMap { HEIFPictureRenderer.alphaFollowsTiles($0, p) ? $0 : nil }
        let bitmap = try render(graph, plan: p, reduction: reduction, limits: limits, decodeTile: tileDecoder, alpha: alphaPlane,
                                alphaTiles: alphaTiles, premultiplied: graph.premultipliedAlpha)
        return DecodedImage(bitmap: bitmap, info: info(graph))
    }

    /// `plan` drawn by the renderer its kind needs: an overlay's canvas, or tiles.
    private static func render(_ graph: HEIFImageGraph, plan: HEIFPicturePlan, reduction: Int, limits: DecodeLimits,
                               decodeTile: HEIFTileDecoder?, alpha: [UInt8]? = nil, alphaTiles: HEIFPicturePlan? = nil,
                               premultiplied: Bool = false) throws -> Bitmap {
        if plan.overlay != nil {
            return try HEIFOverlayRenderer(container: graph.container, plan: plan, factor: reduction, limits: limits, decodeTile: decodeTile).render()
        }
        let renderer = HEIFPictureRenderer(container: graph.container, plan: plan, factor: reduction, limits: limits, decodeTile: decodeTile)
        return try renderer.render(alpha: alpha, alphaTiles: alphaTiles, premultiplied: premultiplied)
    }

    /// `plane` resized to `width` × `height` by nearest neighbour (libheif's rule for an alpha
    /// image of another size).
    private static func scaledNearest(_ plane: Bitmap, width: Int, height: Int) -> [UInt8] {
        if plane.width == width, plane.height == height { return plane.pixels }
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let sy = y * plane.height / height
            for x in 0..<width { out[y * width + x] = plane.pixels[sy * plane.width + x * plane.width / width] }
        }
        return out
    }
}
