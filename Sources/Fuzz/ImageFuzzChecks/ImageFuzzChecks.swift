import ImageCodec

/// The invariants every image input must keep, shared by the fuzz targets (fuzz-jpeg,
/// fuzz-png, fuzz-webp, which trap on a broken one) and the regression test that replays their findings.
///
/// Probes, then decodes at every scale through the public façade. Small limits keep a hostile
/// header from turning one input into gigabytes. Beyond "no crash": a failure is an
/// `ImageCodecError`, and a successful decode has as many bytes as its size says, agrees with
/// the probe on the stored size, and has the size libjpeg would give at that scale
/// (ceil(size · M / 8)); small results are also turned by their EXIF orientation. A JPEG's
/// rows streamed by `decodeRows` at 1/8 and 8/8 must be the bitmap's.
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
            if ImageFormat.sniff(bytes) == .jpeg, scale == .eighth || scale == .full {
                problems += streamedRowProblems(bytes, scale: scale, bitmap: bitmap)
            }
        }
        return problems
    }

    /// `ImageCodec.decodeRows` of a JPEG that `decode` decoded: the same size, layout and bytes.
    static func streamedRowProblems(_ bytes: [UInt8], scale: DecodeScale, bitmap: Bitmap) -> [String] {
        let sink = RowCollector()
        do {
            _ = try ImageCodec.decodeRows(bytes, scale: scale, limits: limits, into: sink)
        } catch {
            return ["decodeRows threw \(error) where decode succeeded at \(scale)"]
        }
        guard sink.width == bitmap.width, sink.height == bitmap.height, sink.layout == bitmap.layout,
              sink.pixels == bitmap.pixels, sink.nextRow == bitmap.height else {
            return ["decodeRows differs from decode at \(scale)"]
        }
        return []
    }

    /// Rows handed over by `decodeRows`, put where they belong.
    final class RowCollector: DecodedRowSink {
        var width = 0, height = 0, layout = Bitmap.Layout.rgb, nextRow = 0
        var pixels: [UInt8] = []

        func begin(width: Int, height: Int, layout: Bitmap.Layout) throws {
            (self.width, self.height, self.layout) = (width, height, layout)
            pixels = [UInt8](repeating: 0, count: width * height * layout.channels)
        }

        func write(_ rows: UnsafeBufferPointer<UInt8>, first: Int, count: Int) throws {
            let start = first * width * layout.channels
            guard first >= 0, start + rows.count <= pixels.count else {
                throw ImageCodecError(.invalidArgument, "rows \(first)+\(count) outside the image")
            }
            pixels.withUnsafeMutableBufferPointer { p in
                _ = UnsafeMutableBufferPointer(rebasing: p[start..<(start + rows.count)]).update(fromContentsOf: rows)
            }
            nextRow = first + count
        }
    }

    /// Limits for HEIF inputs: a grid's tiles are decoded one by one, so a small memory bound
    /// keeps a hostile header (huge `ispe`, thousands of tiles) from costing more than a few MB.
    public static let heifLimits = DecodeLimits(maxPixels: 16_000_000, maxDimension: 16_384, maxScans: 256,
                                                maxInputBytes: 8 << 20, maxMetadataBytes: 1 << 20, maxMemoryBytes: 64 << 20)

    /// What fuzz-heic checks: probe, memory estimate and a 1/8 decode under `heifLimits` come
    /// back as values or `ImageCodecError`s; a decode has ceil(size / 8) pixels of the probed
    /// (displayed) size, and the probe agrees with the decode.
    public static func heifProblems(_ bytes: [UInt8], decoded: inout Int) -> [String] {
        var problems: [String] = []
        let info = try? ImageCodec.probe(bytes, limits: heifLimits)
        do {
            _ = try ImageCodec.memoryEstimate(bytes, scale: .eighth, limits: heifLimits)
            let image = try ImageCodec.decode(bytes, scale: .eighth, limits: heifLimits)
            decoded += 1
            problems += eighthDecodeProblems(image, probed: info)
        } catch is ImageCodecError {
        } catch {
            problems.append("threw \(error), not an ImageCodecError")
        }
        return problems
    }

    /// The invariants of a 1/8 decode beside the probe of the same input: the bitmap holds as
    /// many bytes as its size says, the probe succeeded and agrees, and the output is ceil(size/8).
    static func eighthDecodeProblems(_ image: DecodedImage, probed info: ImageInfo?) -> [String] {
        let b = image.bitmap
        var problems: [String] = []
        if b.pixels.count != b.width * b.height * b.channels { problems.append("bitmap size") }
        guard let info else { return problems + ["decode succeeded where probe failed"] }
        if info != image.info { problems.append("probe and decode disagree") }
        let expected = DecodeScale.eighth.outputSize(width: info.width, height: info.height)
        if b.width != expected.width || b.height != expected.height { problems.append("output size is not ceil(size/8)") }
        return problems
    }

    /// Movie posters under tight limits (small pictures, a 64 MB memory bound): probe, memory
    /// estimate and 1/8 decode through a `MemoryByteSource`. Invariants: typed errors only, the
    /// probe agrees with the decode, the output is ceil(size/8), and the byte-array API gives
    /// the same answer.
    public static let videoLimits = DecodeLimits(maxPixels: 4_000_000, maxDimension: 4096, maxMemoryBytes: 64 << 20)

    public static func videoProblems(_ bytes: [UInt8], decoded: inout Int) -> [String] {
        var problems: [String] = []
        let source = MemoryByteSource(bytes)
        let info = try? ImageCodec.probe(source: source, limits: videoLimits)
        do {
            _ = try ImageCodec.memoryEstimate(source: source, scale: .eighth, limits: videoLimits)
            let image = try ImageCodec.decode(source: source, scale: .eighth, limits: videoLimits)
            decoded += 1
            problems += eighthDecodeProblems(image, probed: info)
            let b = image.bitmap
            if ImageFormat.sniff(bytes) == .video, (try? ImageCodec.decode(bytes, scale: .eighth, limits: videoLimits))?.bitmap != b {
                problems.append("byte-array decode differs")
            }
        } catch is ImageCodecError {
        } catch {
            problems.append("threw \(error), not an ImageCodecError")
        }
        return problems
    }
}
