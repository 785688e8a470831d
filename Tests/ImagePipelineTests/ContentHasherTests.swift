import Foundation
import Testing
@testable import ImagePipeline

/// libcrypto's SHA-256 must give the versions our own SHA-256 gave, or every cached URL and
/// disk-cache entry would change with the switch.
@Suite struct ContentHasherTests {
    static func bytes(_ count: Int) -> [UInt8] {
        var state: UInt32 = 0x9e37_79b9
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test(arguments: [0, 1, 55, 56, 63, 64, 65, 1000, (1 << 20) - 1, (1 << 20) + 3, 3 << 20])
    func versionsAgreeWithOurSHA256(count: Int) throws {
        let data = Self.bytes(count)
        let ours = String(SHA256.hex(data).prefix(12))
        #expect(ContentHasher.version(of: data) == ours)
        #expect(PipelineEngine.version(of: data) == ours)
        // The streaming file reader, across buffer boundaries (1 MiB reads).
        let path = NSTemporaryDirectory() + "hasher-\(getpid())-\(count).bin"
        defer { unlink(path) }
        try Data(data).write(to: URL(fileURLWithPath: path))
        if count > 0 {
            // Not an image: refused, but only after the whole file was hashed and sniffed.
            #expect(throws: PipelineError.self) { try FileIndexing.read(path: path) }
        }
    }

    @Test func streamingReadGivesTheVersionOfAnImage() throws {
        // A JPEG signature followed by noise past the 1 MiB buffer: hashed whole, probe fails softly.
        var data: [UInt8] = [0xff, 0xd8, 0xff, 0xe0] + Self.bytes((1 << 20) + 500)
        data[4] = 0
        let path = NSTemporaryDirectory() + "hasher-jpeg-\(getpid()).jpg"
        defer { unlink(path) }
        try Data(data).write(to: URL(fileURLWithPath: path))
        let read = try FileIndexing.read(path: path)
        #expect(read.version == String(SHA256.hex(data).prefix(12)))
        #expect(read.facts == nil)
        #expect(read.stamp.size == data.count)
    }
}
