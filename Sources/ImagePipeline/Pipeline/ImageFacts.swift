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
    /// How the photo was taken (lens, exposure); empty when the file does not say.
    public var shot: ShotFacts
    /// Where it was taken (EXIF GPS), nil when the file has no valid position. Private data:
    /// pages show it only when the gallery's configuration allows (`show_location`).
    public var location: PhotoLocation?
    /// Movies: what a page shows beside the poster. Motion photos (a JPEG or HEIF with a
    /// movie inside, `MotionMovie`): their movie's; nil for other photos.
    public var video: VideoFacts?
    /// Titles, captions, keywords, people and places written into the file (or its sidecar).
    public var text: PhotoText
    /// Apple's Live Photo identifier: a still's media group UUID (maker note), a movie's
    /// QuickTime content identifier. A still and a movie with the same one are one Live Photo.
    public var contentIdentifier: String?

    /// Facts remembered elsewhere (the library index).
    public init(width: Int, height: Int, pixelCount: Int, format: String, dateTaken: String?, cameraMake: String?,
                cameraModel: String?, colourSpace: String?, shot: ShotFacts = ShotFacts(), location: PhotoLocation? = nil,
                video: VideoFacts? = nil, text: PhotoText = PhotoText(), contentIdentifier: String? = nil) {
        self.width = width
        self.height = height
        self.pixelCount = pixelCount
        self.format = format
        self.dateTaken = dateTaken
        self.cameraMake = cameraMake
        self.cameraModel = cameraModel
        self.colourSpace = colourSpace
        self.shot = shot
        self.location = location
        self.video = video
        self.text = text
        self.contentIdentifier = contentIdentifier ?? video?.contentIdentifier
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
        let exif = info.exif
        shot = ShotFacts(lensMake: exif.lensMake, lensModel: exif.lensModel, exposureSeconds: exif.exposureTime?.value,
                         fNumber: exif.fNumber?.value, iso: exif.iso, focalLength: exif.focalLength?.value,
                         focalLength35mm: exif.focalLength35mm)
        location = exif.gps.map { PhotoLocation(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) }
        video = info.video.map(VideoFacts.init)
        text = PhotoText(info.text)
        contentIdentifier = info.exif.contentIdentifier ?? info.video?.contentIdentifier
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
        case .video:
            var parts = [info.video?.codec ?? "video"]
            if info.bitDepth > 8 { parts.append("\(info.bitDepth)-bit") }
            if let hdr = info.video?.hdr { parts.append(hdr) }
            return parts.joined(separator: ", ")
        case .gif: return info.frameCount > 1 ? "GIF, \(info.frameCount) frames" : "GIF"
        case .tiff, .raw: return info.container ?? (info.format == .tiff ? "TIFF" : "camera raw")
        }
    }
}

/// What a page shows about a movie beside its poster (the poster's size, date, camera and
/// place are the `ImageFacts` fields).
public struct VideoFacts: Sendable, Equatable {
    /// Length in seconds.
    public var durationSeconds: Double
    /// "HEVC", "H.264", or the sample entry's code for codings without a poster decoder.
    public var codec: String
    /// Frames per second; nil when the file does not say.
    public var frameRate: Double?
    /// "HLG" or "PQ" for HDR video, nil for SDR.
    public var hdr: String?
    /// Apple's content identifier: the same in a Live Photo's still and movie.
    public var contentIdentifier: String?
    public var hasAudio: Bool

    public init(durationSeconds: Double, codec: String, frameRate: Double? = nil, hdr: String? = nil,
                contentIdentifier: String? = nil, hasAudio: Bool = false) {
        self.durationSeconds = durationSeconds
        self.codec = codec
        self.frameRate = frameRate
        self.hdr = hdr
        self.contentIdentifier = contentIdentifier
        self.hasAudio = hasAudio
    }

    /// "0:07", "1:02:03": the duration as a page shows it (rounded to the second, at least 0:01).
    public var durationText: String {
        let total = max(1, Int(durationSeconds + 0.5))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):" + (m < 10 ? "0\(m)" : "\(m)") + ":" + ss }
        return "\(m):" + ss
    }
}

/// The lens and exposure EXIF reports; every field nil when the file does not carry it.
public struct ShotFacts: Sendable, Equatable {
    public var lensMake: String?
    public var lensModel: String?
    /// ExposureTime, seconds (1/120 s is 0.00833...).
    public var exposureSeconds: Double?
    /// The aperture's f-number (1.5 for f/1.5).
    public var fNumber: Double?
    /// ISO sensitivity.
    public var iso: Int?
    /// Focal length of the lens, millimetres.
    public var focalLength: Double?
    /// The 35 mm film equivalent focal length, millimetres.
    public var focalLength35mm: Int?

    public init(lensMake: String? = nil, lensModel: String? = nil, exposureSeconds: Double? = nil, fNumber: Double? = nil,
                iso: Int? = nil, focalLength: Double? = nil, focalLength35mm: Int? = nil) {
        self.lensMake = lensMake
        self.lensModel = lensModel
        self.exposureSeconds = exposureSeconds
        self.fNumber = fNumber
        self.iso = iso
        self.focalLength = focalLength
        self.focalLength35mm = focalLength35mm
    }
}

/// A position on the earth (WGS 84).
public struct PhotoLocation: Sendable, Equatable {
    /// Degrees north (negative: south).
    public var latitude: Double
    /// Degrees east (negative: west).
    public var longitude: Double
    /// Metres above sea level (negative: below); nil when unknown.
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

extension ImagePipeline {
    /// Header facts of the original for detail pages; a local motion photo's carry its
    /// movie's facts as `video` (the still is searched once per version).
    public func facts(url: String) throws(PipelineError) -> ImageFacts {
        let info = try info(url: url)
        var facts = ImageFacts(info)
        if MotionMovies.stillFormats.contains(info.format), let movie = try? motionMovie(url: url) { facts.video = movie.movie.video }
        return facts
    }
}
