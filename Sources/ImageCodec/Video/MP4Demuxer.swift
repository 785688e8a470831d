/// A movie file reduced to its poster: the `moov` (found by `MP4TopLevel`, read whole), the
/// first video track, its sample description and where its poster sample lies. Reading the
/// sample is a separate positioned read, so probing costs the `moov` alone.
struct MP4Demuxer {
    let movie: MP4Movie
    let moovBytes: [UInt8]
    /// Where the `moov` box lies in the file.
    let moovRange: Range<Int>
    let track: MP4Track
    let entry: MP4SampleEntry
    /// 1-based number of the poster sample, its file offset and size.
    let posterSample: Int
    let sampleOffset: Int
    let sampleSize: Int
    let brands: [FourCC]

    /// Largest poster sample read: 64 MiB (a 4K intra frame at camera bit rates is 1-4 MB;
    /// 8K HEVC ProRes-like rates stay below 32 MB), and never over `limits.maxInputBytes`.
    static let maxSampleBytes = 64 << 20

    init(_ source: ByteSource, limits: DecodeLimits) throws {
        let top = try MP4TopLevel(source)
        try limits.check(inputBytes: top.moov.count)
        moovBytes = try source.read(offset: top.moov.lowerBound, count: top.moov.count)
        moovRange = top.moov
        brands = top.brands
        movie = try MP4Movie(moovBytes)
        guard let video = movie.videoTrack else { throw ImageCodecError(.unsupported, "the movie has no video track") }
        track = video
        let tables = video.tables
        guard tables.sampleCount > 0 else { throw ImageCodecError(.corrupt, "the video track has no samples") }
        let target = tables.sample(at: video.editStart, moovBytes)
        posterSample = try tables.syncSample(atOrBefore: target, moovBytes)
        let (offset, size, description) = try tables.location(of: posterSample, moovBytes)
        guard description >= 1, description <= video.sampleEntries.count else {
            throw ImageCodecError(.corrupt, "sample \(posterSample) names sample description \(description) of \(video.sampleEntries.count)")
        }
        entry = video.sampleEntries[description - 1]
        guard size > 0 else { throw ImageCodecError(.corrupt, "poster sample \(posterSample) is empty") }
        guard size <= min(Self.maxSampleBytes, limits.maxInputBytes) else {
            throw ImageCodecError(.limitExceeded, "poster sample of \(size) bytes exceeds the \(min(Self.maxSampleBytes, limits.maxInputBytes)) byte limit")
        }
        guard offset <= source.size, size <= source.size - offset else {
            throw ImageCodecError(.truncated, "poster sample (\(size) bytes at \(offset)) lies past the end of the file (\(source.size) bytes)")
        }
        sampleOffset = offset
        sampleSize = size
    }

    /// The poster sample's bytes.
    func readSample(_ source: ByteSource) throws -> [UInt8] {
        try source.read(offset: sampleOffset, count: sampleSize)
    }

    /// The display orientation: the track's matrix, then the movie's.
    var orientation: Orientation { HEIFTransform.compose(track.orientation, then: movie.orientation) }

    /// Video facts for `ImageInfo.video`; `codePoints` is the stream's colour description.
    func videoInfo(codePoints: ColourCodePoints?) -> VideoInfo {
        let (samples, total) = track.tables.timing(moovBytes)
        var seconds = 0.0
        if track.timescale > 0, track.duration > 0 {
            seconds = Double(track.duration) / Double(track.timescale)
        } else if movie.timescale > 0, movie.duration > 0 {
            seconds = Double(movie.duration) / Double(movie.timescale)
        } else if track.timescale > 0 {
            seconds = Double(total) / Double(track.timescale)
        }
        let rate = total > 0 && track.timescale > 0 && samples > 0 ? Double(samples) * Double(track.timescale) / Double(total) : nil
        let codec: String
        switch entry.coding {
        case .hevc: codec = "HEVC"
        case .avc: codec = "H.264"
        case .other: codec = entry.format.description
        }
        let hdr: String? = codePoints?.transfer == 18 ? "HLG" : codePoints?.transfer == 16 ? "PQ" : nil
        let created = movie.metadata.creationDate
            ?? MP4Metadata.exifDate(since1904: track.creationTime != 0 ? track.creationTime : movie.creationTime).map(Self.isoUTC)
        return VideoInfo(durationSeconds: seconds, codec: codec, codecTag: entry.format.description, frameRate: rate,
                         frameCount: track.tables.sampleCount, displayWidth: track.displayWidth, displayHeight: track.displayHeight,
                         pixelAspect: entry.pixelAspect.flatMap { $0.h == $0.v ? nil : [$0.h, $0.v] }, codePoints: codePoints,
                         hdr: hdr, creationDate: created, contentIdentifier: movie.metadata.contentIdentifier,
                         hasAudio: movie.tracks.contains { $0.handler == FourCC("soun") },
                         movieBoxBytes: moovBytes.count, posterSampleOffset: sampleOffset, posterSampleBytes: sampleSize)
    }

    /// `YYYY:MM:DD HH:MM:SS` (UTC) as `YYYY-MM-DDTHH:MM:SSZ`.
    private static func isoUTC(_ exif: String) -> String {
        var c = Array(exif.utf8)
        c[4] = 0x2D; c[7] = 0x2D; c[10] = 0x54
        return String(decoding: c, as: UTF8.self) + "Z"
    }

    /// EXIF-like facts of the movie: orientation, date (local recording time when the file
    /// has it, else the media header's UTC time), make, model and GPS.
    var exif: ExifMetadata {
        let m = movie.metadata
        var exif = ExifMetadata(orientation: orientation)
        exif.dateTimeOriginal = m.creationDate.flatMap(MP4Metadata.exifDate)
            ?? MP4Metadata.exifDate(since1904: track.creationTime != 0 ? track.creationTime : movie.creationTime)
        exif.make = m.make
        exif.model = m.model
        exif.gps = m.location.flatMap(MP4Metadata.position)
        return exif
    }
}
