import Foundation
import Testing
import ImageCodec
import ImageFuzzChecks

// Every input the fuzzers ever found (deploy/fuzz saves them to Tests/FuzzFindings/<target>/)
// stays here as a regression input: each must come back as a value or a thrown
// ImageCodecError, and a successful decode must keep the invariants the fuzz targets check.
// A crash would take the test process down, which fails the run loudly.

private let findingsRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("FuzzFindings")

/// Files under Tests/FuzzFindings/<target>/, sorted; empty when none were found yet.
private func findings(_ target: String) -> [URL] {
    let dir = findingsRoot.appendingPathComponent(target)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { !$0.hasPrefix(".") && !$0.hasPrefix("README") }.sorted().map { dir.appendingPathComponent($0) }
}

@Suite("Fuzz findings stay fixed")
struct FuzzRegressionTests {
    @Test("image findings (fuzz-jpeg, fuzz-png, fuzz-webp) decode or throw at every scale, sizes consistent")
    func imageFindings() throws {
        var inputs = 0, decoded = 0
        for url in findings("fuzz-jpeg") + findings("fuzz-png") + findings("fuzz-webp") {
            let bytes = try [UInt8](Data(contentsOf: url))
            inputs += 1
            #expect(ImageFuzzChecks.problems(bytes, decoded: &decoded) == [], "\(url.lastPathComponent)")
        }
        print("fuzz findings: \(inputs) image inputs, \(decoded) successful decodes, no crash")
    }

    @Test("HEIF findings (fuzz-heic) probe, estimate and decode at 1/8 or throw, sizes consistent")
    func heifFindings() throws {
        var inputs = 0, decoded = 0
        for url in findings("fuzz-heic") {
            let bytes = try [UInt8](Data(contentsOf: url))
            inputs += 1
            #expect(ImageFuzzChecks.heifProblems(bytes, decoded: &decoded) == [], "\(url.lastPathComponent)")
        }
        print("fuzz findings: \(inputs) HEIF inputs, \(decoded) successful decodes, no crash")
    }

    @Test("EXIF findings parse as TIFF and as APP1 without trapping")
    func exifFindings() throws {
        var inputs = 0
        for url in findings("fuzz-exif") {
            let bytes = try [UInt8](Data(contentsOf: url))
            inputs += 1
            let tiff = ExifReader.parse(tiff: bytes[...])
            _ = ExifReader.parse(app1: bytes[...])
            #expect(ExifReader.parse(app1: ([0x45, 0x78, 0x69, 0x66, 0, 0] + bytes)[...]) == tiff, "\(url.lastPathComponent)")
        }
        print("fuzz findings: \(inputs) EXIF inputs, no crash")
    }

    @Test("inflate findings (fuzz-inflate): ours and zlib end the same way with the same bytes")
    func inflateFindings() throws {
        var inputs = 0
        for url in findings("fuzz-inflate") {
            let bytes = try [UInt8](Data(contentsOf: url))
            inputs += 1
            let problem = bytes.withUnsafeBufferPointer { InflateDifferential.check(fuzzInput: $0) }
            #expect(problem == nil, "\(url.lastPathComponent): \(problem ?? "")")
        }
        print("fuzz findings: \(inputs) inflate inputs, ours and zlib agree")
    }
}
