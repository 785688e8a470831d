import Testing
@testable import ImageCodec

/// The MP4 / QuickTime demuxer on ffmpeg-made clips and hostile files: where the poster
/// sample is, what the headers say, and that damaged files fail with a typed error.
@Suite struct VideoDemuxTests {
    @Test(arguments: VideoFixtures.manifest)
    func sniffsAndFindsThePosterSample(_ clip: VideoFixtures.Entry) throws {
        let bytes = try VideoFixtures.bytes(clip.file)
        #expect(ImageFormat.sniff(bytes) == .video)
        let demux = try MP4Demuxer(MemoryByteSource(bytes), limits: .default)
        #expect(demux.posterSample == 1)
        #expect(demux.sampleOffset > 0 && demux.sampleOffset + demux.sampleSize <= bytes.count)
        #expect(demux.track.handler == FourCC("vide"))
    }

    @Test func moovAtEitherEndGivesTheSameSample() throws {
        let end = try MP4Demuxer(MemoryByteSource(try VideoFixtures.bytes("hevc-moov-end.mp4")), limits: .default)
        let start = try MP4Demuxer(MemoryByteSource(try VideoFixtures.bytes("hevc-faststart.mp4")), limits: .default)
        let co64 = try MP4Demuxer(MemoryByteSource(try VideoFixtures.bytes("hevc-co64.mp4")), limits: .default)
        #expect(end.sampleSize == start.sampleSize)
        #expect(start.moovBytes.count == end.moovBytes.count)
        #expect(co64.sampleOffset == end.sampleOffset && co64.sampleSize == end.sampleSize)
        #expect(try end.readSample(MemoryByteSource(try VideoFixtures.bytes("hevc-moov-end.mp4")))
                == start.readSample(MemoryByteSource(try VideoFixtures.bytes("hevc-faststart.mp4"))))
    }

    /// ffprobe's rotation is counter-clockwise degrees: -90 is an upright iPhone video, shown
    /// turned 90° clockwise (EXIF 6).
    @Test(arguments: VideoFixtures.manifest)
    func orientationFollowsTheDisplayMatrix(_ clip: VideoFixtures.Entry) throws {
        let info = try ImageCodec.probe(source: MemoryByteSource(try VideoFixtures.bytes(clip.file)))
        let expected: Orientation = switch clip.rotation {
        case 90: .rotatedCounterClockwise
        case -90, 270: .rotatedClockwise
        case 180, -180: .rotated180
        default: .up
        }
        #expect(info.orientation == expected)
    }

    @Test func probeReportsVideoFacts() throws {
        let info = try ImageCodec.probe(source: MemoryByteSource(try VideoFixtures.bytes("hevc-moov-end.mp4")))
        #expect(info.format == .video)
        #expect(info.width == 128 && info.height == 96)
        let v = try #require(info.video)
        #expect(v.codec == "HEVC" && v.codecTag == "hvc1")
        #expect(v.frameCount == 3)
        #expect(abs((v.frameRate ?? 0) - 25) < 0.01)
        #expect(abs(v.durationSeconds - 0.12) < 0.001)
        #expect(!v.hasAudio)
        #expect(v.hdr == nil)

        let h264 = try ImageCodec.probe(source: MemoryByteSource(try VideoFixtures.bytes("h264.mp4")))
        #expect(h264.video?.codec == "H.264" && h264.width == 128 && h264.height == 96)
        let gp = try ImageCodec.probe(source: MemoryByteSource(try VideoFixtures.bytes("h264.3gp")))
        #expect(gp.video?.codecTag == "avc1")
    }

    @Test func quickTimeKeysMetadata() throws {
        let info = try ImageCodec.probe(source: MemoryByteSource(try VideoFixtures.bytes("hevc-keys.mov")))
        #expect(info.exif.make == "Apple")
        #expect(info.exif.model == "iPhone 15 Pro")
        #expect(info.exif.dateTimeOriginal == "2024:06:01 12:34:56")
        #expect(info.video?.creationDate == "2024-06-01T12:34:56+0200")
        #expect(info.video?.contentIdentifier == "0A1B2C3D-LIVE")
        let gps = try #require(info.exif.gps)
        #expect(abs(gps.latitude - 48.8584) < 1e-9 && abs(gps.longitude - 2.2945) < 1e-9 && gps.altitude == 35)
    }

    @Test func hlgClipIsReportedAsHDR() throws {
        let info = try ImageCodec.probe(source: MemoryByteSource(try VideoFixtures.bytes("hevc-hlg10.mov")))
        #expect(info.video?.hdr == "HLG")
        #expect(info.video?.codePoints == ColourCodePoints(primaries: 9, transfer: 18, matrix: 9, fullRange: false))
        #expect(info.codePoints == ColourCodePoints(primaries: 9, transfer: 13, matrix: 0, fullRange: true))
        #expect(info.bitDepth == 10)
    }

    @Test func iso6709AndDates() {
        #expect(MP4Metadata.position("+48.8584+002.2945+035.000/") == GPSPosition(latitude: 48.8584, longitude: 2.2945, altitude: 35))
        #expect(MP4Metadata.position("-3330.5-07015.0/").map { ($0.latitude * 1000).rounded() } == -33508)
        #expect(MP4Metadata.position("+91.0+000.0/") == nil)
        #expect(MP4Metadata.position("garbage") == nil)
        #expect(MP4Metadata.exifDate(since1904: 0) == nil)
        // 2024-06-01 10:34:56 UTC is 1717238096 Unix seconds.
        #expect(MP4Metadata.exifDate(since1904: 1_717_238_096 + 2_082_844_800) == "2024:06:01 10:34:56")
        #expect(MP4Metadata.exifDate("2024-06-01T12:34:56+0200") == "2024:06:01 12:34:56")
        #expect(MP4Metadata.exifDate("2024-06") == nil)
    }

    static let hostile: [(String, ImageCodecError.Kind)] = [
        ("hostile-truncated-moov.mp4", .truncated),
        ("hostile-offset-past-end.mp4", .truncated),
        ("hostile-huge-stsz.mp4", .limitExceeded),
        ("hostile-huge-stsc.mp4", .corrupt),
        ("hostile-huge-sample.mp4", .limitExceeded),
        ("hostile-sync-past-end.mp4", .corrupt),
        ("hostile-zero-size.mp4", .truncated),
        ("hostile-size-loop.mp4", .corrupt),
        ("hostile-largesize.mp4", .truncated),
        ("hostile-child-overruns.mp4", .corrupt),
    ]

    @Test(arguments: hostile)
    func hostileFilesFailWithTypedErrors(_ name: String, _ kind: ImageCodecError.Kind) throws {
        let source = MemoryByteSource(try VideoFixtures.bytes(name))
        #expect(throws: ImageCodecError.self) { try ImageCodec.decode(source: source, scale: .eighth) }
        do {
            _ = try ImageCodec.probe(source: source)
            Issue.record("\(name) probed")
        } catch let e as ImageCodecError {
            #expect(e.kind == kind, "\(name): \(e)")
        }
    }

    /// Every prefix and a byte flipped at every position of a small clip: typed errors or a
    /// poster, never a trap.
    @Test func truncationsAndFlipsNeverTrap() throws {
        let bytes = try VideoFixtures.bytes("hevc-faststart.mp4")
        let moov = bytes.count - 3000
        for cut in stride(from: 0, to: bytes.count, by: 7) {
            _ = try? ImageCodec.probe(source: MemoryByteSource(Array(bytes[0..<cut])))
        }
        for at in stride(from: 0, to: min(bytes.count, moov + 3000), by: 3) {
            var b = bytes
            b[at] ^= 0xFF
            _ = try? ImageCodec.decode(source: MemoryByteSource(b), scale: .eighth)
        }
    }
}
