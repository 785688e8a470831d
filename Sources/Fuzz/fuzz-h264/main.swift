import ImageCodec

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

enum H264FuzzLimits {
    /// Small enough that one input decodes in milliseconds.
    static let limits = DecodeLimits(maxPixels: 1 << 20, maxDimension: 4096, maxInputBytes: 1 << 20,
                                     maxMemoryBytes: 64 << 20)
}

/// An Annex B stream through `H264Decoder.decodeAnnexB`, and the same NAL units as an avcC-style
/// sample through `decode(parameterSets:data:lengthSize:)`; any throw that is not an
/// `ImageCodecError`, and any picture whose planes disagree with its size, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check { try H264Decoder.decodeAnnexB(bytes, limits: H264FuzzLimits.limits) }
    // The first two bytes choose the length size; the rest is split into parameter sets and a sample.
    guard size > 4 else { return 0 }
    let lengthSize = [1, 2, 4, 4][Int(bytes[0] & 3)]
    let split = min(size, 2 + Int(bytes[1]))
    let sets = bytes[2..<split].split(separator: 0).map { Array($0) }
    check { try H264Decoder.decode(parameterSets: sets, data: bytes[split...], lengthSize: lengthSize, limits: H264FuzzLimits.limits) }
    return 0
}

func check(_ decode: () throws -> HEVCPicture) {
    do {
        let picture = try decode()
        let (sx, sy) = picture.chromaFormat.subsampling
        for (i, plane) in picture.planes.enumerated() {
            let w = i == 0 ? picture.width : (picture.width + sx - 1) / sx
            let h = i == 0 ? picture.height : (picture.height + sy - 1) / sy
            precondition(plane.width == w && plane.height == h && plane.samples.count == w * h, "plane \(i) size")
        }
    } catch is ImageCodecError {
    } catch {
        preconditionFailure("threw \(error), not an ImageCodecError")
    }
}
