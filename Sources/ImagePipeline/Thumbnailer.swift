import Foundation
import ImageCodec

/// Knobs of one render.
public struct ThumbnailOptions: Sendable {
    /// JPEG quality 1...100 of rendered JPEGs. Default 82.
    public var jpegQuality: Int
    /// How much larger than the resampled size the DCT-scaled decode must be, as a factor
    /// (1.0 = just covers it). Larger keeps more detail for the Lanczos step and costs decode
    /// time. Default `Thumbnailer.defaultHeadroom` (measured, see there).
    public var decodeHeadroom: Double
    /// Output format; nil lets the thumbnailer choose (PNG when the result has transparency,
    /// JPEG otherwise).
    public var format: ImageFormat?
    /// Serve the original bytes when they already are the answer. Default true.
    public var allowPassthrough: Bool
    /// Bounds checked before decoding.
    public var limits: DecodeLimits

    public init(jpegQuality: Int = 82, decodeHeadroom: Double = Thumbnailer.defaultHeadroom, format: ImageFormat? = nil,
                allowPassthrough: Bool = true, limits: DecodeLimits = .default) {
        self.jpegQuality = jpegQuality
        self.decodeHeadroom = decodeHeadroom
        self.format = format
        self.allowPassthrough = allowPassthrough
        self.limits = limits
    }
}

/// A finished render and how it was made.
public struct Thumbnail: Sendable {
    public var image: RenderedImage
    /// True when `image.bytes` are the original bytes, unchanged.
    public var passthrough: Bool
    /// The DCT / PNG reduction used to decode (nil for a passthrough).
    public var decodeScale: DecodeScale?
    /// Wall time of the decode step alone, in seconds.
    public var decodeSeconds: Double
}

/// Turns original bytes into one sized, upright, encoded image.
///
/// probe → plan on the displayed (oriented) size → the same plan in stored orientation → the
/// smallest decode scale that still covers the planned size times the headroom → decode →
/// one Lanczos-3 pass from the exact source area of the crop to the output size → orient →
/// encode. Everything that goes wrong is a `PipelineError`.
public enum Thumbnailer {
    /// Decode headroom default, chosen with the thumb benchmark's headroom study (480 px from
    /// the bench photos, PSNR vs full decode + Lanczos): at 1.0, decode + resample alone reach
    /// 35.2-53 dB and the q82 JPEG 30.3-38.6 dB, within 0.3-1.6 dB of vipsthumbnail, whose
    /// own q82 output is 31-40 dB; JPEG quantisation, not the decode scale, bounds the result.
    /// Going to 1.5 gains 0.3-0.9 dB of JPEG PSNR for 40-90 % more time on 16-20 MP files, so
    /// the smallest covering scale is used, except 2/8 (see `quarterScaleHeadroom`).
    public static let defaultHeadroom = 1.0

