/// The `moov` box of an MP4 / QuickTime file parsed into what a poster and a page need: the
/// movie header, each track's header, media header, handler, edit list, sample description
/// and the ranges of its sample tables (read entry by entry later, never copied into arrays),
/// plus the movie's metadata (`MP4Metadata`). The whole `moov` is in memory (at most
/// `MP4TopLevel.maxMovieBytes`); every box inside it goes through `HEIFBoxReader`, so sizes are
/// checked against their parents before use.

/// One `trak`.
struct MP4Track {
    var id = 0
    /// `hdlr` handler type: `vide`, `soun`, `meta`, ...
    var handler = FourCC(0)
    /// `tkhd` display size (16.16 fixed point, integer part) and matrix orientation.
    var displayWidth = 0
    var displayHeight = 0
    var orientation = Orientation.up
    /// `mdhd`: units per second, duration in those units, creation time (seconds since 1904).
    var timescale = 0
    var duration = 0
    var creationTime = 0
    /// Media time where the first non-empty edit starts (`elst`), in `timescale` units.
    var editStart = 0
    var sampleEntries: [MP4SampleEntry] = []
    var tables = MP4SampleTables()
}

/// What `moov` says about the movie.
struct MP4Movie {
    var timescale = 0
    var duration = 0
    var creationTime = 0
    var orientation = Orientation.up
    var tracks: [MP4Track] = []
    var metadata = MP4Metadata()

    /// Most tracks parsed: phones write 2-6 (video, audio, timed metadata); a movie with
    /// hundreds is made to waste time.
    static let maxTracks = 64

    /// The first video track with a sample description: what the poster shows.
    var videoTrack: MP4Track? { tracks.first { $0.handler == FourCC("vide") && !$0.sampleEntries.isEmpty } }

    /// Parses `moov` held in `bytes` (the box from its header on).
    init(_ bytes: [UInt8]) throws {
        let top = try HEIFBoxReader.children(bytes, from: 0, to: bytes.count, truncatedAtEnd: true)
        guard let moov = top.first, moov.type == FourCC("moov") else { throw ImageCodecError(.corrupt, "no 'moov' box") }
        for box in try HEIFBoxReader.children(bytes, from: moov.bodyStart, to: moov.end) {
            switch box.type {
            case FourCC("mvhd"): try parseMovieHeader(bytes, box)
            case FourCC("trak"):
                guard tracks.count < Self.maxTracks else { throw ImageCodecError(.limitExceeded, "more than \(Self.maxTracks) tracks") }
                tracks.append(try Self.parseTrack(bytes, box))
            case FourCC("udta"): metadata.readUserData(bytes, box)
            case FourCC("meta"): metadata.readQuickTimeMeta(bytes, box)
            default: break
            }
        }
    }

    private mutating func parseMovieHeader(_ bytes: [UInt8], _ box: HEIFBox) throws {
        var r = HEIFByteReader(bytes, box: box)
        let (version, _) = try r.fullBoxHeader()
        let wide = version == 1 ? 8 : 4
        creationTime = try r.uint(wide)
        _ = try r.uint(wide)
        timescale = try r.u32()
        duration = try r.uint(wide)
        try r.skip(4 + 2 + 10)
        orientation = try Self.matrixOrientation(&r)
    }

    private static func parseTrack(_ bytes: [UInt8], _ trak: HEIFBox) throws -> MP4Track {
        var track = MP4Track()
        for box in try HEIFBoxReader.children(bytes, from: trak.bodyStart, to: trak.end) {
            switch box.type {
            case FourCC("tkhd"):
                var r = HEIFByteReader(bytes, box: box)
                let (version, _) = try r.fullBoxHeader()
                let wide = version == 1 ? 8 : 4
                try r.skip(2 * wide)
                track.id = try r.u32()
                try r.skip(4 + wide + 8 + 2 + 2 + 2 + 2)
                track.orientation = try matrixOrientation(&r)
                track.displayWidth = try r.u32() >> 16
                track.displayHeight = try r.u32() >> 16
            case FourCC("edts"):
                for elst in try HEIFBoxReader.children(bytes, from: box.bodyStart, to: box.end) where elst.type == FourCC("elst") {
                    track.editStart = try firstEditStart(bytes, elst)
                }
            case FourCC("mdia"):
                try parseMedia(bytes, box, into: &track)
            default: break
            }
        }
        return track
    }

