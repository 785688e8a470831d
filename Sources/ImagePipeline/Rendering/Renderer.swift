import Foundation
import ImageCodec

/// Knobs of one render.
public struct RenderOptions: Sendable {
    /// JPEG quality 1...100 of rendered JPEGs. Default 82.
    public var jpegQuality: Int
    /// Quality 0...100 of rendered WebPs (cwebp's scale); nil (the default) chooses it per
    /// render to match the JPEG twin's fidelity at `jpegQuality` (see `WebPQualityMatch`).
    public var webpQuality: Int?
    /// How much larger than the resampled size the DCT-scaled decode must be, as a factor
    /// (1.0 = just covers it). Larger keeps more detail for the Lanczos step and costs decode
    /// time. Default `Renderer.defaultHeadroom` (measured, see there).
    public var decodeHeadroom: Double
    /// Output format; nil lets the thumbnailer choose (PNG when the result has transparency,
    /// JPEG otherwise). `.webp` gives lossy WebP, with lossless alpha when the result has
    /// transparency unless PNG is smaller (see `encodeWebP`).
    public var format: ImageFormat?
    /// Serve the original bytes when they already are the answer. Default true.
    public var allowPassthrough: Bool
    /// Bounds checked before decoding.
    public var limits: DecodeLimits
    /// Colour space of rendered images (see `ColourStage`). Default `.srgb`.
    public var colour: ColourOutput

    public init(jpegQuality: Int = 82, decodeHeadroom: Double = Renderer.defaultHeadroom, format: ImageFormat? = nil,
                allowPassthrough: Bool = true, limits: DecodeLimits = .default, colour: ColourOutput = .srgb) {
        self.jpegQuality = jpegQuality
        self.decodeHeadroom = decodeHeadroom
        self.format = format
        self.allowPassthrough = allowPassthrough
        self.limits = limits
        self.colour = colour
    }
}

/// A finished render and how it was made.
public struct RenderOutcome: Sendable {
    public var image: RenderedImage
    /// True when `image.bytes` are the original bytes, unchanged.
    public var passthrough: Bool
    /// The DCT / PNG reduction used to decode (nil for a passthrough).
    public var decodeScale: DecodeScale?
    /// Wall time of the decode step alone, in seconds.
    public var decodeSeconds: Double
    /// Recoverable problems of this render (an unusable colour profile), as log text.
    public var warnings: [String] = []
}

/// Turns original bytes into one sized, upright, encoded image.
///
/// probe → plan on the displayed (oriented) size → the same plan in stored orientation → the
/// smallest decode scale that still covers the planned size times the headroom → reserve the
/// decode's memory → decode → one Lanczos-3 pass from the exact source area of the crop to the
/// output size → release → orient → encode. Everything that goes wrong is a `PipelineError`.
public enum Renderer {
    /// Decode headroom default, chosen with the thumb benchmark's headroom study (480 px fit
    /// of the 8 bench photos; PSNR against Pillow's full decode + Lanczos at the same size):
    /// - at 1.0, decode + resample alone give 41-54 dB on 7 photos; the q82 JPEG gives
    ///   30.5-40.1 dB, within 0.6 dB of vipsthumbnail's own q82 output on every photo (JPEG
    ///   quantisation, not the decode scale, is what keeps detailed photos under 37 dB);
    /// - the exception is a 1/8 decode that already is the output size (mate_Elephants,
    ///   3840 → 480): an 8×8 box average, 35.2 dB, 43.1 dB at 2/8. Going up a scale there
    ///   costs +30-40 % time on baseline files and, for progressive ones, 5.8× the coefficient
    ///   memory (16.8 MP progressive: 51.7 MB extra RSS instead of 13.4 MB), for +0.3-0.6 dB
    ///   in the delivered JPEG. So the smallest covering scale is used; callers that prefer
    ///   detail over time can raise `decodeHeadroom` (1.25 moves those cases to 2/8).
    public static let defaultHeadroom = 1.0

    /// Renders `bytes` to `mode`. The bytes are consumed: once decoded they are released (when
    /// the caller holds no other reference), so a 20 MB original does not stay resident
    /// through resampling and encoding. No decode memory budget applies here: the pipeline
    /// shares one between its renders (`DecodeMemoryBudget`).
    public static func render(_ bytes: consuming [UInt8], mode: ResizeMode, options: RenderOptions = RenderOptions()) throws(PipelineError) -> RenderOutcome {
        try render(consume bytes, mode: mode, options: options, budget: .unbounded)
    }

