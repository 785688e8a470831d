import Foundation
import Testing
@testable import ImageCodec

/// Fixtures under Tests/Fixtures/h264 (made by make_fixtures.sh with x264 and ffmpeg's libx264)
/// and the MD5 of each plane of ffmpeg's decode, from manifest.json.
enum H264Fixtures {
    struct Entry: CustomStringConvertible, Sendable {
        let file: String
        let width: Int
        let height: Int
        /// MD5 of Y, Cb, Cr (or Y alone), nil for streams we must refuse.
        let planes: [String]?
        /// The same before the deblocking filter.
        let unfiltered: [String]?
        var description: String { file }
    }

    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/h264")
    }()

    static let entries: [Entry] = {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("manifest.json")),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let streams = json["streams"] as? [[String: Any]] else { return [] }
        return streams.compactMap { s in
            guard let file = s["file"] as? String else { return nil }
            return Entry(file: file, width: s["width"] as? Int ?? 0, height: s["height"] as? Int ?? 0,
                         planes: s["planes"] as? [String], unfiltered: s["planes_unfiltered"] as? [String])
        }
    }()

    static var decodable: [Entry] { entries.filter { $0.planes != nil } }
    static var refused: [Entry] { entries.filter { $0.planes == nil } }

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(file)))
    }

    /// 8-bit samples of a plane, as ffmpeg's rawvideo output lays them out.
    static func planeBytes(_ plane: HEVCPlane) -> [UInt8] {
        plane.samples.map { UInt8(truncatingIfNeeded: $0) }
    }
}

@Suite struct H264ConformanceTests {
    @Test func manifestIsPresent() {
        #expect(H264Fixtures.decodable.count >= 20)
        #expect(H264Fixtures.refused.count >= 3)
    }

    @Test(arguments: H264Fixtures.decodable)
    func planesMatchFFmpeg(_ entry: H264Fixtures.Entry) throws {
        let picture = try H264Decoder.decodeAnnexB(try H264Fixtures.bytes(entry.file))
        #expect(picture.width == entry.width && picture.height == entry.height)
        let expected = entry.planes ?? []
        #expect(picture.planes.count == expected.count)
        for (i, plane) in picture.planes.enumerated() where i < expected.count {
            let bytes = H264Fixtures.planeBytes(plane)
            #expect(WebPFixtures.md5(bytes) == expected[i], "plane \(i) of \(entry.file)")
        }
    }

    /// The same planes decoded on one thread: the default limits
    /// allow two threads, so `planesMatchFFmpeg` reconstructs and filters on `H264ReconstructionWorker`.
    @Test(arguments: H264Fixtures.decodable)
    func singleThreadedPlanesMatchFFmpeg(_ entry: H264Fixtures.Entry) throws {
        var limits = DecodeLimits.default
        limits.maxThreads = 1
        let picture = try H264Decoder.decodeAnnexB(try H264Fixtures.bytes(entry.file), limits: limits)
        let expected = entry.planes ?? []
        #expect(picture.planes.count == expected.count)
        for (i, plane) in picture.planes.enumerated() where i < expected.count {
            #expect(WebPFixtures.md5(H264Fixtures.planeBytes(plane)) == expected[i], "plane \(i) of \(entry.file)")
        }
    }

    /// Prediction and residual alone, so that a deblocking difference cannot hide another.
    @Test(arguments: H264Fixtures.decodable)
    func unfilteredPlanesMatchFFmpeg(_ entry: H264Fixtures.Entry) throws {
        let units = HEVCNALSplitter.annexB(try H264Fixtures.bytes(entry.file))
        let picture = try H264Decoder.decodeFirstPicture(units, limits: .default, deblock: false)
        let expected = entry.unfiltered ?? []
        #expect(picture.planes.count == expected.count)
        for (i, plane) in picture.planes.enumerated() where i < expected.count {
            #expect(WebPFixtures.md5(H264Fixtures.planeBytes(plane)) == expected[i], "plane \(i) of \(entry.file)")
        }
    }

    @Test(arguments: H264Fixtures.refused)
    func refusesUnsupported(_ entry: H264Fixtures.Entry) throws {
        do {
            _ = try H264Decoder.decodeAnnexB(try H264Fixtures.bytes(entry.file))
            Issue.record("\(entry.file) decoded")
        } catch let error as ImageCodecError {
            #expect(error.kind == .unsupported, "\(error)")
        }
    }
}
