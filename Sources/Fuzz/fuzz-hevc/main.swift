import ImageCodec

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

enum HEVCFuzzLimits {
    /// Small enough that one input decodes in milliseconds.
    static let limits = DecodeLimits(maxPixels: 1 << 20, maxDimension: 4096, maxInputBytes: 1 << 20,
                                     maxMemoryBytes: 64 << 20)
}

/// An Annex B stream through `HEVCDecoder.decodeAnnexB`; any throw that is not an
/// `ImageCodecError`, and any picture whose planes disagree with its size, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let picture = try HEVCDecoder.decodeAnnexB(bytes, limits: HEVCFuzzLimits.limits)
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
    return 0
}