    /// `render`, holding the decode's memory estimate in `budget` from before the decode until
    /// the decoded bitmap has been resampled (the bitmap is part of the estimate).
    static func render(_ bytes: consuming [UInt8], mode: ResizeMode, options: RenderOptions,
                       budget: DecodeMemoryBudget) throws(PipelineError) -> RenderOutcome {
        try render(consume bytes, modes: [mode], options: options, budget: budget)[0]
    }

    /// Renders `bytes` to every mode of `modes` with one decode: the decode scale is the
    /// smallest that covers the largest planned size, and every size is resampled from that
    /// one bitmap. Outcomes come back in the order of `modes` (a mode the original already
    /// answers is a passthrough, as in `render(_:mode:options:)`); every outcome reports the
    /// shared decode's scale and time.
    ///
    /// A size whose one-by-one render would have decoded at a smaller DCT scale is resampled
    /// here from the larger decode: the Lanczos step then averages more source pixels, so the
    /// result differs slightly from the one-by-one render (it is, if anything, more accurate);
    /// sizes that share the scale come out byte-identical. One failure fails them all.
    public static func render(_ bytes: consuming [UInt8], modes: [ResizeMode], options: RenderOptions = RenderOptions()) throws(PipelineError) -> [RenderOutcome] {
        try render(consume bytes, modes: modes, options: options, budget: .unbounded)
    }

    /// `render(_:modes:options:)` under `budget` (see the single-mode form).
    static func render(_ bytes: consuming [UInt8], modes: [ResizeMode], options: RenderOptions,
                       budget: DecodeMemoryBudget) throws(PipelineError) -> [RenderOutcome] {
        try render(RenderInput.bytes(consume bytes), modes: modes, options: options, budget: budget)
    }

    /// `render` of an original read through positioned reads (a local movie, TIFF or camera
    /// raw): only its `moov` and one sample, or its IFDs and the blocks or preview the decode
    /// needs, are read, never the whole file; the reservation in `budget` counts them.
    static func render(source: ByteSource, modes: [ResizeMode], options: RenderOptions,
                       budget: DecodeMemoryBudget) throws(PipelineError) -> [RenderOutcome] {
        // A still other than TIFF is read whole by the probe, the estimate and the decode
        // alike: read it once.
        let once = try codec { try ImageCodec.readingStillsOnce(source, limits: options.limits) }
        return try render(RenderInput.source(once), modes: modes, options: options, budget: budget)
    }

    /// The render of either input; bytes are released once decoded.
    private static func render(_ given: consuming RenderInput, modes: [ResizeMode], options: RenderOptions,
                               budget: DecodeMemoryBudget) throws(PipelineError) -> [RenderOutcome] {
        guard !modes.isEmpty else { return [] }
        var input = consume given
        let info = try codec { try input.probe(limits: options.limits) }
        var colour = ColourStage.plan(for: info, output: options.colour)
        let plans = try resizePlans(info, modes: modes)

        var outcomes = [RenderOutcome?](repeating: nil, count: modes.count)
        let naturalFormat: ImageFormat = info.hasAlpha && info.format == .png ? .png : .jpeg
        if options.allowPassthrough, info.orientation == .up, info.format == (options.format ?? naturalFormat),
           case .bytes(let bytes) = input {
            for (i, plan) in plans.enumerated() where plan.outputWidth == info.width && plan.outputHeight == info.height {
                let image = RenderedImage(bytes: bytes, contentType: info.format.mimeType, width: info.width, height: info.height)
                outcomes[i] = RenderOutcome(image: image, passthrough: true, decodeScale: nil, decodeSeconds: 0)
            }
        }
        let pending = outcomes.indices.filter { outcomes[$0] == nil }
        if pending.isEmpty { return outcomes.map { $0! } }

        // The decoder works in stored orientation: the plans turn with the image.
        let stored = pending.map { storedPlan(plans[$0], orientation: info.orientation) }
        let coverWidth = stored.map(\.scaledWidth).max()!, coverHeight = stored.map(\.scaledHeight).max()!
        // An embedded thumbnail (HEIF `thmb`, already upright) that covers the planned size is
        // decoded instead of the primary image, as libvips does: a grid thumbnail of a 12 MP
        // iPhone photo then costs one small HEVC picture instead of 48 tiles.
        let thumbnail = info.orientation == .up ? Self.coveringThumbnail(info, width: coverWidth, height: coverHeight) : nil
        var source = info
        if let thumbnail {
            source.width = thumbnail.width
            source.height = thumbnail.height
        }
        let scale = decodeScale(for: source, width: coverWidth, height: coverHeight, headroom: options.decodeHeadroom)

        let needed = try codec { [input] in try input.memoryEstimate(thumbnail: thumbnail, scale: scale, limits: options.limits) }
        var decodeSeconds = 0.0
        let resized = try budget.withReservation(needed) { () throws(PipelineError) -> [Bitmap] in
            let start = DispatchTime.now().uptimeNanoseconds
            let decoded = try codec { [input] in
                try input.decode(thumbnail: thumbnail, scale: scale, limits: options.limits, cmyk: colour.cmyk)
            }
            decodeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            input = .bytes([])
            return try stored.map { plan throws(PipelineError) in try resample(decoded, plan: plan, source: source, scale: scale) }
        }
        for (k, i) in pending.enumerated() {
            outcomes[i] = try finish(resized[k], mode: modes[i], info: info, colour: &colour, scale: scale, decodeSeconds: decodeSeconds,
                                     options: options)
        }
        return outcomes.map { $0! }
    }

