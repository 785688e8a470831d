import ImageCodec

extension ImageFuzzChecks {
    /// What fuzz-gif and fuzz-tiff check, through the `ByteSource` entry points raws use:
    /// probe, memory estimate and decodes at 1/8 and full size under `limits` either throw an
    /// `ImageCodecError` or agree with each other on format and size.
    public static func stillProblems(_ bytes: [UInt8], decoded: inout Int) -> [String] {
        var problems: [String] = []
        let source = MemoryByteSource(bytes)
        let info = try? ImageCodec.probe(source: source, limits: limits)
        for scale in [DecodeScale.eighth, .full] {
            do {
                _ = try ImageCodec.memoryEstimate(source: source, scale: scale, limits: limits)
                let image = try ImageCodec.decode(source: source, scale: scale, limits: limits)
                decoded += 1
                let b = image.bitmap
                if b.pixels.count != b.width * b.height * b.channels { problems.append("bitmap size") }
                guard let info else { problems.append("decode succeeded where probe failed"); continue }
                if info.format != image.info.format || info.width != image.info.width || info.height != image.info.height {
                    problems.append("probe and decode disagree")
                }
                let expected = scale.outputSize(width: info.width, height: info.height)
                if b.width != expected.width || b.height != expected.height { problems.append("output size is not ceil(size·M/8)") }
            } catch is ImageCodecError {
            } catch {
                problems.append("threw \(error), not an ImageCodecError")
            }
        }
        return problems
    }
}
