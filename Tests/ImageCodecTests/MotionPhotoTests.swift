import Foundation
import Testing
@testable import ImageCodec
import ImageFuzzChecks

/// Motion photo detection on stills built here: a JPEG or HEIC fixture with a clip appended the
/// ways Google, Samsung and others do it.
@Suite struct MotionPhotoTests {
    static func jpeg() throws -> [UInt8] { try VideoFixtures.fixture("jpeg/generated/orient_1.jpg") }
    static func movie() throws -> [UInt8] { try VideoFixtures.bytes("hevc-faststart.mp4") }

    /// `jpeg` with an APP1 XMP segment holding `xmp` inserted after SOI.
    static func withXMP(_ jpeg: [UInt8], _ xmp: String) -> [UInt8] {
        let body = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)
        let length = body.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + jpeg[2...]
    }

    static func found(_ bytes: [UInt8]) throws -> (range: Range<Int>, kind: String)? {
        try MotionPhoto.embeddedMovie(source: MemoryByteSource(bytes))
    }

    @Test func movieRightAfterTheEOI() throws {
        let jpeg = try Self.jpeg(), movie = try Self.movie()
        let hit = try #require(try Self.found(jpeg + movie))
        #expect(hit.kind == "after-eoi" && hit.range == jpeg.count..<(jpeg.count + movie.count))
        #expect(try Self.found(jpeg) == nil)
    }

    @Test func samsungMarkerAndTrailer() throws {
        let jpeg = try Self.jpeg(), movie = try Self.movie()
        let marker = Array("MotionPhoto_Data".utf8)
        let file = jpeg + marker + movie + Array("SEFH....SEFT".utf8)
        let hit = try #require(try Self.found(file))
        let start = jpeg.count + marker.count
        #expect(hit.kind == "samsung" && hit.range == start..<(start + movie.count))
        #expect(Array(file[hit.range]) == movie)
    }

    @Test func googleContainerDirectory() throws {
        let movie = try Self.movie()
        let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1">
        <Container:Directory><rdf:Seq>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(movie.count)"/></rdf:li>
        </rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
        """
        let jpeg = Self.withXMP(try Self.jpeg(), xmp)
        #expect(ImageFormat.sniff(jpeg) == .jpeg)
        // A second JPEG (a depth map, say) between the photo and the movie: the directory still finds it.
        let file = jpeg + (try Self.jpeg()) + movie
        let hit = try #require(try Self.found(file))
        #expect(hit.kind == "google-container" && Array(file[hit.range]) == movie)
    }

    @Test func googleMicroVideoOffset() throws {
        let movie = try Self.movie()
        let xmp = "<x:xmpmeta><rdf:Description GCamera:MicroVideo=\"1\" GCamera:MicroVideoVersion=\"1\" GCamera:MicroVideoOffset=\"\(movie.count)\"/></x:xmpmeta>"
        let file = Self.withXMP(try Self.jpeg(), xmp) + (try Self.jpeg()) + movie
        let hit = try #require(try Self.found(file))
        #expect(hit.kind == "google-microvideo" && Array(file[hit.range]) == movie)
        // An offset that does not land on an 'ftyp' is not believed.
        let wrong = Self.withXMP(try Self.jpeg(), xmp.replacingOccurrences(of: "\(movie.count)\"", with: "\(movie.count - 3)\"")) + movie
        #expect(try Self.found(wrong)?.kind == "after-eoi")
    }

    @Test func heicMpvdBox() throws {
        let heic = try VideoFixtures.fixture("heic/generated/yuv444_10bit_limited_nclx.heic")
        let movie = try Self.movie()
        let size = movie.count + 8
        let file = heic + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("mpvd".utf8) + movie
        let hit = try #require(try Self.found(file))
        #expect(hit.kind == "heic-mpvd" && Array(file[hit.range]) == movie)
        #expect(try ImageCodec.probe(file).width == ImageCodec.probe(heic).width)
        #expect(try Self.found(heic) == nil)
    }

    @Test func damagedStillsNeverTrap() throws {
        let file = try Self.jpeg() + Array("MotionPhoto_Data".utf8) + (try Self.movie())
        for cut in stride(from: 0, to: file.count, by: 11) { _ = try? Self.found(Array(file[0..<cut])) }
        for at in stride(from: 0, to: file.count, by: 5) {
            var b = file
            b[at] ^= 0xA5
            _ = try? Self.found(b)
        }
    }

    /// fuzz-motion's checks hold on the gallery's motion photo fixtures (Tests/Fixtures/motion):
    /// the movie is found in both layouts, and truncations and byte flips find nothing bad.
    @Test func fuzzChecksHoldOnTheFixtures() throws {
        for name in ["motion-google.jpg", "motion-samsung.jpg"] {
            let file = try VideoFixtures.fixture("motion/" + name)
            var found = 0
            #expect(ImageFuzzChecks.motionProblems(file, found: &found).isEmpty && found == 1, "\(name)")
            for cut in stride(from: file.count / 2, to: file.count, by: 997) {
                #expect(ImageFuzzChecks.motionProblems(Array(file[0..<cut]), found: &found).isEmpty, "\(name) cut at \(cut)")
            }
        }
    }
}
