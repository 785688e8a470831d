import FastCGI
import Foundation
import Synchronization
import Testing
@testable import Gallery
@testable import ImagePipeline

/// A remote photo that changes at its origin, seen through the web layer: after the
/// revalidation age the page links the new version, the old version's URL redirects to it, and
/// the new URL serves the new pixels.
@Suite struct RevalidationPageTests {
    @Test func changedRemotePhotoGetsANewURL() throws {
        let first = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.jpeg("orient_1.jpg"))))
        let second = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.jpeg("flower_420_q75.jpg"))))
        let origin = try FaultOrigin()
        defer { origin.stop() }
        origin.set("/p.jpg", .image(first))

        let base = NSTemporaryDirectory() + "gallery-reval-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = base + "/photos"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let manifest: [String: Any] = ["remote": [["url": origin.url("/p.jpg"), "title": "Remote"]]]
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: root + "/gallery.json"))
        var pc = PipelineConfiguration(cacheDirectory: base + "/cache", libraryRoot: root)
        pc.log = { _ in }
        pc.remoteRevalidateAfter = 0.5
        let now = Mutex(Date().timeIntervalSince1970)
        pc.clock = PipelineClock { now.withLock { $0 } }
        let pipeline = ImagePipeline(configuration: pc)
        let repo = Fixtures.repoRoot.path
        let app = try GalleryApp(configuration: GalleryConfiguration(
            libraryRoot: root, templatesDirectory: repo + "/templates", publicDirectory: repo + "/public", pageLookupBudget: 60),
            pipeline: pipeline, watchLibrary: false, log: { _ in })
        let id = StableID.make("url:" + origin.url("/p.jpg"))
        func get(_ uri: String) -> FastCGIResponse { app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": uri])) }
        func page() -> String { String(decoding: get("/photo/\(id)").body, as: UTF8.self) }

        let v1 = String(SHA256.hex(first).prefix(12))
        let v2 = String(SHA256.hex(second).prefix(12))
        #expect(page().contains("/img/\(id)/960?v=\(v1)"))
        #expect(get("/img/\(id)/240x240?v=\(v1)").status == 200)

        origin.set("/p.jpg", .image(second))
        now.withLock { $0 += 0.6 }
        // The page that notices the expiry is not held up by the origin.
        #expect(page().contains("?v=\(v1)"))
        #expect(pipeline.engine.revalidator.waitUntilIdle(timeout: 10))
        #expect(page().contains("/img/\(id)/960?v=\(v2)"))

        let old = get("/img/\(id)/240x240?v=\(v1)")
        #expect(old.status == 302)
        #expect(old.header("Location") == "/img/\(id)/240x240?v=\(v2)")
        let new = get("/img/\(id)/240x240?v=\(v2)")
        #expect(new.status == 200)
        var refConfiguration = PipelineConfiguration(cacheDirectory: base + "/ref-cache", libraryRoot: Fixtures.jpeg(""))
        refConfiguration.log = { _ in }
        let reference = try ImagePipeline(configuration: refConfiguration)
            .render(url: "file://" + Fixtures.jpeg("flower_420_q75.jpg"), spec: SizeSpec(mode: .cover(width: 240, height: 240)))
        #expect(new.body == reference.bytes)
        let original = get("/original/\(id)")
        #expect(original.body == second)
        #expect(origin.hits("/p.jpg") == 2)
    }
}