    public static func render(_ bytes: [UInt8], mode: ResizeMode, options: ThumbnailOptions = ThumbnailOptions()) throws(PipelineError) -> Thumbnail {
        let info = try codec { try ImageCodec.probe(bytes, limits: options.limits) }
        let plan = mode.plan(width: info.orientedWidth, height: info.orientedHeight, allowUpscale: false)
        guard plan.outputWidth > 0, plan.outputHeight > 0, plan.scaledWidth > 0, plan.scaledHeight > 0 else {
            throw .undecodable("empty resize plan for \(info.orientedWidth)x\(info.orientedHeight)")
        }

        let naturalFormat: ImageFormat = info.hasAlpha && info.format == .png ? .png : .jpeg
        if options.allowPassthrough, info.orientation == .up, info.format == (options.format ?? naturalFormat),
           plan.outputWidth == info.width, plan.outputHeight == info.height {
            let image = RenderedImage(bytes: bytes, contentType: info.format.mimeType, width: info.width, height: info.height)
            return Thumbnail(image: image, passthrough: true, decodeScale: nil, decodeSeconds: 0)
        }

        // The decoder works in stored orientation: the plan turns with the image.
        let stored = storedPlan(plan, orientation: info.orientation)
        let scale = decodeScale(for: info, width: stored.scaledWidth, height: stored.scaledHeight, headroom: options.decodeHeadroom)

        let start = DispatchTime.now().uptimeNanoseconds
        let decoded = try codec { try ImageCodec.decode(bytes, scale: scale, limits: options.limits).bitmap }
        let decodeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9

        var bitmap: Bitmap
        if scale == .full, stored.scaledWidth == decoded.width, stored.scaledHeight == decoded.height {
            bitmap = try codec {
                try decoded.cropped(x: stored.cropX, y: stored.cropY, width: stored.outputWidth, height: stored.outputHeight)
            }
        } else {
            // Scale and crop in one pass over the exact source area: a decode at M/8 is
            // ceil(size·M/8) pixels but the picture ends inside the last one, and resizing
            // the whole bitmap would shift and stretch it by up to a pixel.
            var region = stored.sourceRegion(sourceWidth: info.width, sourceHeight: info.height, decodeScale: scale)
            region.width = min(region.width, Double(decoded.width) - region.x)
            region.height = min(region.height, Double(decoded.height) - region.y)
            bitmap = try codec {
                try Resampler.resize(decoded, width: stored.outputWidth, height: stored.outputHeight, region: region)
            }
        }
        bitmap = info.orientation.apply(to: bitmap)

        let format = options.format ?? (bitmap.hasTransparency ? .png : .jpeg)
        let encoded: [UInt8]
        switch format {
        case .png:
            encoded = try codec { try PNGEncoder.encode(bitmap) }
        case .jpeg:
            let opaque: Bitmap
            switch bitmap.layout {
            case .grayAlpha: opaque = bitmap.converted(to: .gray)
            case .rgba: opaque = bitmap.converted(to: .rgb)
            case .gray, .rgb: opaque = bitmap
            }
            let quality = min(100, max(1, options.jpegQuality))
            encoded = try codec { try JPEGEncoder.encode(opaque, quality: quality, subsampling: .s420) }
        }
        let image = RenderedImage(bytes: encoded, contentType: format.mimeType, width: bitmap.width, height: bitmap.height)
        return Thumbnail(image: image, passthrough: false, decodeScale: scale, decodeSeconds: decodeSeconds)
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

    /// Below this factor over the target, 2/8 is skipped for 4/8: libjpeg's 2×2 reduced IDCT
    /// aliases, and a Lanczos step that barely shrinks does not hide it (measured PSNR of the
    /// lossless render vs full decode + Lanczos: 32.9 dB at 2/8 with a 0.75 resample ratio,
    /// 40.8-43.4 dB at 0.64, 53.0 dB at 4/8). 1/8 (a clean 8×8 average) and 4/8 need no extra.
    public static let quarterScaleHeadroom = 1.5

    /// The smallest decode reduction whose output covers `width` × `height` (stored
    /// orientation) times `headroom`, and times `quarterScaleHeadroom` for 2/8.
    static func decodeScale(for info: ImageInfo, width: Int, height: Int, headroom: Double) -> DecodeScale {
        let base = max(1.0, headroom)
        for candidate in [DecodeScale.eighth, .quarter, .half] {
            let factor = candidate == .quarter ? max(base, quarterScaleHeadroom) : base
            let (w, h) = candidate.outputSize(width: info.width, height: info.height)
            if Double(w) >= Double(width) * factor && Double(h) >= Double(height) * factor { return candidate }
        }
        return .full
    }

    /// Runs a codec call and maps its error: bytes that are no image at all are `.notAnImage`,
    /// every other codec failure `.undecodable`.
    @inline(__always)
    static func codec<T>(_ body: () throws -> T) throws(PipelineError) -> T {
        do {
            return try body()
        } catch let e as ImageCodecError {
            throw e.kind == .notAnImage ? .notAnImage(e.message) : .undecodable(e.description)
        } catch {
            throw .undecodable(String(describing: error))
        }
    }
}