    /// Renders the original behind `source` to every mode of `modes` with one decode, reading
    /// only what its decoder needs: a movie's poster reads the `moov` and one sample with
    /// positioned reads, however large the file (docs/video.md); other formats are read
    /// whole. The decode's reservation in `budget` counts the input bytes a movie holds.
    /// No passthrough: a movie is never the answer to an image request.
    public static func render(source: ByteSource, modes: [ResizeMode], options: RenderOptions = RenderOptions()) throws(PipelineError) -> [RenderOutcome] {
        try render(source: source, modes: modes, options: options, budget: .unbounded)
    }

    /// `render(source:modes:options:)` for one mode.
    public static func render(source: ByteSource, mode: ResizeMode, options: RenderOptions = RenderOptions()) throws(PipelineError) -> RenderOutcome {
        try render(source: source, modes: [mode], options: options)[0]
    }

    /// The plan of each mode on the displayed (oriented) size.
    private static func resizePlans(_ info: ImageInfo, modes: [ResizeMode]) throws(PipelineError) -> [ResizePlan] {
        var plans: [ResizePlan] = []
        for mode in modes {
            let plan = mode.plan(width: info.orientedWidth, height: info.orientedHeight, allowUpscale: false)
            guard plan.outputWidth > 0, plan.outputHeight > 0, plan.scaledWidth > 0, plan.scaledHeight > 0 else {
                throw .undecodable("empty resize plan for \(info.orientedWidth)x\(info.orientedHeight)")
            }
            plans.append(plan)
        }
        return plans
    }

    /// A resampled bitmap colour-converted, turned upright and encoded.
    private static func finish(_ resized: Bitmap, mode: ResizeMode, info: ImageInfo, colour: inout ColourPlan, scale: DecodeScale,
                               decodeSeconds: Double, options: RenderOptions) throws(PipelineError) -> RenderOutcome {
        var bitmap = resized
        colour.apply(to: &bitmap)
        bitmap = info.orientation.apply(to: bitmap)
        let image = try encode(bitmap, mode: mode, colour: colour, options: options)
        return RenderOutcome(image: image, passthrough: false, decodeScale: scale, decodeSeconds: decodeSeconds, warnings: colour.warnings)
    }

