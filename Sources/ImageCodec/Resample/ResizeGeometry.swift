/// How a displayed image is fitted to the size a page asks for.
public enum ResizeMode: Sendable, Hashable {
    /// Longest edge at most `maxEdge`, aspect ratio kept.
    case fit(maxEdge: Int)
    /// Fill exactly `width` × `height`, cropping the overflow around the centre.
    case cover(width: Int, height: Int)
}

/// The result of fitting a source size to a `ResizeMode`: scale to `scaledWidth` ×
/// `scaledHeight`, then crop `crop` (for cover) to reach `outputWidth` × `outputHeight`.
public struct ResizePlan: Sendable, Equatable {
    public var scaledWidth: Int
    public var scaledHeight: Int
    public var cropX: Int
    public var cropY: Int
    public var outputWidth: Int
    public var outputHeight: Int

    public init(scaledWidth: Int, scaledHeight: Int, cropX: Int, cropY: Int, outputWidth: Int, outputHeight: Int) {
        self.scaledWidth = scaledWidth
        self.scaledHeight = scaledHeight
        self.cropX = cropX
        self.cropY = cropY
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
    }
}

extension ResizeMode {
    /// Plans the resize of a `width` × `height` (already oriented) source.
    ///
    /// - `fit(maxEdge:)`: the longer edge becomes `maxEdge`, the other keeps the aspect ratio,
    ///   rounded to the nearest pixel and at least 1 px (10000×1 fit 480 → 480×1). A square gets
    ///   `maxEdge` on both edges. Without `allowUpscale`, a source whose longer edge is already
    ///   at most `maxEdge` keeps its size. No crop.
    /// - `cover(width:height:)`: the smallest scale at which the scaled source covers the box on
    ///   both axes (the other axis rounded to nearest, never below the box), then a centred crop
    ///   of exactly the box (odd leftovers put the extra pixel on the right/bottom). Without
    ///   `allowUpscale`, a source that would need enlarging keeps scale 1 and is cropped, centred,
    ///   to the largest rectangle of the box's shape that fits in it (a page reserves a box of
    ///   that shape: 600×400 into 480×480 gives 400×400, not 480×400), each side at least 1 px.
    ///
    /// Non-positive sizes in the mode or the source are treated as 1 (the plan never traps;
    /// callers validate user input before this). Arithmetic is exact integer arithmetic.
    public func plan(width: Int, height: Int, allowUpscale: Bool = false) -> ResizePlan {
        let w = max(width, 1), h = max(height, 1)
        switch self {
        case .fit(let requested):
            let edge = max(requested, 1)
            if !allowUpscale && max(w, h) <= edge {
                return ResizePlan(scaledWidth: w, scaledHeight: h, cropX: 0, cropY: 0, outputWidth: w, outputHeight: h)
            }
            let sw: Int, sh: Int
            if w >= h {
                sw = edge
                sh = max(1, ResizeMode.roundedRatio(h, edge, w))
            } else {
                sh = edge
                sw = max(1, ResizeMode.roundedRatio(w, edge, h))
            }
            return ResizePlan(scaledWidth: sw, scaledHeight: sh, cropX: 0, cropY: 0, outputWidth: sw, outputHeight: sh)
        case .cover(let requestedWidth, let requestedHeight):
            let bw = max(requestedWidth, 1), bh = max(requestedHeight, 1)
            // The width governs when the box is relatively wider than the source: bw/w ≥ bh/h.
            let widthGoverns = bw.multipliedFullWidth(by: h) >= bh.multipliedFullWidth(by: w)
            let needsUpscale = widthGoverns ? bw > w : bh > h
            if needsUpscale && !allowUpscale {
                // The governing axis is the one the source cannot fill: it keeps its full
                // length and the other follows the box's aspect ratio (never beyond the source).
                let ow: Int, oh: Int
                if widthGoverns {
                    ow = w
                    oh = min(h, max(1, ResizeMode.roundedRatio(w, bh, bw)))
                } else {
                    oh = h
                    ow = min(w, max(1, ResizeMode.roundedRatio(h, bw, bh)))
                }
                return ResizePlan(scaledWidth: w, scaledHeight: h, cropX: (w - ow) / 2, cropY: (h - oh) / 2,
                                  outputWidth: ow, outputHeight: oh)
            }
            let sw: Int, sh: Int
            if widthGoverns {
                sw = bw
                sh = max(bh, ResizeMode.roundedRatio(h, bw, w))
            } else {
                sh = bh
                sw = max(bw, ResizeMode.roundedRatio(w, bh, h))
            }
            return ResizePlan(scaledWidth: sw, scaledHeight: sh, cropX: (sw - bw) / 2, cropY: (sh - bh) / 2,
                              outputWidth: bw, outputHeight: bh)
        }
    }

    /// round(a · b / c) for positive values, halves rounded up, saturating at Int.max.
    private static func roundedRatio(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow, product <= Int.max / 2 - c else { return Int.max / 4 }
        return (2 * product + c) / (2 * c)
    }
}

extension ResizePlan {
    /// The part of the source that the output shows, for `Resampler.resize(_:width:height:region:)`
    /// with `outputWidth` × `outputHeight`: scale and crop in one filtering pass, with no
    /// scaled intermediate (for cover of an extreme aspect ratio, such as 10000×1 into 240×240
    /// with upscaling, that intermediate would be 2,400,000×240).
    ///
    /// - Parameters:
    ///   - sourceWidth, sourceHeight: the size this plan was made for.
    ///   - decodeScale: the bitmap being resized was decoded at this reduction of that size.
    ///     Its pixels then cover M/8 of the source each, and the image really ends at
    ///     width·M/8, inside the last decoded pixel (libjpeg rounds the size up); the region
    ///     says so, which keeps the thumbnail aligned with one made from a full decode.
    /// - Returns: a region in the decoded bitmap's pixels, fractional.
    public func sourceRegion(sourceWidth: Int, sourceHeight: Int, decodeScale: DecodeScale = .full) -> Resampler.Region {
        let m = Double(decodeScale.numerator) / 8
        let fx = Double(max(sourceWidth, 1)) / Double(max(scaledWidth, 1)) * m
        let fy = Double(max(sourceHeight, 1)) / Double(max(scaledHeight, 1)) * m
        return Resampler.Region(x: Double(cropX) * fx, y: Double(cropY) * fy,
                                width: Double(outputWidth) * fx, height: Double(outputHeight) * fy)
    }
}
