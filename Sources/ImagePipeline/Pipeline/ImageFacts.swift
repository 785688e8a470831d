import ImageCodec

/// What a detail page shows about an original, in the web layer's terms: no codec types.
public struct ImageFacts: Sendable, Equatable {
    /// Size as displayed (after orientation).
    public var width: Int
    public var height: Int
    /// Stored pixel count, for "12.2 megapixels".
    public var pixelCount: Int
    /// Format in words: "JPEG", "JPEG, progressive", "PNG, interlaced", "HEIC, 10-bit, 4:2:0, 48 tiles".
    public var format: String
    /// EXIF DateTimeOriginal as written ("YYYY:MM:DD HH:MM:SS").
    public var dateTaken: String?
    public var cameraMake: String?
    public var cameraModel: String?
    /// The colour space the file declares, in words ("Display P3", "Adobe RGB"); nil when it
    /// declares none (and is shown as sRGB, as browsers assume).
    public var colourSpace: String?

    /// Facts remembered elsewhere (the library index).
    public init(width: Int, height: Int, pixelCount: Int, format: String, dateTaken: String?, cameraMake: String?,
                cameraModel: String?, colourSpace: String?) {
        self.width = width
        self.height = height
        self.pixelCount = pixelCount
        self.format = format
        self.dateTaken = dateTaken
        self.cameraMake = cameraMake
        self.cameraModel = cameraModel
        self.colourSpace = colourSpace
    }

    init(_ info: ImageInfo) {
        width = info.orientedWidth
        height = info.orientedHeight
        pixelCount = info.width * info.height
        format = ImageFacts.formatName(info)
        dateTaken = info.exif.dateTimeOriginal
        cameraMake = info.exif.make
        cameraModel = info.exif.model
        colourSpace = info.colourSpaceName
    }

    static func formatName(_ info: ImageInfo) -> String {
        switch info.format {
        case .jpeg: return info.progressive ? "JPEG, progressive" : "JPEG"
        case .png: return info.progressive ? "PNG, interlaced" : "PNG"
        case .heif:
            var parts = ["HEIC"]
            if info.bitDepth > 8 { parts.append("\(info.bitDepth)-bit") }
            if let chroma = info.sampling.first { parts.append(chroma) }
            if info.tileCount > 1 { parts.append("\(info.tileCount) tiles") }
            return parts.joined(separator: ", ")
        case .webp: return info.colorSpace == "RGB" ? "WebP, lossless" : "WebP"
        }
    }
}

extension ImagePipeline {
    /// Header facts of the original for detail pages.
    public func facts(url: String) throws(PipelineError) -> ImageFacts {
        ImageFacts(try info(url: url))
    }
}