    /// The planned size (stored orientation) from a decode at `scale` of `source`.
    private static func resample(_ decoded: Bitmap, plan stored: ResizePlan, source: ImageInfo,
                                 scale: DecodeScale) throws(PipelineError) -> Bitmap {
        if scale == .full, stored.scaledWidth == decoded.width, stored.scaledHeight == decoded.height {
            return try codec {
                try decoded.cropped(x: stored.cropX, y: stored.cropY, width: stored.outputWidth, height: stored.outputHeight)
            }
        }
        // Scale and crop in one pass over the exact source area: a decode at M/8 is
        // ceil(size·M/8) pixels but the picture ends inside the last one, and resizing
        // the whole bitmap would shift and stretch it by up to a pixel.
        var region = stored.sourceRegion(sourceWidth: source.width, sourceHeight: source.height, decodeScale: scale)
        region.width = min(region.width, Double(decoded.width) - region.x)
        region.height = min(region.height, Double(decoded.height) - region.y)
        return try codec {
            try Resampler.resize(decoded, width: stored.outputWidth, height: stored.outputHeight, region: region)
        }
    }

    /// The upright, colour-converted `bitmap` encoded in the format `options` ask for.
    private static func encode(_ bitmap: Bitmap, mode: ResizeMode, colour: ColourPlan, options: RenderOptions) throws(PipelineError) -> RenderedImage {
        // HEIF, GIF, TIFF, raws and movies are read, never written: asking for one gets a JPEG
        // (and says so in its type).
        let format: ImageFormat = options.format.map { [.heif, .gif, .tiff, .raw, .video].contains($0) ? .jpeg : $0 }
            ?? (bitmap.hasTransparency ? .png : .jpeg)
        var encoded: [UInt8]
        var sent = format
        switch format {
        case .png:
            encoded = try codec { try PNGEncoder.encode(bitmap, iccProfile: colour.outputProfile) }
        case .webp:
            (encoded, sent) = try encodeWebP(bitmap, quality: options.webpQuality.map { min(100, max(0, $0)) },
                                             jpegQuality: min(100, max(1, options.jpegQuality)), iccProfile: colour.outputProfile)
        case .jpeg, .heif, .gif, .tiff, .raw, .video:
            let opaque: Bitmap
            switch bitmap.layout {
            case .grayAlpha: opaque = bitmap.converted(to: .gray)
            case .rgba: opaque = bitmap.converted(to: .rgb)
            case .gray, .rgb: opaque = bitmap
            }
            let quality = min(100, max(1, options.jpegQuality))
            encoded = try codec { try JPEGEncoder.encode(opaque, quality: quality, subsampling: .s420, iccProfile: colour.outputProfile) }
        }
        // Cover renders are grid thumbnails: they carry the tiny preview pages use as placeholder.
        var preview: PlaceholderPreview?
        if case .cover = mode { preview = PlaceholderPreview(of: bitmap) }
        return RenderedImage(bytes: encoded, contentType: sent.mimeType, width: bitmap.width, height: bitmap.height,
                             averageColour: AverageColour.hex(of: bitmap), preview: preview)
    }

    /// Lossy WebP; for a render with transparency (a PNG or WebP source with alpha), also PNG,
    /// and whichever is smaller. PNG is lossless, so when it is smaller it is the better image
    /// too: that happens on flat graphics (logos, screenshots, icons with few colours), where
    /// PNG's filters and deflate beat VP8's DCT; on photographs with alpha, lossy WebP with
    /// lossless alpha is 3-10× smaller (measured in docs/webp.md, "Serving"). Browsers that
    /// ask for the `.webp` URL read either, by their magic bytes and the content type.
    /// `quality` nil: chosen by `WebPQualityMatch` to be as faithful as the JPEG at `jpegQuality`.
    static func encodeWebP(_ bitmap: Bitmap, quality: Int?, jpegQuality: Int, iccProfile: [UInt8]?) throws(PipelineError) -> ([UInt8], ImageFormat) {
        let webp = try codec { () throws -> [UInt8] in
            if let quality { return try WebPEncoder.encode(bitmap, quality: quality, iccProfile: iccProfile) }
            let match = try WebPQualityMatch.quality(for: bitmap, jpegQuality: jpegQuality,
                                                     start: PipelineConfiguration.defaultWebPQuality, iccProfile: iccProfile)
            return try match.encoded ?? WebPEncoder.encode(bitmap, quality: match.quality, iccProfile: iccProfile)
        }
        guard bitmap.hasTransparency else { return (webp, .webp) }
        let png = try codec { try PNGEncoder.encode(bitmap, iccProfile: iccProfile) }
        return png.count < webp.count ? (png, .png) : (webp, .webp)
    }

