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
/// probe → plan on the displayed (oriented) size → the smallest decode scale that still covers
/// the planned size times the headroom → decode (stored orientation) → exact Lanczos resample
/// → orient → crop (cover) → encode. Everything that goes wrong is a `PipelineError`.
public enum Thumbnailer {
    /// Decode headroom default, chosen by PSNR against a full decode + Lanczos reference
    /// (see the thumb benchmark): 1.0 already keeps thumbnails above 37 dB, so the smallest
    /// covering scale is used.
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

        // The decoder works in stored orientation: the target turns with the image.
        let swaps = info.orientation.swapsAxes
        let storedW = swaps ? plan.scaledHeight : plan.scaledWidth
        let storedH = swaps ? plan.scaledWidth : plan.scaledHeight
        let headroom = max(1.0, options.decodeHeadroom)
        let scale = ImageCodec.scale(for: info, minWidth: Int((Double(storedW) * headroom).rounded(.up)),
                                     minHeight: Int((Double(storedH) * headroom).rounded(.up)))

        let start = DispatchTime.now().uptimeNanoseconds
        var bitmap = try codec { try ImageCodec.decode(bytes, scale: scale, limits: options.limits).bitmap }
        let decodeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9

        if bitmap.width != storedW || bitmap.height != storedH {
            bitmap = try codec { try Resampler.resize(bitmap, width: storedW, height: storedH) }
        }
        bitmap = info.orientation.apply(to: bitmap)
        if plan.outputWidth != bitmap.width || plan.outputHeight != bitmap.height {
            bitmap = try codec { try bitmap.cropped(x: plan.cropX, y: plan.cropY, width: plan.outputWidth, height: plan.outputHeight) }
        }

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
