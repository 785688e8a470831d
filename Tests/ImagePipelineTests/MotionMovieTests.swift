import Foundation
import ImageCodec
import Testing
@testable import ImagePipeline

/// Motion photos in the pipeline: the indexer finds the movie inside a still (its facts carry
/// the movie's), including when the `ftyp` the pre-filter looks for straddles two read chunks;
/// plain stills pay nothing; `motionMovie(url:)` opens exactly the movie's bytes.
@Suite struct MotionMovieTests {
    static let motion = fixturesDir + "/motion/"

    /// (start, length) of the movie in a fixture, from MANIFEST.
    static func range(_ name: String) throws -> Range<Int> {
        let manifest = try String(contentsOfFile: motion + "MANIFEST", encoding: .utf8)
        let line = try #require(manifest.split(separator: "\n").first { $0.hasPrefix(name + " ") })
        func value(_ key: String) -> Int? {
            line.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) }
        }
        let start = try #require(value("start")), length = try #require(value("length"))
        return start..<(start + length)
    }

    @Test func theIndexerFindsTheMovie() throws {
        for name in ["motion-google.jpg", "motion-samsung.jpg"] {
            let read = try FileIndexing.read(path: Self.motion + name)
            let video = try #require(read.facts?.video, "\(name)")
            #expect(video.codec == "H.264" && abs(video.durationSeconds - 1) < 0.1, "\(name): \(video)")
            #expect(read.facts?.format == "JPEG")
        }
        #expect(try FileIndexing.read(path: Self.motion + "still.jpg").facts?.video == nil)
    }

    /// A HEIC motion photo (Samsung and Google write the movie in a top-level `mpvd` box): the
    /// HEIF's own `ftyp` does not count, the movie's is found.
    @Test func aHEICWithAnMpvdBoxIsAMotionPhoto() throws {
        let heic = try fixtureBytes("heic/generated/yuv444_10bit_limited_nclx.heic")
        #expect(try FileIndexing.read(path: fixturesDir + "/heic/generated/yuv444_10bit_limited_nclx.heic").facts?.video == nil)
        let movie = try fixtureBytes("video/h264.mp4")
        let size = movie.count + 8
        let bytes = heic + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("mpvd".utf8) + movie
        let path = NSTemporaryDirectory() + "motion-mpvd-\(UUID().uuidString.prefix(8)).heic"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try FileIndexing.read(path: path)
        #expect(read.facts?.video?.codec == "H.264" && read.facts?.format.hasPrefix("HEIC") == true)
    }

    /// A still padded with COM segments so that the movie's `ftyp` spans the indexer's first
    /// two chunks (its bytes at 2^20 - 2 ..< 2^20 + 2).
    @Test func anFtypAcrossTwoChunksIsFound() throws {
        let still = try fixtureBytes("motion/still.jpg")
        let movie = try fixtureBytes("video/h264.mp4")
        let movieStart = FileIndexing.bufferBytes - 6
        var padding: [UInt8] = []
        var room = movieStart - still.count
        while room > 0 {
            // A COM segment (FF FE, a length that counts itself, text); no remainder under 4 left.
            var take = min(room - 4, 60_000)
            if (1...3).contains(room - take - 4) { take -= 10 }
            padding += [0xFF, 0xFE, UInt8((take + 2) >> 8), UInt8((take + 2) & 0xFF)] + [UInt8](repeating: 0x20, count: take)
            room -= take + 4
        }
        let bytes = Array(still[0..<2]) + padding + Array(still[2...]) + movie
        try #require(bytes.count > FileIndexing.bufferBytes && Array(bytes[movieStart + 4..<movieStart + 8]) == Array("ftyp".utf8))
        // Neither chunk alone holds the tag: only the seam check finds it.
        let n = FileIndexing.bufferBytes
        #expect(!bytes[0..<n].withUnsafeBytes { MotionMovies.mayHoldMovie($0, skip: 8) })
        #expect(!bytes[n...].withUnsafeBytes { MotionMovies.mayHoldMovie($0) })
        let path = NSTemporaryDirectory() + "motion-seam-\(UUID().uuidString.prefix(8)).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try FileIndexing.read(path: path)
        #expect(read.facts?.video?.codec == "H.264")
    }

    @Test func motionMovieOpensExactlyTheMovie() throws {
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: NSTemporaryDirectory() + "motion-\(UUID().uuidString.prefix(8))"))
        for name in ["motion-google.jpg", "motion-samsung.jpg"] {
            let file = try #require(try pipeline.motionMovie(url: "file://" + Self.motion + name))
            let expected = try Self.range(name)
            #expect(file.movie.range == expected && file.length == expected.count)
            let whole = try fixtureBytes("motion/" + name)
            #expect(try file.read(offset: 0, count: file.length) == Array(whole[expected]))
            #expect(try file.read(offset: 100, count: 10) == Array(whole[(expected.lowerBound + 100)..<(expected.lowerBound + 110)]))
            #expect(throws: ImageCodecError.self) { try file.read(offset: file.length - 4, count: 8) }
            // Asked again (a second Range request): the remembered range, the same bytes.
            #expect(try pipeline.motionMovie(url: "file://" + Self.motion + name)?.movie == file.movie)
            #expect(try pipeline.facts(url: "file://" + Self.motion + name).video?.codec == "H.264")
        }
        #expect(try pipeline.motionMovie(url: "file://" + Self.motion + "still.jpg") == nil)
        #expect(try pipeline.motionMovie(url: "file://" + fixturesDir + "/video/h264.mp4") == nil, "a movie is no motion photo")
    }
}