    /// Media time of the first edit that is not empty (media_time -1); 0 without one.
    private static func firstEditStart(_ bytes: [UInt8], _ box: HEIFBox) throws -> Int {
        var r = HEIFByteReader(bytes, box: box)
        let (version, _) = try r.fullBoxHeader()
        let count = try r.u32()
        let wide = version == 1 ? 8 : 4
        guard count <= r.remaining / (2 * wide + 4) else { throw ImageCodecError(.corrupt, "'elst' lists more edits than it holds") }
        for _ in 0..<count {
            _ = try r.uint(wide)
            let raw = try r.slice(wide)
            let mediaTime = raw.reduce(0 as UInt64) { $0 << 8 | UInt64($1) }
            try r.skip(4)
            // -1 (all bits set) marks an empty edit: a delay before the media starts.
            let empty = wide == 8 ? mediaTime == UInt64.max : mediaTime == 0xFFFF_FFFF
            if empty { continue }
            guard mediaTime <= UInt64(Int32.max) || wide == 8 && mediaTime < 1 << 62 else {
                throw ImageCodecError(.corrupt, "'elst' media time \(mediaTime)")
            }
            return Int(mediaTime)
        }
        return 0
    }

    private static func parseMedia(_ bytes: [UInt8], _ mdia: HEIFBox, into track: inout MP4Track) throws {
        for box in try HEIFBoxReader.children(bytes, from: mdia.bodyStart, to: mdia.end) {
            switch box.type {
            case FourCC("mdhd"):
                var r = HEIFByteReader(bytes, box: box)
                let (version, _) = try r.fullBoxHeader()
                let wide = version == 1 ? 8 : 4
                track.creationTime = try r.uint(wide)
                _ = try r.uint(wide)
                track.timescale = try r.u32()
                track.duration = try r.uint(wide)
                // A duration of all ones means "unknown" (ISO/IEC 14496-12 §8.4.2.3).
                if track.duration == (wide == 4 ? 0xFFFF_FFFF : Int.max) { track.duration = 0 }
            case FourCC("hdlr"):
                var r = HEIFByteReader(bytes, box: box)
                _ = try r.fullBoxHeader()
                // QuickTime: component type ('mhlr' in a media, 0 in MP4), then the subtype.
                try r.skip(4)
                track.handler = try r.fourCC()
            case FourCC("minf"):
                for child in try HEIFBoxReader.children(bytes, from: box.bodyStart, to: box.end) where child.type == FourCC("stbl") {
                    try parseSampleTable(bytes, child, into: &track)
                }
            default: break
            }
        }
    }

    private static func parseSampleTable(_ bytes: [UInt8], _ stbl: HEIFBox, into track: inout MP4Track) throws {
        for box in try HEIFBoxReader.children(bytes, from: stbl.bodyStart, to: stbl.end) {
            switch box.type {
            case FourCC("stsd"): track.sampleEntries = try MP4SampleEntry.parseDescriptions(bytes, box)
            default: try track.tables.add(bytes, box)
            }
        }
    }

    /// The display matrix (nine 32-bit values: a b u / c d v / x y w, a-d in 16.16) as one of
    /// the eight orientations: where the stored x and y axes point on screen (y down). An
    /// iPhone video shot upright carries (0 1 / -1 0): stored x runs down the screen, turned
    /// 90° clockwise to display, EXIF orientation 6. Matrices that are no quarter turn or
    /// mirror (shears, odd angles) show the picture as stored.
    static func matrixOrientation(_ r: inout HEIFByteReader) throws -> Orientation {
        let a = try r.i32(), b = try r.i32()
        try r.skip(4)
        let c = try r.i32(), d = try r.i32()
        try r.skip(16)
        // Stored x axis → screen (a, b); stored y axis → screen (c, d).
        func axis(_ u: Int, _ v: Int) -> (horizontal: Bool, sign: Int)? {
            if v == 0, u != 0 { return (true, u > 0 ? 1 : -1) }
            if u == 0, v != 0 { return (false, v > 0 ? 1 : -1) }
            return nil
        }
        guard let x = axis(a, b), let y = axis(c, d), x.horizontal != y.horizontal else { return .up }
        switch (x.horizontal, x.sign, y.sign) {
        case (true, 1, 1): return .up
        case (true, -1, 1): return .mirrored
        case (true, -1, -1): return .rotated180
        case (true, 1, -1): return .mirroredVertically
        case (false, 1, 1): return .transposed
        case (false, 1, -1): return .rotatedClockwise
        case (false, -1, -1): return .transversed
        default: return .rotatedCounterClockwise
        }
    }
}
