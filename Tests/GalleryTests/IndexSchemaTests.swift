import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Schema 3: video facts, what people wrote and the sidecar's stamp go into a row and come
/// back the same; a photo without them stores NULLs.
@Suite struct IndexSchemaTests {
    @Test func videoFactsTextAndSidecarRoundTrip() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let index = try LibraryIndexTests.openIndex(LibraryIndexTests.indexPath(library))
        let stamp = FileStamp(size: 10, mtimeSeconds: 1, mtimeNanoseconds: 2, inode: 3)
        let video = VideoFacts(durationSeconds: 7.25, codec: "HEVC", frameRate: 29.97, hdr: "HLG", contentIdentifier: "ABC-1",
                               hasAudio: true)
        let text = PhotoText(title: "Quay", caption: "Evening on the quay", keywords: ["boats", "Places|France|Sète"], rating: 4,
                             label: "Red", people: ["Ana", "Bo"], places: ["Sète", "France"], creator: "C", copyright: "© C")
        var facts = ImageFacts(width: 1920, height: 1080, pixelCount: 1920 * 1080, format: "HEVC", dateTaken: nil, cameraMake: nil,
                               cameraModel: nil, colourSpace: nil, video: video, text: text)
        let sidecar = FileStamp(size: 4, mtimeSeconds: 5, mtimeNanoseconds: 6, inode: UInt64.max)
        #expect(index.write([.put(IndexedPhoto(relativePath: "A/clip.mov", stamp: stamp, version: "v1", facts: facts, sidecar: sidecar))]))
        let row = try #require(index.photos(["A/clip.mov"])["A/clip.mov"])
        #expect(row.facts == facts && row.sidecar == sidecar && row.stamp == stamp)

        facts.video = nil
        facts.text = PhotoText()
        #expect(index.write([.put(IndexedPhoto(relativePath: "A/still.jpg", stamp: stamp, version: "v2", facts: facts))]))
        let still = try #require(index.photos(["A/still.jpg"])["A/still.jpg"])
        #expect(still.facts == facts && still.sidecar == nil)
    }
}
