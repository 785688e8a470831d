import ImageCodec

/// The invariants every image input must keep, shared by the fuzz targets (fuzz-jpeg,
/// fuzz-png, fuzz-webp, which trap on a broken one) and the regression test that replays their findings.
///
/// Probes, then decodes at every scale through the public façade. Small limits keep a hostile
/// header from turning one input into gigabytes. Beyond "no crash": a failure is an
/// `ImageCodecError`, and a successful decode has as many bytes as its size says, agrees with
/// the probe on the stored size, and has the size libjpeg would give at that scale
/// (ceil(size · M / 8)); small results are also turned by their EXIF orientation.
public enum ImageFuzzChecks {
    /// Limits small enough that one input finishes in milliseconds.
    public static let limits = DecodeLimits(maxPixels: 16_000_000, maxDimension: 16_384, maxScans: 256,
                                            maxInputBytes: 8 << 20, maxMetadataBytes: 1 << 20)

    /// Broken invariants of `bytes`, one line each; empty when all hold. `decoded` counts the
    /// successful decodes (a finding that never decodes still passes, it only must not trap).
    public static func problems(_ bytes: [UInt8], decoded: inout Int) -> [String] {
        var problems: [String] = []
        let info = try? ImageCodec.probe(bytes, limits: limits)
        for scale in [DecodeScale.eighth, .quarter, .half, .full] {
            let image: DecodedImage
            do {
                image = try ImageCodec.decode(bytes, scale: scale, limits: limits)
            } catch is ImageCodecError {
                continue
            } catch {
                problems.append("threw \(error), not an ImageCodecError, at \(scale)")
                continue
            }
            decoded += 1
            let bitmap = image.bitmap
            if bitmap.pixels.count != bitmap.width * bitmap.height * bitmap.channels {
                problems.append("bitmap size at \(scale)")
            }
            if let info {
                if info.width != image.info.width || info.height != image.info.height {
                    problems.append("probe and decode disagree on size at \(scale)")
                }
                let expected = scale.outputSize(width: info.width, height: info.height)
                if bitmap.width != expected.width || bitmap.height != expected.height {
                    problems.append("output size is not ceil(size·M/8) at \(scale)")
                }
            }
            if bitmap.width * bitmap.height <= 1 << 16 {
                _ = image.info.orientation.apply(to: bitmap)
            }
        }
        return problems
    }
}
