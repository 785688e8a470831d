/// Draws an `iovl` plan (`HEIFOverlay`): the full-size RGB canvas is filled, each input is
/// decoded at full size by `HEIFPictureRenderer` (with its own transforms) and copied in,
/// clipped to the canvas, in reference order; then the overlay's own crop and orientation are
/// applied and the shown picture is box-reduced by `factor` (means of f×f blocks anchored at
/// the top left, as the grid renderer's output is).
///
/// Unlike a grid, an overlay cannot be reduced input by input (inputs overlap and later ones
/// cover earlier ones), so the canvas is held at full size: `workingBytes` counts it, its
/// turned copy and the largest input, and `DecodeLimits` refuses the decode before any of
/// them is allocated. Inputs that fall wholly outside the canvas are never decoded.
struct HEIFOverlayRenderer {
    let container: HEIFContainer
    let plan: HEIFPicturePlan
    let factor: Int
    let limits: DecodeLimits
    /// nil: our HEVC decoder.
    let decodeTile: HEIFTileDecoder?

    /// Bytes `render` allocates besides the output bitmap; `itemBytes` gives the item data an
    /// input plan copies (see `HEIFItemLocations.copiedBytes`); a grid input decodes its tiles
    /// on up to `threads` threads.
    static func workingBytes(_ plan: HEIFPicturePlan, factor: Int, threads: Int, itemBytes: (HEIFPicturePlan) -> Int) -> Int? {
        guard let overlay = plan.overlay else { return 0 }
        let t = plan.transform
        let canvas = DecodeMemoryEstimate.product([plan.baseWidth, plan.baseHeight, 3])
        let whole = t.cropX == 0 && t.cropY == 0 && t.cropWidth == plan.baseWidth && t.cropHeight == plan.baseHeight
        let cropped = whole ? 0 : DecodeMemoryEstimate.product([t.cropWidth, t.cropHeight, 3])
        let turned = t.orientation == .up ? 0 : DecodeMemoryEstimate.product([t.cropWidth, t.cropHeight, 3])
        var largestInput: Int? = 0
        for input in overlay.inputs {
            let p = input.plan
            let channels = p.configuration.chromaFormat == .monochrome ? 1 : 3
            let bytes = DecodeMemoryEstimate.sum([
                DecodeMemoryEstimate.product([p.displayWidth, p.displayHeight, channels]),
                channels == 3 ? 0 : DecodeMemoryEstimate.product([p.displayWidth, p.displayHeight, 3]),
                HEIFPictureRenderer.workingBytes(p, factor: 1, channels: channels, maxItemBytes: itemBytes(p), threads: threads),
            ])
            guard let bytes, let current = largestInput else { return nil }
            largestInput = max(current, bytes)
        }
        let sums = factor == 1 ? 0 : DecodeMemoryEstimate.product([(t.displayWidth + factor - 1) / factor, 3, 4])
        return DecodeMemoryEstimate.sum([canvas, cropped, turned, largestInput, sums])
    }

    /// The shown overlay, RGB, reduced by `factor`: ceil(displayed size / factor).
    func render() throws -> Bitmap {
        guard let overlay = plan.overlay else { throw ImageCodecError(.invalidArgument, "not an overlay plan") }
        let w = plan.baseWidth, h = plan.baseHeight
        var canvas = try Bitmap(width: w, height: h, layout: .rgb)
        let fill = overlay.fill
        canvas.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count { p[i] = fill.r; p[i &+ 1] = fill.g; p[i &+ 2] = fill.b; i &+= 3 }
        }
        for input in overlay.inputs {
            // Offsets are 32-bit and sizes within the limits: these sums cannot overflow Int.
            let x0 = max(0, input.x), x1 = min(w, input.x + input.plan.displayWidth)
            let y0 = max(0, input.y), y1 = min(h, input.y + input.plan.displayHeight)
            guard x0 < x1, y0 < y1 else { continue }
            let renderer = HEIFPictureRenderer(container: container, plan: input.plan, factor: 1, limits: limits, decodeTile: decodeTile)
            var picture = try renderer.render(alpha: nil, premultiplied: false)
            if picture.layout != .rgb { picture = picture.converted(to: .rgb) }
            guard picture.width == input.plan.displayWidth, picture.height == input.plan.displayHeight else {
                throw ImageCodecError(.corrupt, "overlay input decodes to \(picture.width)x\(picture.height), expected \(input.plan.displayWidth)x\(input.plan.displayHeight)")
            }
            let pw = picture.width, count = (x1 - x0) * 3
            picture.pixels.withUnsafeBufferPointer { src in
                canvas.pixels.withUnsafeMutableBufferPointer { dst in
                    for y in y0..<y1 {
                        let from = src.baseAddress! + ((y - input.y) * pw + (x0 - input.x)) * 3
                        (dst.baseAddress! + (y * w + x0) * 3).update(from: from, count: count)
                    }
                }
            }
        }
        let t = plan.transform
        var shown = canvas
        if t.cropX != 0 || t.cropY != 0 || t.cropWidth != w || t.cropHeight != h {
            shown = try canvas.cropped(x: t.cropX, y: t.cropY, width: t.cropWidth, height: t.cropHeight)
        }
        shown = t.orientation.apply(to: shown)
        return factor == 1 ? shown : try Self.reduced(shown, by: factor)
    }

    /// Means of `f`×`f` blocks anchored at the top left (edge blocks count only their pixels),
    /// rounded half up.
    static func reduced(_ image: Bitmap, by f: Int) throws -> Bitmap {
        let c = image.channels, w = image.width, h = image.height
        let outW = (w + f - 1) / f, outH = (h + f - 1) / f
        var out = try Bitmap(width: outW, height: outH, layout: image.layout)
        var sums = [UInt32](repeating: 0, count: outW * c)
        image.pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                sums.withUnsafeMutableBufferPointer { s in
                    for oy in 0..<outH {
                        let rows = min(h, (oy + 1) * f) - oy * f
                        for i in 0..<s.count { s[i] = 0 }
                        for y in (oy * f)..<(oy * f + rows) {
                            let row = src.baseAddress! + y * w * c
                            for x in 0..<w {
                                let sum = s.baseAddress! + (x / f) &* c
                                for k in 0..<c { sum[k] &+= UInt32(row[x &* c &+ k]) }
                            }
                        }
                        for ox in 0..<outW {
                            let n = UInt32(rows * (min(w, (ox + 1) * f) - ox * f))
                            for k in 0..<c { dst[(oy * outW + ox) * c + k] = UInt8(truncatingIfNeeded: (s[ox * c + k] + n / 2) / n) }
                        }
                    }
                }
            }
        }
        return out
    }
}
