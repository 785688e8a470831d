/// What a header says about an image, read without decoding its pixels.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// Stored size, before any EXIF orientation. HEIF: the displayed size (its transforms are
    /// applied by the decoder, and `orientation` is always `.up`).
    public var width: Int
    public var height: Int
    /// JPEG: number of components (1, 3, 4). PNG: channels after palette expansion (1-4).
    public var components: Int
    /// Whether decoded pixels carry alpha (PNG colour types 4 and 6, or a tRNS chunk).
    public var hasAlpha: Bool
    /// Bits per sample as stored (8 for JPEG; 1-16 for PNG; HEIF luma 8-16, decoded to 8).
    public var bitDepth: Int
    /// JPEG: progressive (SOF2). PNG: Adam7 interlaced. GIF: the first frame is interlaced.
    public var progressive: Bool
    /// JPEG: "YCbCr", "Gray", "RGB", "CMYK" or "YCCK". PNG: "Gray", "GrayAlpha", "RGB", "RGBA", "Palette".
    /// GIF: "Palette". TIFF: "Gray", "GrayAlpha", "RGB", "RGBA", "Palette", "CMYK". Raws: their preview JPEG's.
    public var colorSpace: String
    /// JPEG sampling factors per component, such as ["2x2", "1x1", "1x1"]; HEIF the chroma
    /// format, one of ["4:2:0"], ["4:2:2"], ["4:4:4"], ["4:0:0"]; empty for PNG.
    public var sampling: [String]
    /// EXIF fields (JPEG APP1 or PNG eXIf); `exif.orientation` is `.up` when absent.
    public var exif: ExifMetadata
    /// The embedded ICC profile as stored (JPEG APP2 chunks joined; PNG iCCP inflated), kept, not applied.
    public var iccProfile: [UInt8]?
    /// H.273 colour description (HEIF `nclx`, HEVC VUI), when the file names its colour space
    /// that way instead of (or beside) an ICC profile.
    public var codePoints: ColourCodePoints?
    /// PNG gAMA as a plain number (for example 0.45455), reported, not applied.
    public var gamma: Double?
    /// PNG sRGB rendering intent, reported, not applied.
    public var srgbIntent: Int?
    /// Independently coded tiles the image is stored as: a HEIF grid's tile count, 1 otherwise.
    public var tileCount: Int = 1
    /// PNG cHRM white point and primaries (used with `gamma` when there is no ICC profile).
    public var chromaticities: Chromaticities?
    /// Smaller renditions stored in the file (HEIF `thmb` items of the primary image), smallest
    /// first, with the primary's aspect ratio (within 1 %). Decode one with
    /// `ImageCodec.decodeThumbnail` when it covers the size a render needs.
    public var embeddedThumbnails: [EmbeddedThumbnail] = []
    /// Movies only: duration, codec, frame rate and the rest of what the movie header says
    /// (the other fields describe the poster; `exif` carries the display matrix as
    /// `orientation`, and make, model, date and GPS from the movie's metadata).
    public var video: VideoInfo?
    /// What holds the pixels, when the format alone does not say: "TIFF · LZW · BigTIFF";
    /// for raws the container and what is decoded: "Canon CR3 · embedded preview 6000×4000"
    /// (a raw's `width` and `height` are its preview's, which is what `decode` returns).
    /// nil for the other formats.
    public var container: String?
    /// Frames of an animation (GIF); 1 for a still. Only the first frame is ever decoded.
    public var frameCount: Int = 1
    /// Total display time of an animation in seconds (the sum of a GIF's frame delays),
    /// nil for a still.
    public var duration: Double?
    /// Titles, captions, keywords, people and places written into the file: XMP (extended XMP
    /// joined), IPTC-IIM and the EXIF text tags, merged by `EmbeddedMetadata` (XMP first).
    public var text = ImageText()

    public init(format: ImageFormat, width: Int, height: Int, components: Int, hasAlpha: Bool,
                bitDepth: Int, progressive: Bool, colorSpace: String, sampling: [String] = [],
                exif: ExifMetadata = ExifMetadata(), iccProfile: [UInt8]? = nil,
                codePoints: ColourCodePoints? = nil, gamma: Double? = nil, srgbIntent: Int? = nil,
                chromaticities: Chromaticities? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.components = components
        self.hasAlpha = hasAlpha
        self.bitDepth = bitDepth
        self.progressive = progressive
        self.colorSpace = colorSpace
        self.sampling = sampling
        self.exif = exif
        self.iccProfile = iccProfile
        self.codePoints = codePoints
        self.gamma = gamma
        self.srgbIntent = srgbIntent
        self.chromaticities = chromaticities
    }

    public var orientation: Orientation { exif.orientation }
    /// Size as displayed, after the EXIF orientation.
    public var orientedWidth: Int { orientation.swapsAxes ? height : width }
    public var orientedHeight: Int { orientation.swapsAxes ? width : height }
}

