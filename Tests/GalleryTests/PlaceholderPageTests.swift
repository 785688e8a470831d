import FastCGI
import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Grid cells paint the blurred preview (after the flat colour, which stays as fallback) once
/// a cover was rendered, and what that costs the page in bytes.
@Suite struct PlaceholderPageTests {
    @Test func gridCellsCarryThePreviewAfterTheColour() throws {
        let h = try AppTests.Harness()
        let trips = h.album(titled: "Trips")
        let before = h.send("/album/\(trips.id)").body.count
        // Render every cover of the page once, as browsers do on the first view.
        let first = AppTests.text(h.send("/album/\(trips.id)"))
        let covers = Set(ShareTests.links(in: first).filter { $0.contains("/240x240?v=") })
        for url in covers { #expect(h.send(url).status == 200, "\(url)") }
        let page = AppTests.text(h.send("/album/\(trips.id)"))
        let styles = page.components(separatedBy: "style=\"background-color:").dropFirst().map { $0.prefix { $0 != "\"" } }
        let withPreview = styles.filter { $0.contains(";background-image:url(data:image/png;base64,") }
        #expect(styles.count >= 4)
        #expect(withPreview.count >= 4)
        for style in styles { #expect(style.hasPrefix("#"), "flat colour first: \(style.prefix(20))") }
        let previewBytes = withPreview.map { $0.utf8.count - 7 }.reduce(0, +)
        let after = page.utf8.count
        print("placeholders: \(withPreview.count) previews on the page, \(previewBytes / max(1, withPreview.count)) bytes each in the style attribute; page \(before) -> \(after) bytes (+\(after - before))")
        #expect(previewBytes / max(1, withPreview.count) < 400)
    }
}
