import Foundation
import ImageCodec

/// Paths of the repository's test fixtures.
enum Fixtures {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let repoRoot = testsDirectory.deletingLastPathComponent()
    static func jpeg(_ name: String) -> String { testsDirectory.appendingPathComponent("Fixtures/jpeg/generated/\(name)").path }
}

/// A small library for tests, built in a fresh temp folder:
/// ```
/// Big_Photo.jpg                     1600x1200 synthetic JPEG (ours), in the root
/// Trips/Flower.jpg                  fixture 250x156 (baseline 4:2:0)
/// Trips/Odd_Size_Progressive.jpg    fixture 1001x667 progressive
/// Trips/Turned.jpg                  fixture with EXIF orientation 6
/// Trips/Square.png                  800x800 synthetic PNG (ours)
/// Trips/2024 Summer/Stream.jpg      fixture 300x200
/// Trips/2024 Summer/<script>alert(1).jpg
/// Empty/                            an album without photos
/// .hidden.jpg, notes.txt, link-out.jpg -> /etc/hostname (ignored)
/// ```
struct TestLibrary {
    let root: String

    static func make() throws -> TestLibrary {
        let base = NSTemporaryDirectory() + "gallery-test-\(UUID().uuidString.prefix(8))"
        let root = base + "/photos"
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/Trips/2024 Summer", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/Empty", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: root + "/Trips/Flower.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("odd_1001x667_422_prog.jpg"), toPath: root + "/Trips/Odd_Size_Progressive.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("orient_6.jpg"), toPath: root + "/Trips/Turned.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: root + "/Trips/2024 Summer/Stream.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("statue_420_q75.jpg"), toPath: root + "/Trips/2024 Summer/<script>alert(1).jpg")
        try Data(synthetic(width: 1600, height: 1200, png: false)).write(to: URL(fileURLWithPath: root + "/Big_Photo.jpg"))
        try Data(synthetic(width: 800, height: 800, png: true)).write(to: URL(fileURLWithPath: root + "/Trips/Square.png"))
        try fm.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: root + "/.hidden.jpg")
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        try fm.createSymbolicLink(atPath: root + "/link-out.jpg", withDestinationPath: "/etc/hostname")
        return TestLibrary(root: root)
    }

    /// Smooth colour gradients with a few hard edges: cheap to make, looks like something.
    static func synthetic(width: Int, height: Int, png: Bool) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 255 / max(1, width - 1))
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = ((x / 100) + (y / 100)) % 2 == 0 ? 200 : 60
            }
        }
        let bitmap = try Bitmap(width: width, height: height, layout: .rgb, pixels: pixels)
        return png ? try PNGEncoder.encode(bitmap) : try JPEGEncoder.encode(bitmap, quality: 85)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: (root as NSString).deletingLastPathComponent)
    }
}
