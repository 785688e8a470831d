import ImageCodec

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (docs/toolchain.md "Fuzzing").

/// Feeds the input to `ExifReader` as a bare TIFF structure, as an APP1 payload, and as an
/// APP1 payload with the "Exif\0\0" magic already in place (so mutations reach the IFDs), at a
/// few slice offsets so that non-zero slice indices are exercised too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let tiff = ExifReader.parse(tiff: bytes[...])
    if let text = tiff.make { precondition(text.utf8.count <= 256, "make longer than the 256-byte cap") }
    if let text = tiff.lensModel { precondition(text.utf8.count <= 256, "lens model longer than the 256-byte cap") }
    if let gps = tiff.gps { precondition(abs(gps.latitude) <= 90 && abs(gps.longitude) <= 180, "GPS position out of range") }
    _ = ExifReader.parse(app1: bytes[...])
    let app1 = [0x45, 0x78, 0x69, 0x66, 0, 0] + bytes
    let viaApp1 = ExifReader.parse(app1: app1[...])
    precondition(viaApp1 == tiff, "APP1 and bare TIFF parses disagree")
    let padded = [0xFF, 0xE1] + app1
    let sliced = ExifReader.parse(app1: padded[2...])
    precondition(sliced == tiff, "a slice with a non-zero start index parses differently")
    return 0
}
