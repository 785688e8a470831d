import Foundation
import Testing
@testable import ImageCodec

/// Format range extensions: the 4:2:2 and 4:4:4 fixtures are checked bit-exactly by
/// `HEVCConformanceTests` (manifest entries `yuv422*`, `yuv444*`); this suite checks that every
/// range-extension coding tool we do not decode is refused as `unsupported`, and that the
/// memory estimate follows the chroma format.
@Suite struct HEVCRangeExtensionTests {
    /// The nine sps_range_extension() flags, in syntax order.
    static let spsTools = ["transform_skip_rotation", "transform_skip_context", "implicit_rdpcm", "explicit_rdpcm",
                           "extended_precision_processing", "intra_smoothing_disabled", "high_precision_offsets",
                           "persistent_rice_adaptation", "cabac_bypass_alignment"]

    @Test(arguments: 0..<9)
    func spsRangeExtensionToolIsRefused(_ tool: Int) throws {
        let stream = try HEVCConformanceTests.bytes("yuv444.265")
        let edited = Self.replacingSPSExtension(of: stream, with: [1, 0, 0, 0, 0, 0, 0, 0] + (0..<9).map { $0 == tool ? 1 : 0 })
        do {
            _ = try HEVCDecoder.decodeAnnexB(edited)
            Issue.record("\(Self.spsTools[tool]) decoded")
        } catch let error as ImageCodecError {
            #expect(error.kind == .unsupported, "\(Self.spsTools[tool]): \(error)")
        }
    }

    /// The same stream with an all-zero range extension still decodes to the same picture.
    @Test func emptyRangeExtensionDecodes() throws {
        let stream = try HEVCConformanceTests.bytes("yuv444.265")
        let edited = Self.replacingSPSExtension(of: stream, with: [1, 0, 0, 0, 0, 0, 0, 0] + [Int](repeating: 0, count: 9))
        #expect(try HEVCDecoder.decodeAnnexB(edited) == HEVCDecoder.decodeAnnexB(stream))
    }

    /// Picture buffers: 2 bytes a sample, 3 planes at full size for 4:4:4, twice 4:2:0's chroma for 4:2:2.
    @Test func memoryEstimateFollowsTheChromaFormat() throws {
        for (file, bytesPerPixel) in [("ctu16_wpp.265", 3), ("yuv422.265", 4), ("yuv444.265", 6), ("gray.265", 2)] {
            let units = try HEVCNALSplitter.annexB(try HEVCConformanceTests.bytes(file)).map { try HEVCNALUnit($0) }
            let sps = try #require(try units.first { $0.type == HEVCNALUnit.sps }.map { try HEVCSequenceParameterSet.parse($0.rbsp) })
            #expect(HEVCFrame.sampleBytes(sps) == sps.width * sps.height * bytesPerPixel, "\(file)")
        }
    }

    /// `stream` with its SPS's sps_extension_present_flag set and `bits` following it.
    static func replacingSPSExtension(of stream: [UInt8], with bits: [Int]) -> [UInt8] {
        var out: [UInt8] = []
        for unit in HEVCNALSplitter.annexB(stream) {
            var bytes = Array(unit)
            if (Int(bytes[0]) >> 1) & 0x3F == 33 {
                var rbsp: [UInt8] = []
                var zeros = 0
                for b in bytes[2...] {
                    if zeros >= 2 && b == 3 { zeros = 0; continue }
                    zeros = b == 0 ? zeros + 1 : 0
                    rbsp.append(b)
                }
                var all = rbsp.flatMap { b in (0..<8).map { Int(b >> (7 - $0)) & 1 } }
                let stop = all.lastIndex(of: 1)!
                precondition(all[stop - 1] == 0, "the fixture's SPS already has extensions")
                all = Array(all[..<(stop - 1)]) + [1] + bits + [1]
                while all.count % 8 != 0 { all.append(0) }
                var edited: [UInt8] = []
                for i in stride(from: 0, to: all.count, by: 8) {
                    edited.append(UInt8(all[i..<(i + 8)].reduce(0) { $0 << 1 | $1 }))
                }
                bytes = Array(bytes[..<2])
                zeros = 0
                for b in edited {
                    if zeros >= 2 && b <= 3 { bytes.append(3); zeros = 0 }
                    zeros = b == 0 ? zeros + 1 : 0
                    bytes.append(b)
                }
            }
            out += [0, 0, 0, 1] + bytes
        }
        return out
    }
}
