/// Macroblock analysis and segmentation as libwebp does it before coding
/// (src/enc/analysis_enc.c, `-m 2...4` path):
///
/// - per macroblock, the "susceptibility" of the DC and TM 16×16 predictions of the source:
///   the histogram of |DCT coefficient| / 8 (capped at 31) over the 16 residual blocks gives
///   α = 510 · (last non-empty bin) / (fullest bin's count), the larger of the two modes;
///   the same over chroma's 8 blocks gives α_uv; the macroblock's value is
///   255 − (3α + α_uv + 2)/4, clipped to 0...255 (high = flat, easy to code).
/// - k-means (at most 6 rounds, stop when centres move < 5 in total) on the histogram of
///   those values, centres first spread evenly over the used range, gives up to 4 segments.
/// - each segment's α (−127...127, relative to the weighted mean, for the quantiser) and
///   β (0...255, rank between the extreme centres, for the loop filter).
/// - the mean α_uv moves chroma's AC quantiser (see `WebPEncoder`).
struct SegmentAnalysisResult {
    var segmentCount: Int
    var alpha: [Int]
    var beta: [Int]
    var uvAlpha: Int
}

enum SegmentAnalysis {
    static func run(_ frame: borrowing FrameStore, segments: Int) -> SegmentAnalysisResult {
        let mbw = frame.mbw, mbh = frame.mbh
        let count = mbw * mbh
        let values = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        defer { values.deallocate() }
        var histogram = [Int](repeating: 0, count: 256)
        var uvSum = 0
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 1024)
        defer { scratch.deallocate() }
        // Coefficients (16) and the histogram of one mode (32 bins), as pointers: the histogram
        // loop runs 16 times per block and must carry no bounds or overflow checks.
        let coefficients = UnsafeMutablePointer<Int32>.allocate(capacity: 48)
        defer { coefficients.deallocate() }
        let bins = coefficients + 16
        let top = scratch, left = scratch + 32, pred = scratch + 64, topC = scratch + 320, leftC = scratch + 352
        for my in 0..<mbh {
            for mx in 0..<mbw {
                // Edges from the source, with the decoder's constants outside the frame.
                let ys = frame.source.yStride, uvs = frame.source.uvStride
                let y0 = frame.source.y + ((my * 16) * ys + mx * 16)
                PredictionEdges.gather(frame.source.y, stride: ys, x: mx * 16, y: my * 16, size: 16, top: top, left: left)
                let edges = VP8IntraPrediction.DCEdges(hasTop: my > 0, hasLeft: mx > 0)
                var bestAlpha = 0
                for mode in IntraMode16.dc.rawValue...IntraMode16.tm.rawValue {
                    VP8IntraPrediction.predictBlock(pred, stride: 16, size: 16, mode: UInt8(mode), edges: edges, top: top + 1, left: left, leftStride: 1)
                    bins.update(repeating: 0, count: 32)
                    for blk in 0..<16 {
                        let x = blk & 3, y = blk >> 2
                        Transforms.forward(y0 + (y &* 4 &* ys &+ x &* 4), ys, pred + (y &* 64 &+ x &* 4), 16, coefficients)
                        addToHistogram(coefficients, bins)
                    }
                    bestAlpha = max(bestAlpha, alpha(bins))
                }
                var bestUV = 0
                let uvOffset = (my * 8) * uvs + mx * 8
                for mode in IntraMode16.dc.rawValue...IntraMode16.tm.rawValue {
                    bins.update(repeating: 0, count: 32)
                    for plane in 0..<2 {
                        let base = plane == 0 ? frame.source.u : frame.source.v
                        let c0 = base + uvOffset
                        PredictionEdges.gather(base, stride: uvs, x: mx * 8, y: my * 8, size: 8, top: topC, left: leftC)
                        VP8IntraPrediction.predictBlock(pred, stride: 8, size: 8, mode: UInt8(mode), edges: edges, top: topC + 1, left: leftC, leftStride: 1)
                        for blk in 0..<4 {
                            let x = blk & 1, y = blk >> 1
                            Transforms.forward(c0 + (y &* 4 &* uvs &+ x &* 4), uvs, pred + (y &* 32 &+ x &* 4), 8, coefficients)
                            addToHistogram(coefficients, bins)
                        }
                    }
                    bestUV = max(bestUV, alpha(bins))
                }
                let mixed = (3 * bestAlpha + bestUV + 2) >> 2
                let value = min(max(255 - mixed, 0), 255)
                values[my * mbw + mx] = UInt8(value)
                histogram[value] += 1
                uvSum += bestUV
            }
        }
        let uvAlpha = uvSum / count
        guard segments > 1 else {
            return SegmentAnalysisResult(segmentCount: 1, alpha: [0], beta: [0], uvAlpha: uvAlpha)
        }
        let (centers, map, mid) = kMeans(histogram, segments: segments)
        for i in 0..<count { frame.segment[i] = UInt8(map[Int(values[i])]) }
        var lo = centers[0], hi = centers[0]
        for c in centers { lo = min(lo, c); hi = max(hi, c) }
        if hi == lo { hi = lo + 1 }
        let alphas = centers.map { min(max(255 * ($0 - mid) / (hi - lo), -127), 127) }
        let betas = centers.map { min(max(255 * ($0 - lo) / (hi - lo), 0), 255) }
        return SegmentAnalysisResult(segmentCount: segments, alpha: alphas, beta: betas, uvAlpha: uvAlpha)
    }

    /// Adds a block's |coefficient| / 8 (capped at 31) to the histogram.
    @inline(__always)
    private static func addToHistogram(_ coefficients: UnsafePointer<Int32>, _ bins: UnsafeMutablePointer<Int32>) {
        for k in 0..<16 {
            let c = coefficients[k]
            bins[Int(min((c < 0 ? 0 &- c : c) &>> 3, 31))] &+= 1
        }
    }

    /// libwebp's GetAlpha: 510 · last non-empty bin / fullest bin (0 when that is ≤ 1).
    private static func alpha(_ bins: UnsafePointer<Int32>) -> Int {
        var fullest = 0, last = 0
        for k in 0..<32 where bins[k] > 0 {
            fullest = max(fullest, Int(bins[k]))
            last = k
        }
        return fullest > 1 ? 510 * last / fullest : 0
    }

    /// Centres, the segment of each value 0...255, and the weighted mean of the centres.
    private static func kMeans(_ histogram: [Int], segments nb: Int) -> ([Int], [Int], Int) {
        var minA = 0
        while minA < 255 && histogram[minA] == 0 { minA += 1 }
        var maxA = 255
        while maxA > minA && histogram[maxA] == 0 { maxA -= 1 }
        let range = maxA - minA
        var centers = (0..<nb).map { minA + (2 * $0 + 1) * range / (2 * nb) }
        var map = [Int](repeating: 0, count: 256)
        var weightedAverage = 0
        for _ in 0..<6 {
            var accum = [Int](repeating: 0, count: nb), distance = [Int](repeating: 0, count: nb)
            var n = 0
            for a in minA...maxA where histogram[a] > 0 {
                while n + 1 < nb && abs(a - centers[n + 1]) < abs(a - centers[n]) { n += 1 }
                map[a] = n
                distance[n] += a * histogram[a]
                accum[n] += histogram[a]
            }
            var displaced = 0, total = 0
            weightedAverage = 0
            for k in 0..<nb where accum[k] > 0 {
                let center = (distance[k] + accum[k] / 2) / accum[k]
                displaced += abs(centers[k] - center)
                centers[k] = center
                weightedAverage += center * accum[k]
                total += accum[k]
            }
            weightedAverage = (weightedAverage + total / 2) / max(total, 1)
            if displaced < 5 { break }
        }
        return (centers, map, weightedAverage)
    }
}
