import Foundation
import Testing
@testable import ImageCodec

/// Damaged, cut and oversized H.264 input: every outcome is a picture of the stream's size
/// or a typed `ImageCodecError`, never a trap or a hang; plus the length-prefixed entry point
/// and `streamInfo` against the Annex B fixtures.
@Suite struct H264RobustnessTests {
    /// Small fixtures covering CAVLC, CABAC, 8x8 transforms, scaling lists, slices and 4:0:0.
    static let small = ["base_photo_qp45_98x62.264", "base_slices4_160x96.264", "main_photo_qp44_98x62.264",
                        "high_qp51_98x62.264", "high_jvt_cavlc_144x96.264", "high_cqm_custom_120x88.264",
                        "main_synth_qp16_80x64.264", "high_gray_176x144.264"]

    /// Decodes `bytes`, checking the picture's shape when one comes back.
    static func decodeOrThrow(_ bytes: [UInt8], file: String) {
        do {
            let picture = try H264Decoder.decodeAnnexB(bytes)
            for (i, plane) in picture.planes.enumerated() {
                let w = i == 0 ? picture.width : picture.width / 2, h = i == 0 ? picture.height : picture.height / 2
                #expect(plane.width == w && plane.height == h && plane.samples.count == w * h, "\(file)")
            }
        } catch is ImageCodecError {
        } catch {
            Issue.record("\(file): \(error) is not an ImageCodecError")
        }
    }

    @Test(arguments: small)
    func truncatedStreamsThrowTypedErrors(_ file: String) throws {
        let bytes = try H264Fixtures.bytes(file)
        var truncatedErrors = 0
        for cut in stride(from: 1, to: bytes.count - 1, by: max(1, bytes.count / 60)) {
            do {
                _ = try H264Decoder.decodeAnnexB(Array(bytes[0..<cut]))
            } catch let error as ImageCodecError {
                if error.kind == .truncated { truncatedErrors += 1 }
            }
        }
        #expect(truncatedErrors > 0, "no cut of \(file) was reported as truncated")
    }

    @Test(arguments: small)
    func bitFlipsNeverTrap(_ file: String) throws {
        let bytes = try H264Fixtures.bytes(file)
        var rng = SplitMix64(seed: UInt64(bytes.count))
        for _ in 0..<150 {
            var damaged = bytes
            for _ in 0..<rng.int(1...4) {
                let i = rng.int(0...(bytes.count - 1))
                damaged[i] ^= 1 << UInt8(rng.int(0...7))
            }
            Self.decodeOrThrow(damaged, file: file)
        }
    }

    @Test func randomBytesAfterHeadersNeverTrap() throws {
        let bytes = try H264Fixtures.bytes("main_photo_176x144.264")
        var rng = SplitMix64(seed: 264)
        for _ in 0..<100 {
            var damaged = bytes
            let start = rng.int(40...(bytes.count - 64))
            for i in start..<min(bytes.count, start + rng.int(1...64)) { damaged[i] = rng.byte() }
            Self.decodeOrThrow(damaged, file: "main_photo_176x144.264")
        }
    }

    /// The NAL units of an Annex B fixture as avcC would carry them: SPS and PPS apart, the
    /// rest with 4-byte (or `lengthSize`) big-endian lengths.
    static func sample(_ file: String, lengthSize: Int) throws -> (parameterSets: [[UInt8]], data: [UInt8]) {
        var sets: [[UInt8]] = [], data: [UInt8] = []
        for unit in HEVCNALSplitter.annexB(try H264Fixtures.bytes(file)) {
            let type = unit.first! & 0x1F
            if type == 7 || type == 8 {
                sets.append(Array(unit))
            } else {
                for k in (0..<lengthSize).reversed() { data.append(UInt8(truncatingIfNeeded: unit.count >> (8 * k))) }
                data += unit
            }
        }
        return (sets, data)
    }

    @Test(arguments: ["base_slices4_160x96.264", "high_jvt_cabac_176x144.264"])
    func lengthPrefixedSampleDecodesLikeAnnexB(_ file: String) throws {
        let annexB = try H264Decoder.decodeAnnexB(try H264Fixtures.bytes(file))
        for lengthSize in [2, 4] {
            let (sets, data) = try Self.sample(file, lengthSize: lengthSize)
            let picture = try H264Decoder.decode(parameterSets: sets, data: data[...], lengthSize: lengthSize)
            #expect(picture == annexB)
        }
        let (sets, data) = try Self.sample(file, lengthSize: 4)
        #expect(throws: ImageCodecError.self) { try H264Decoder.decode(parameterSets: sets, data: data[...], lengthSize: 3) }
        #expect(throws: ImageCodecError.self) { try H264Decoder.decode(parameterSets: [], data: data[...], lengthSize: 4) }
    }

    @Test func streamInfoReadsSizeAndColour() throws {
        let (sets, _) = try Self.sample("ffmpeg_vui_192x128.264", lengthSize: 4)
        let info = try H264Decoder.streamInfo(parameterSets: sets)
        #expect(info.width == 192 && info.height == 128 && info.chromaFormat == .yuv420 && info.bitDepthLuma == 8)
        #expect(info.videoSignal.colourPrimaries == 1 && info.videoSignal.transferCharacteristics == 1
            && info.videoSignal.matrixCoefficients == 1)
        let picture = try H264Decoder.decodeAnnexB(try H264Fixtures.bytes("ffmpeg_vui_192x128.264"))
        #expect(picture.videoSignal == info.videoSignal)
        let cropped = try H264Decoder.streamInfo(parameterSets: try Self.sample("base_photo_qp45_98x62.264", lengthSize: 4).parameterSets)
        #expect(cropped.width == 98 && cropped.height == 62)
        let tenBit = try H264Decoder.streamInfo(parameterSets: try Self.sample("refuse_10bit.264", lengthSize: 4).parameterSets)
        #expect(tenBit.bitDepthLuma == 10)
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let bytes = try H264Fixtures.bytes("high_photo_1280x720.264")
        let error = #expect(throws: ImageCodecError.self) {
            try H264Decoder.decodeAnnexB(bytes, limits: DecodeLimits(maxPixels: 640 * 480))
        }
        #expect(error?.kind == .limitExceeded)
        let memory = #expect(throws: ImageCodecError.self) {
            try H264Decoder.decodeAnnexB(bytes, limits: DecodeLimits(maxMemoryBytes: 1 << 20))
        }
        #expect(memory?.kind == .limitExceeded)
    }

    @Test func refusalMessagesSayWhatIsMissing() throws {
        for (file, words) in [("refuse_interlaced.264", "interlaced"), ("refuse_422.264", "4:2:2"),
                              ("refuse_444.264", "4:4:4"), ("refuse_10bit.264", "bit depth")] {
            let error = #expect(throws: ImageCodecError.self) { try H264Decoder.decodeAnnexB(try H264Fixtures.bytes(file)) }
            #expect(error?.kind == .unsupported && error?.message.contains(words) == true, "\(file): \(String(describing: error))")
        }
    }
}
