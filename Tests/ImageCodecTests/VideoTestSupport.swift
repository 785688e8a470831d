import Foundation
@testable import ImageCodec

/// Fixtures under Tests/Fixtures/video (made by make-fixtures.sh) and their MANIFEST: per
/// clip, the MD5 of ffmpeg's first decoded frame (raw planes) and the display matrix rotation
/// ffprobe reports (degrees counter-clockwise).
enum VideoFixtures {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/video")
    }()

    static func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(name)))
    }

    struct Entry: Sendable, CustomStringConvertible {
        let file: String
        let md5: String
        let rotation: Int
        var description: String { file }
    }

    static let manifest: [Entry] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("MANIFEST"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 4, let r = Int(f[3].dropFirst("rotation=".count)) else { return nil }
            return Entry(file: String(f[0]), md5: String(f[2]), rotation: r)
        }
    }()

    static var hevcClips: [Entry] { manifest.filter { $0.file.hasPrefix("hevc") } }
    static var h264Clips: [Entry] { manifest.filter { $0.file.hasPrefix("h264") } }

    /// The planes as ffmpeg's rawvideo writes them: 8-bit samples as bytes, deeper ones as
    /// little-endian 16-bit words; Y, then Cb, then Cr.
    static func rawPlanes(_ picture: HEVCPicture) -> [UInt8] {
        var out: [UInt8] = []
        for plane in picture.planes {
            for i in 0..<(plane.width * plane.height) {
                let v = plane.samples[i]
                if picture.bitDepthLuma > 8 { out.append(UInt8(v & 0xFF)); out.append(UInt8(v >> 8)) } else { out.append(UInt8(v)) }
            }
        }
        return out
    }
}

extension VideoFixtures {
    /// A moov-at-end clip grown to gigabytes without the memory: `padding` zero bytes are
    /// added at the end of its `mdat` (whose size field is patched), so every sample keeps its
    /// offset and the `moov` moves `padding` bytes on.
    struct PaddedMovie: ByteSource {
        let head: [UInt8]
        let tail: [UInt8]
        let padding: Int
        var size: Int { head.count + padding + tail.count }

        init(_ bytes: [UInt8], padding: Int) throws {
            var at = 0
            var mdat: Range<Int>?
            while at + 8 <= bytes.count {
                let size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
                if bytes[(at + 4)..<(at + 8)].elementsEqual("mdat".utf8) { mdat = at..<(at + size) }
                at += size
            }
            guard let mdat else { throw ImageCodecError(.corrupt, "no mdat") }
            var head = Array(bytes[0..<mdat.upperBound])
            let grown = UInt32(mdat.count + padding)
            for i in 0..<4 { head[mdat.lowerBound + i] = UInt8(truncatingIfNeeded: grown >> (24 - 8 * UInt32(i))) }
            self.head = head
            tail = Array(bytes[mdat.upperBound...])
            self.padding = padding
        }

        func read(offset: Int, count: Int) throws -> [UInt8] {
            try checkRange(offset: offset, count: count)
            var out: [UInt8] = []
            out.reserveCapacity(count)
            for i in offset..<(offset + count) {
                if i < head.count { out.append(head[i]) } else if i < head.count + padding { out.append(0) } else { out.append(tail[i - head.count - padding]) }
            }
            return out
        }
    }
}

extension VideoFixtures {
    /// Any file under Tests/Fixtures.
    static func fixture(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.deletingLastPathComponent().appendingPathComponent(relative)))
    }
}
