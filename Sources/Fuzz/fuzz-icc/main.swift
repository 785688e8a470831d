import ImageCodec

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

/// One input = one ICC profile: parse it, build the colour transform (both outputs) and run it
/// over a small bitmap. Typed `ImageCodecError`s are fine; a trap, hang or huge allocation is a
/// finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for output in ColourOutput.allCases {
        guard let transform = try? ColourTransform.make(profile: bytes, output: output), !transform.convertsCMYK else { continue }
        let layout: Bitmap.Layout = transform.sourceChannels == 1 ? .grayAlpha : .rgba
        guard var bitmap = try? Bitmap(width: 64, height: 1, layout: layout,
                                       pixels: (0..<(64 * layout.channels)).map { UInt8(truncatingIfNeeded: $0 &* 37) }) else { continue }
        try? transform.apply(to: &bitmap)
    }
    return 0
}