    /// The smallest embedded thumbnail at least `width` × `height`, if any.
    static func coveringThumbnail(_ info: ImageInfo, width: Int, height: Int) -> EmbeddedThumbnail? {
        info.embeddedThumbnails.first { $0.width >= width && $0.height >= height }
    }

    /// `plan` (made on the displayed size) in stored orientation: the scaled size swaps axes
    /// for orientations 5-8 and the crop rectangle is mapped through the orientation, so that
    /// orienting the stored-orientation result shows exactly the planned crop.
    static func storedPlan(_ plan: ResizePlan, orientation: Orientation) -> ResizePlan {
        let swaps = orientation.swapsAxes
        let w = swaps ? plan.scaledHeight : plan.scaledWidth
        let h = swaps ? plan.scaledWidth : plan.scaledHeight
        let cx = plan.cropX, cy = plan.cropY, ow = plan.outputWidth, oh = plan.outputHeight
        // Stored x and y ranges of the crop, from Orientation.apply's pixel mapping.
        let x: Int, y: Int
        switch orientation {
        case .up: x = cx; y = cy
        case .mirrored: x = w - cx - ow; y = cy
        case .rotated180: x = w - cx - ow; y = h - cy - oh
        case .mirroredVertically: x = cx; y = h - cy - oh
        case .transposed: x = cy; y = cx
        case .rotatedClockwise: x = cy; y = h - cx - ow
        case .transversed: x = w - cy - oh; y = h - cx - ow
        case .rotatedCounterClockwise: x = w - cy - oh; y = cx
        }
        return ResizePlan(scaledWidth: w, scaledHeight: h, cropX: x, cropY: y,
                          outputWidth: swaps ? oh : ow, outputHeight: swaps ? ow : oh)
    }

    /// The smallest decode reduction whose output covers `width` × `height` (stored
    /// orientation) times `headroom`.
    static func decodeScale(for info: ImageInfo, width: Int, height: Int, headroom: Double) -> DecodeScale {
        let factor = max(1.0, headroom)
        return ImageCodec.scale(for: info, minWidth: Int((Double(width) * factor).rounded(.up)),
                                minHeight: Int((Double(height) * factor).rounded(.up)))
    }

    /// Runs a codec call and maps its error: bytes that are no image at all are `.notAnImage`,
    /// an image over the decode limits `.tooLarge`, every other codec failure `.undecodable`.
    @inline(__always)
    static func codec<T>(_ body: () throws -> T) throws(PipelineError) -> T {
        do {
            return try body()
        } catch let e as ImageCodecError {
            switch e.kind {
            case .notAnImage: throw .notAnImage(e.message)
            case .limitExceeded: throw .tooLarge(e.message)
            default: throw .undecodable(e.description)
            }
        } catch {
            throw .undecodable(String(describing: error))
        }
    }
}

/// What a render reads: the original's bytes in memory, or positioned reads of it.
private enum RenderInput {
    case bytes([UInt8])
    case source(ByteSource)

    func probe(limits: DecodeLimits) throws -> ImageInfo {
        switch self {
        case .bytes(let b): return try ImageCodec.probe(b, limits: limits)
        case .source(let s): return try ImageCodec.probe(source: s, limits: limits)
        }
    }

    func memoryEstimate(thumbnail: EmbeddedThumbnail?, scale: DecodeScale, limits: DecodeLimits) throws -> Int {
        switch self {
        case .bytes(let b):
            return try thumbnail.map { try ImageCodec.thumbnailMemoryEstimate(b, $0, scale: scale, limits: limits) }
                ?? ImageCodec.memoryEstimate(b, scale: scale, limits: limits)
        case .source(let s): return try ImageCodec.memoryEstimate(source: s, scale: scale, limits: limits)
        }
    }

    func decode(thumbnail: EmbeddedThumbnail?, scale: DecodeScale, limits: DecodeLimits, cmyk: ColourTransform?) throws -> Bitmap {
        switch self {
        case .bytes(let b):
            return try thumbnail.map { try ImageCodec.decodeThumbnail(b, $0, scale: scale, limits: limits).bitmap }
                ?? ImageCodec.decode(b, scale: scale, limits: limits, cmyk: cmyk).bitmap
        case .source(let s): return try ImageCodec.decode(source: s, scale: scale, limits: limits, cmyk: cmyk).bitmap
        }
    }
}
