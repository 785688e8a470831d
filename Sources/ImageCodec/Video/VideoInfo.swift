/// What a movie file's headers say about its video, beside the poster's `ImageInfo` fields
/// (stored size, orientation from the display matrix, make/model/date/GPS in `exif`).
public struct VideoInfo: Sendable, Equatable {
    /// Length of the movie in seconds: the video track's media duration (`mdhd`), else the
    /// movie header's (`mvhd`), else the sum of its sample durations (`stts`).
    public var durationSeconds: Double
    /// The video coding by name: "HEVC", "H.264", or the sample entry's four-character code
    /// for codings we do not decode ("mp4v", "av01", "apcn", ...).
    public var codec: String
    /// The sample entry's four-character code: `hvc1`, `hev1`, `avc1`, `avc3`, ...
    public var codecTag: String
    /// Frames per second (samples over their total duration in `stts`); nil when unknown.
    public var frameRate: Double?
    /// Samples (frames) in the video track.
    public var frameCount: Int
    /// Size the movie is shown at before rotation: the track header's, with `pasp` applied
    /// by the track header already (players use this; the poster is the stored size).
    public var displayWidth: Int
    public var displayHeight: Int
    /// `pasp` pixel aspect ratio (horizontal, vertical spacing) when not square.
    public var pixelAspect: [Int]?
    /// The video's own H.273 colour description (`colr`, else the SPS VUI). `ImageInfo`
    /// describes the poster's pixels instead, which differ for HDR (see `hdr`).
    public var codePoints: ColourCodePoints?
    /// "HLG" or "PQ" for HDR video (its poster is tone-mapped to SDR, docs/video.md); nil for SDR.
    public var hdr: String?
    /// Recording time as the file says it: `com.apple.quicktime.creationdate` or `©day`
    /// (local time with its offset), else the media header's UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
    public var creationDate: String?
    /// `com.apple.quicktime.content.identifier`: equal in a Live Photo's still (its Apple
    /// MakerNote) and its movie, so the two can be paired.
    public var contentIdentifier: String?
    /// Whether the movie has a sound track.
    public var hasAudio: Bool
    /// Bytes a poster decode reads: the `moov` box and the poster's sample (file offset and size).
    public var movieBoxBytes: Int
    public var posterSampleOffset: Int
    public var posterSampleBytes: Int

    public init(durationSeconds: Double, codec: String, codecTag: String, frameRate: Double?, frameCount: Int,
                displayWidth: Int, displayHeight: Int, pixelAspect: [Int]? = nil, codePoints: ColourCodePoints? = nil,
                hdr: String? = nil, creationDate: String? = nil, contentIdentifier: String? = nil, hasAudio: Bool = false,
                movieBoxBytes: Int = 0, posterSampleOffset: Int = 0, posterSampleBytes: Int = 0) {
        self.durationSeconds = durationSeconds
        self.codec = codec
        self.codecTag = codecTag
        self.frameRate = frameRate
        self.frameCount = frameCount
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.pixelAspect = pixelAspect
        self.codePoints = codePoints
        self.hdr = hdr
        self.creationDate = creationDate
        self.contentIdentifier = contentIdentifier
        self.hasAudio = hasAudio
        self.movieBoxBytes = movieBoxBytes
        self.posterSampleOffset = posterSampleOffset
        self.posterSampleBytes = posterSampleBytes
    }
}