/// A smaller rendition of the image stored in its file.
public struct EmbeddedThumbnail: Sendable, Equatable, Hashable {
    /// Which one: pass the value back to `ImageCodec.decodeThumbnail`.
    public var index: Int
    /// Displayed size (its own transforms applied), in pixels.
    public var width: Int
    public var height: Int

    public init(index: Int, width: Int, height: Int) {
        self.index = index
        self.width = width
        self.height = height
    }
}

/// The EXIF fields the gallery shows or acts on. Each field is nil when the file does not
/// carry it or carries it damaged (a zero denominator, a value outside its range).
public struct ExifMetadata: Sendable, Equatable {
    public var orientation: Orientation
    /// DateTimeOriginal as written ("YYYY:MM:DD HH:MM:SS"), else DateTime from IFD0.
    public var dateTimeOriginal: String?
    public var make: String?
    public var model: String?
    /// LensMake (0xA433) and LensModel (0xA434), as written (at most 256 bytes each).
    public var lensMake: String?
    public var lensModel: String?
    /// ExposureTime (0x829A), seconds, as the camera wrote the fraction (1/120 stays 1/120).
    public var exposureTime: ExifRational?
    /// FNumber (0x829D): the aperture's f-number.
    public var fNumber: ExifRational?
    /// ISOSpeedRatings (0x8827), else ISOSpeed (0x8833) when the first is absent, 0 or the
    /// 65535 that means "too big for a SHORT".
    public var iso: Int?
    /// FocalLength (0x920A), millimetres.
    public var focalLength: ExifRational?
    /// FocalLengthIn35mmFilm (0xA405), millimetres; 0 (unknown) is left out.
    public var focalLength35mm: Int?
    /// Where the photo was taken, from the GPS IFD (0x8825). Private data: the web layer
    /// shows it only when the gallery's configuration allows.
    public var gps: GPSPosition?
    /// The EXIF text tags (ImageDescription, UserComment, Artist, Copyright, the Windows XP
    /// tags) as `ImageText`; `ImageInfo.text` holds them merged with XMP and IPTC.
    public var text = ImageText()
    /// Apple's media group identifier from the maker note (tag 0x0011): the same text as the
    /// content identifier in the QuickTime metadata of the Live Photo's movie.
    public var contentIdentifier: String?

    public init(orientation: Orientation = .up, dateTimeOriginal: String? = nil, make: String? = nil, model: String? = nil,
                lensMake: String? = nil, lensModel: String? = nil, exposureTime: ExifRational? = nil, fNumber: ExifRational? = nil,
                iso: Int? = nil, focalLength: ExifRational? = nil, focalLength35mm: Int? = nil, gps: GPSPosition? = nil) {
        self.orientation = orientation
        self.dateTimeOriginal = dateTimeOriginal
        self.make = make
        self.model = model
        self.lensMake = lensMake
        self.lensModel = lensModel
        self.exposureTime = exposureTime
        self.fNumber = fNumber
        self.iso = iso
        self.focalLength = focalLength
        self.focalLength35mm = focalLength35mm
        self.gps = gps
    }
}

/// A decoded image with what was learned on the way.
public struct DecodedImage: Sendable {
    public var bitmap: Bitmap
    public var info: ImageInfo
    /// Recoverable problems (a truncated scan filled with grey, a bad ancillary CRC), as log text.
    public var warnings: [String]

    public init(bitmap: Bitmap, info: ImageInfo, warnings: [String] = []) {
        self.bitmap = bitmap
        self.info = info
        self.warnings = warnings
    }
}
