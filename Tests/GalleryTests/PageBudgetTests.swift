import FastCGI
import Foundation
import Testing
@testable import Gallery
import ImagePipeline

/// Pages with remote photos whose origin hangs: the page answers within its lookup budget, not
/// the origin timeout, and links the photos it could not version without a version.
@Suite struct PageBudgetTests {
    @Test func hangingOriginDoesNotHoldThePage() throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.jpeg("orient_1.jpg"))))
        let origin = try FaultOrigin()
        defer { origin.stop() }
        origin.set("/ok.jpg", .image(jpeg))
        origin.set("/hang1.jpg", .hang)
        origin.set("/hang2.jpg", .hang)

        let base = NSTemporaryDirectory() + "gallery-budget-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = base + "/photos"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let remote = ["/ok.jpg", "/hang1.jpg", "/hang2.jpg"].map { ["url": origin.url($0), "title": $0] }
        try JSONSerialization.data(withJSONObject: ["remote": remote]).write(to: URL(fileURLWithPath: root + "/gallery.json"))
        var pc = PipelineConfiguration(cacheDirectory: base + "/cache", libraryRoot: root)
        pc.log = { _ in }
        pc.connectTimeout = 20
        pc.totalTimeout = 20
        let repo = Fixtures.repoRoot.path
        let app = try GalleryApp(configuration: GalleryConfiguration(
            libraryRoot: root, templatesDirectory: repo + "/templates", publicDirectory: repo + "/public",
            pageLookupBudget: 0.5), pipeline: ImagePipeline(configuration: pc), watchLibrary: false, log: { _ in })
        func id(_ path: String) -> String { app.catalog.items.values.first { $0.title == path }!.id }
        let album = app.catalog.albums.values.first { $0.title == "Remote" }!.id
        func get(_ uri: String) -> (FastCGIResponse, Double) {
            let start = Date()
            let r = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": uri]))
            return (r, Date().timeIntervalSince(start))
        }

        // A photo seen before is versioned however busy the machine is (no lookup at all).
        let (primed, _) = get("/img/\(id("/ok.jpg"))/240x240")
        #expect(primed.status == 302)
        #expect(primed.header("Location")?.hasPrefix("/img/\(id("/ok.jpg"))/240x240?v=") == true)

        // The origin timeout is 20 s; the budget 0.5 s. Anything near 20 s means the page waited.
        let (index, indexSeconds) = get("/album/\(album)")
        let html = String(decoding: index.body, as: UTF8.self)
        #expect(index.status == 200)
        #expect(indexSeconds < 10)
        #expect(html.contains("src=\"/img/\(id("/ok.jpg"))/240x240?v="))
        #expect(html.contains("src=\"/img/\(id("/hang1.jpg"))/240x240\""))
        #expect(html.contains("src=\"/img/\(id("/hang2.jpg"))/240x240\""))

        let (detail, detailSeconds) = get("/photo/\(id("/hang1.jpg"))")
        #expect(detail.status == 200)
        #expect(detailSeconds < 10)
        #expect(String(decoding: detail.body, as: UTF8.self).contains("src=\"/img/\(id("/hang1.jpg"))/960\""))
        #expect(origin.hits("/ok.jpg") == 1)
    }
}
