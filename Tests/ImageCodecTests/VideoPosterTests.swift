import Testing
@testable import ImageCodec

/// Posters: our HEVC decode of the poster sample against ffmpeg's first frame (MD5 of the
/// planes), the RGB poster at every scale, positioned reads only, H.264 tracks, and the HLG
/// tone mapping against a reference computed from the BT.2100 / BT.2390 formulas.
@Suite struct VideoPosterTests {
    @Test(arguments: VideoFixtures.hevcClips)
    func posterPlanesMatchFFmpeg(_ clip: VideoFixtures.Entry) throws {
        let bytes = try VideoFixtures.bytes(clip.file)
        let demux = try MP4Demuxer(MemoryByteSource(bytes), limits: .default)
        let config = try VideoPosterDecoder.hevcConfiguration(demux, MemoryByteSource(bytes))
        let picture = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: try demux.readSample(MemoryByteSource(bytes))[...],
                                             lengthSize: config.lengthSize)
        #expect(WebPFixtures.md5(VideoFixtures.rawPlanes(picture)) == clip.md5)
    }

    /// SDR posters are reduced in YCbCr before conversion (`VideoPosterRows`): the box average
    /// of the full RGB poster up to rounding, and where a block mixes colours that clip.
    @Test func reducedPosterIsTheBoxAverageOfTheFullOne() throws {
        let source = MemoryByteSource(try VideoFixtures.bytes("hevc-moov-end.mp4"))
        let full = try ImageCodec.decode(source: source)
        #expect(full.bitmap.width == 128 && full.bitmap.height == 96 && full.bitmap.layout == .rgb)
        for scale in [DecodeScale.half, .quarter, .eighth] {
            let reduced = try ImageCodec.decode(source: source, scale: scale)
            let box = try HEIFFixtures.boxReduced(full.bitmap, factor: 8 / scale.numerator)
            #expect(reduced.bitmap.width == box.width && reduced.bitmap.height == box.height && reduced.bitmap.layout == box.layout)
            let differences = zip(reduced.bitmap.pixels, box.pixels).map { abs(Int($0) - Int($1)) }
            let mean = Double(differences.reduce(0, +)) / Double(max(1, differences.count))
            // testsrc2's saturated bars clip in RGB: about 9 % of the samples of its edge
            // blocks differ by more than 2 at 1/8 (mean 0.98), elsewhere by rounding.
            let within2 = differences.filter { $0 <= 2 }.count
            #expect(mean < 1.0 && within2 * 100 >= differences.count * 88, "\(scale): mean \(mean), \(within2) of \(differences.count) within 2")
            #expect(try ImageCodec.memoryEstimate(source: source, scale: scale) > reduced.bitmap.pixels.count)
        }
        // The poster of a rotated clip is the same stored picture; only the orientation differs.
        let rotated = try ImageCodec.decode(source: MemoryByteSource(try VideoFixtures.bytes("hevc-rot270.mp4")))
        #expect(rotated.bitmap == full.bitmap && rotated.info.orientation == .rotatedClockwise)
        // testsrc2's top-left is not black: a sanity check that colour made it through.
        #expect(full.bitmap.pixels.prefix(3).reduce(0) { $0 + Int($1) } > 0)
    }

    /// `hev1` whose `hvcC` lists no parameter sets: the poster sample's own are used.
    @Test func inBandParameterSets() throws {
        let source = MemoryByteSource(try VideoFixtures.bytes("hevc-hev1-inband.mp4"))
        let reference = try ImageCodec.decode(source: MemoryByteSource(try VideoFixtures.bytes("hevc-moov-end.mp4")))
        let poster = try ImageCodec.decode(source: source)
        #expect(poster.info.video?.codecTag == "hev1")
        #expect(poster.bitmap == reference.bitmap)
    }

    @Test func byteArrayAPIGivesTheSamePoster() throws {
        let bytes = try VideoFixtures.bytes("hevc-keys.mov")
        #expect(try ImageCodec.decode(bytes, scale: .half).bitmap == ImageCodec.decode(source: MemoryByteSource(bytes), scale: .half).bitmap)
        #expect(try ImageCodec.probe(bytes) == ImageCodec.probe(source: MemoryByteSource(bytes)))
    }

    /// A 3 GB movie (a clip whose `mdat` is padded with zeros): probing and decoding read the
    /// top-level headers, the `moov` and one sample, a few kilobytes.
    @Test func readsOnlyTheMovieBoxAndOneSample() throws {
        for name in ["hevc-moov-end.mp4", "hevc-co64.mp4"] {
            let padded = try VideoFixtures.PaddedMovie(try VideoFixtures.bytes(name), padding: 3_000_000_000)
            let probe = try ImageCodec.probe(source: padded)
            let v = try #require(probe.video)
            let source = CountingPadded(padded)
            let poster = try ImageCodec.decode(source: source, scale: .quarter)
            #expect(poster.bitmap.width == 32)
            #expect(source.bytesRead <= v.movieBoxBytes + v.posterSampleBytes + 200, "\(name): \(source.bytesRead) bytes read")
            #expect(source.bytesRead < 20_000)
        }
    }

    /// The HLG poster against hlg-reference.py's float64 rendering of the same formulas from
    /// ffmpeg's decode of the frame: our tables may move a sample by a code or two.
    @Test func hlgPosterMatchesTheSpecReference() throws {
        let poster = try ImageCodec.decode(source: MemoryByteSource(try VideoFixtures.bytes("hevc-hlg10.mov")))
        let reference = try ImageCodec.decode(try VideoFixtures.bytes("hevc-hlg10.reference.png")).bitmap
        #expect(poster.bitmap.width == reference.width && poster.bitmap.height == reference.height)
        var worst = 0, total = 0
        for (a, b) in zip(poster.bitmap.pixels, reference.pixels) {
            let d = abs(Int(a) - Int(b))
            worst = max(worst, d)
            total += d
        }
        let mean = Double(total) / Double(reference.pixels.count)
        #expect(worst <= 3, "largest difference \(worst)")
        #expect(mean < 0.5, "mean difference \(mean)")
    }

    @Test func toneCurveAnchors() {
        // BT.2390 EETF: below the knee luminance passes unchanged; the source peak lands on 203.
        #expect(abs(VideoToneMapper.eetf(50) - 50) < 0.01)
        #expect(abs(VideoToneMapper.eetf(1000) - 203) < 0.5)
        // HLG: 0.5 is the knee of the inverse OETF (1/12 of scene peak); 1.0 is the peak.
        #expect(abs(VideoToneMapper.hlgToScene(0.5) - 1.0 / 12) < 1e-9)
        #expect(abs(VideoToneMapper.hlgToScene(1) - 1) < 1e-6)
        // PQ: signal 0.5081 is about 100 cd/m2; round trip.
        #expect(abs(VideoToneMapper.pqToNits(VideoToneMapper.nitsToPQ(203)) - 203) < 1e-6)
        #expect(abs(VideoToneMapper.pqToNits(0.50808) - 100) < 0.1)
    }

    /// H.264 tracks (MP4, M4V, 3GP) decode through our H.264 decoder to ffmpeg's first frame,
    /// and the RGB poster comes out at every scale.
    @Test(arguments: VideoFixtures.h264Clips)
    func h264PosterPlanesMatchFFmpeg(_ clip: VideoFixtures.Entry) throws {
        let bytes = try VideoFixtures.bytes(clip.file)
        let demux = try MP4Demuxer(MemoryByteSource(bytes), limits: .default)
        guard case .avc(let config) = demux.entry.coding else { Issue.record("not H.264"); return }
        let picture = try H264Decoder.decode(parameterSets: config.parameterSets, data: try demux.readSample(MemoryByteSource(bytes))[...],
                                             lengthSize: config.lengthSize)
        #expect(WebPFixtures.md5(VideoFixtures.rawPlanes(picture)) == clip.md5)
        let poster = try ImageCodec.decode(source: MemoryByteSource(bytes), scale: .half)
        #expect(poster.bitmap.width == (picture.width + 1) / 2 && poster.info.video?.codec == "H.264")
    }
}

/// `PaddedMovie` with a count of the bytes read through it.
final class CountingPadded: ByteSource, @unchecked Sendable {
    let inner: VideoFixtures.PaddedMovie
    private(set) var bytesRead = 0
    init(_ inner: VideoFixtures.PaddedMovie) { self.inner = inner }
    var size: Int { inner.size }
    func read(offset: Int, count: Int) throws -> [UInt8] {
        bytesRead += count
        return try inner.read(offset: offset, count: count)
    }
}
