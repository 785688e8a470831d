/// Lossy WebP encoder: VP8 key frame (RFC 6386) in a RIFF container, with an `ALPH` chunk
/// (lossless VP8L alpha) when the bitmap has transparency.
///
/// Data flow, one stage per file: `YUVConverter` (libwebp's RGB → Y′CbCr 4:2:0) →
/// `SegmentAnalysis` (susceptibility histogram, k-means into up to 4 segments; edges by
/// `PredictionEdges`) →
/// `Quantizer` (cwebp's quality → quantiser mapping, matrices, λ) → `MacroblockEncoder`
/// (RD mode decision with `VP8IntraPrediction`, `Transforms`, `Quantize`, `TokenCosts`
/// refreshed from the frame's token counts, `ModeCosts`; keeps the reconstruction) →
/// `LoopFilterLevel` → `VP8FrameWriter` (probability updates, `BoolEncoder`) → `AlphaEncoder` → `RIFFWriter`.
///
/// The defaults follow `cwebp -q Q -m 4`: 4 segments, spatial noise shaping 50, filter
/// strength 60, sharpness 0, normal loop filter, one token partition, no trellis. Left out
/// of libwebp's `-m 4`: the spectral-distortion term and flatness penalties of its RD score,
/// alpha-weighted chroma averaging, and LZ77 in the alpha plane.
///
/// Measured (`gallery-bench --only webp-encode`, 4 bench photos at 480 and 1920 px, q82, on a
/// shared 2-core machine under load): bytes at equal RGB PSNR 0.986-1.006× `cwebp -m 4`;
/// 0.50-0.75× our JPEG q82 at the JPEG's PSNR; encode CPU time 0.9-1.5× cwebp's (docs/webp.md).
public enum WebPEncoder {
    /// VP8's largest width or height (14-bit fields).
    public static let maxDimension = 16383

    /// Encodes `bitmap` as a lossy WebP file.
    /// - Parameters:
    ///   - bitmap: `.gray`, `.grayAlpha`, `.rgb` or `.rgba`. Alpha is kept (losslessly) when
    ///     some pixel is not opaque; a fully opaque alpha channel is dropped.
    ///   - quality: 0...100, the same scale as `cwebp -q` (75 is cwebp's default).
    ///   - segments: 1...4 macroblock segments with their own quantiser and filter level
    ///     (cwebp's `-segments`, 4 by default).
    ///   - snsStrength: 0...100, how much the quantiser follows each segment's visual
    ///     susceptibility (cwebp's `-sns`, 50 by default); 0 gives every segment the same
    ///     quantiser, which is best for PSNR.
    ///   - filterStrength: 0...100, loop-filter strength (cwebp's `-f`, 60 by default).
    ///   - iccProfile: an ICC profile to embed (`ICCP` chunk), nil or empty for none (the
    ///     pixels are then taken as sRGB, as browsers do).
    /// - Throws: `.invalidArgument` for a parameter out of range or a side above 16383 px.
    public static func encode(_ bitmap: Bitmap, quality: Int = 75, segments: Int = 4, snsStrength: Int = 50,
                              filterStrength: Int = 60, iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        guard (0...100).contains(quality), (1...4).contains(segments), (0...100).contains(snsStrength),
              (0...100).contains(filterStrength) else {
            throw ImageCodecError(.invalidArgument, "WebP quality \(quality), segments \(segments), sns \(snsStrength) or filter \(filterStrength) out of range")
        }
        let width = bitmap.width, height = bitmap.height
        guard width >= 1, height >= 1, width <= maxDimension, height <= maxDimension else {
            throw ImageCodecError(.invalidArgument, "\(width)x\(height) exceeds WebP's \(maxDimension) px limit")
        }
        guard bitmap.pixels.count == height * bitmap.rowBytes else {
            throw ImageCodecError(.invalidArgument, "bitmap has \(bitmap.pixels.count) bytes for \(width)x\(height)")
        }
        let lossy = try encodeVP8(bitmap, quality: quality, segments: segments, snsStrength: snsStrength,
                                  filterStrength: filterStrength, keepReconstruction: false)
        let alpha = bitmap.hasTransparency ? AlphaEncoder.encode(bitmap) : nil
        if let iccProfile, iccProfile.count > Int(UInt32.max) - 64 {
            throw ImageCodecError(.invalidArgument, "ICC profile of \(iccProfile.count) bytes is too large for a RIFF chunk")
        }
        return RIFFWriter.file(width: width, height: height, vp8: lossy.vp8, alpha: alpha, iccProfile: iccProfile)
    }

