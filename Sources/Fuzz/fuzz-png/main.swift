import ImageCodec

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

/// Probes, then decodes at every reduction through the public façade, with small limits, and
/// checks that a successful decode agrees with the probe (a trap is a finding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let limits = DecodeLimits(maxPixels: 16_000_000, maxDimension: 16_384, maxScans: 256,
                              maxInputBytes: 8 << 20, maxMetadataBytes: 1 << 20)
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let info = try? ImageCodec.probe(bytes, limits: limits)
    for scale in [DecodeScale.eighth, .quarter, .half, .full] {
        guard let image = try? ImageCodec.decode(bytes, scale: scale, limits: limits) else { continue }
        let bitmap = image.bitmap
        precondition(bitmap.pixels.count == bitmap.width * bitmap.height * bitmap.channels, "bitmap size")
        if let info {
            precondition(info.width == image.info.width && info.height == image.info.height, "probe and decode disagree on size")
            let expected = scale.outputSize(width: info.width, height: info.height)
            precondition(bitmap.width == expected.width && bitmap.height == expected.height, "output size is not ceil(size·M/8)")
        }
    }
    return 0
}