    /// The VP8 frame, and (for tests) the encoder's reconstruction cropped to the image:
    /// what a decoder shows when the loop filter is off.
    struct LossyFrame {
        var vp8: [UInt8]
        var y: [UInt8] = [], u: [UInt8] = [], v: [UInt8] = []
    }

    static func encodeVP8(_ bitmap: Bitmap, quality: Int, segments: Int, snsStrength: Int, filterStrength: Int,
                          keepReconstruction: Bool) throws -> LossyFrame {
        let width = bitmap.width, height = bitmap.height
        let mbw = (width + 15) / 16, mbh = (height + 15) / 16
        let frame = FrameStore(mbw: mbw, mbh: mbh)
        bitmap.pixels.withUnsafeBufferPointer { p in
            YUVConverter.convert(p.baseAddress!, width: width, height: height, channels: bitmap.channels, into: frame.source)
        }

        let analysis = SegmentAnalysis.run(frame, segments: segments)
        let uvACDelta = min(max((analysis.uvAlpha - 64) * 10 / 70 * snsStrength / 100, -4), 6)
        let uvDCDelta = min(max(-4 * snsStrength / 100, -15), 15)
        var params: [SegmentParameters] = []
        for s in 0..<analysis.segmentCount {
            let q = SegmentParameters.quantIndex(quality: quality, alpha: analysis.alpha[s], sns: snsStrength)
            var p = SegmentParameters(quantIndex: q, uvDCDelta: uvDCDelta, uvACDelta: uvACDelta)
            p.filterLevel = LoopFilterLevel.initial(quantIndex: q, beta: analysis.beta[s], strength: filterStrength)
            params.append(p)
        }
        let matrices = UnsafeMutablePointer<QuantMatrix>.allocate(capacity: params.count * 3)
        defer { matrices.deallocate() }
        for (s, p) in params.enumerated() {
            (matrices + 3 * s).initialize(to: p.y1)
            (matrices + 3 * s + 1).initialize(to: p.y2)
            (matrices + 3 * s + 2).initialize(to: p.uv)
        }
        // Rates start from the default token probabilities; as libwebp does, about eight times
        // per frame (at least every 96 macroblocks) the probabilities the counts so far call
        // for replace them, so later decisions are costed closer to what the frame will code.
        let costs = TokenCosts(probabilities: VP8Tables.defaultCoefficientProbabilities)
        let statistics = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * 1056)
        defer { statistics.deallocate() }
        statistics.initialize(repeating: 0, count: 2 * 1056)
        let refreshed = UnsafeMutablePointer<UInt8>.allocate(capacity: 1056)
        defer { refreshed.deallocate() }
        let refreshInterval = max(mbw * mbh >> 3, 96)
        var untilRefresh = refreshInterval
        let modeCosts = ModeCosts()
        let coder = MacroblockEncoder(mbw: mbw, mbh: mbh)
        params.withUnsafeBufferPointer { segmentParams in
            for my in 0..<mbh {
                coder.startRow()
                for mx in 0..<mbw {
                    untilRefresh -= 1
                    if untilRefresh < 0 {
                        TokenCoder.chooseProbabilities(counts: statistics, into: refreshed)
                        costs.update(probabilities: refreshed)
                        untilRefresh = refreshInterval
                    }
                    coder.encode(mx: mx, my: my, frame: frame, matrices: matrices, segment: segmentParams.baseAddress!,
                                 costs: costs, modeCosts: modeCosts, statistics: statistics)
                }
            }
        }
        if filterStrength > 0 {
            for s in params.indices {
                params[s].filterLevel = LoopFilterLevel.adjusted(params[s].filterLevel, maxEdge: coder.maxEdge[s],
                                                                  y2ACStep: Int(params[s].y2.step[1]))
            }
        }
        var frameLevel = 0
        for p in params { frameLevel = max(frameLevel, p.filterLevel) }
        let vp8 = try VP8FrameWriter.write(frame, VP8FrameParameters(
            width: width, height: height, segments: params, uvDCDelta: uvDCDelta, uvACDelta: uvACDelta, filterLevel: frameLevel),
            skippedCounts: statistics)
        var result = LossyFrame(vp8: vp8)
        if keepReconstruction {
            let uvWidth = (width + 1) / 2, uvHeight = (height + 1) / 2
            for row in 0..<height {
                result.y += UnsafeBufferPointer(start: frame.recon.y + row * frame.recon.yStride, count: width)
            }
            for row in 0..<uvHeight {
                result.u += UnsafeBufferPointer(start: frame.recon.u + row * frame.recon.uvStride, count: uvWidth)
                result.v += UnsafeBufferPointer(start: frame.recon.v + row * frame.recon.uvStride, count: uvWidth)
            }
        }
        return result
    }
}
