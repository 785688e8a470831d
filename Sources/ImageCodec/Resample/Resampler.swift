/// Separable, high-quality resize of a `Bitmap` to an exact size.
///
/// Method: the convolution Pillow's `Image.resize(..., LANCZOS)` performs (see
/// `ResampleWeights`): horizontal pass first into an 8-bit intermediate, then a vertical pass,
/// with the same 22-bit weights and rounding, so our output matches Pillow's to the last level
/// in the common case. Lanczos-3 is the default because it keeps the most detail of the usual
/// filters without visible ringing, and it is the filter the thumbnail quality check compares
/// against; bicubic and triangle are there for callers that want softer or cheaper output.
///
/// Shape: weight tables are built once per call and per axis. Both passes run on SIMD lanes
/// (`ResampleLanes.swift`: eight rows at a time horizontally, sixteen columns at a time
/// vertically, weights cut into 16-bit pieces for pmaddwd) with the scalar passes' exact
/// integer results; the scalar passes below take the rows left over and any weight table that
/// does not split (a weight of 1.0 or more, as an upscale can have). Neither pass allocates per pixel. An axis whose size does not change is not
/// filtered at all.
public enum Resampler {
    /// The resampling kernel.
    public enum Filter: Sendable, Hashable {
        /// Lanczos windowed sinc, a = 3 (Pillow's LANCZOS). The default.
        case lanczos3
        /// Keys' cubic, a = −0.5 (Pillow's BICUBIC).
        case bicubic
        /// Linear interpolation, a tent stretched over the reduction (Pillow's BILINEAR).
        case triangle
    }

    /// A rectangle of the source in pixels, fractional coordinates allowed (Pillow's `box`):
    /// the output covers exactly this area. Used to crop while scaling and to keep a
    /// DCT-scaled decode aligned (see `ResizePlan.sourceRegion`).
    public struct Region: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double

        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// Resizes `region` of `bitmap` (the whole bitmap by default) to exactly `width` × `height`
    /// pixels, up or down (callers decide whether to upscale, see `ResizeMode.plan`). Every
    /// layout works; images with alpha are filtered premultiplied, so a transparent pixel's
    /// colour does not bleed into its neighbours. Samples outside the bitmap are never read:
    /// the kernel is clipped at the edges and renormalised.
    /// - Throws: `.invalidArgument` for a size that is not positive or a region that is empty
    ///   or leaves the bitmap; `.limitExceeded` when the output byte count would overflow.
    public static func resize(_ bitmap: Bitmap, width: Int, height: Int, filter: Filter = .lanczos3,
                              region: Region? = nil) throws -> Bitmap {
        let outCount = try Bitmap.byteCount(width: width, height: height, layout: bitmap.layout)
        guard bitmap.pixels.count == bitmap.height * bitmap.rowBytes else {
            throw ImageCodecError(.invalidArgument, "bitmap has \(bitmap.pixels.count) bytes for \(bitmap.width)x\(bitmap.height)")
        }
        let box = region ?? Region(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height))
        guard box.x.isFinite, box.y.isFinite, box.width.isFinite, box.height.isFinite,
              box.x >= 0, box.y >= 0, box.width > 0, box.height > 0,
              box.x + box.width <= Double(bitmap.width), box.y + box.height <= Double(bitmap.height) else {
            throw ImageCodecError(.invalidArgument, "resize region \(box) is outside \(bitmap.width)x\(bitmap.height)")
        }
        let horizontalNeeded = width != bitmap.width || box.x != 0 || box.width != Double(bitmap.width)
        let verticalNeeded = height != bitmap.height || box.y != 0 || box.height != Double(bitmap.height)
        if !horizontalNeeded && !verticalNeeded { return bitmap }
        let c = bitmap.channels
        var source = bitmap.pixels
        if bitmap.layout.hasAlpha {
            source.withUnsafeMutableBufferPointer { p in
                AlphaPremultiply.premultiply(p.baseAddress!, pixels: bitmap.width * bitmap.height, channels: c)
            }
        }
        // Only the rows the vertical pass reads go through the horizontal pass.
        let columnWeights = verticalNeeded
            ? ResampleWeights(inSize: bitmap.height, outSize: height, offset: box.y, span: box.height, filter: filter) : nil
        let firstRow = columnWeights?.firstInput ?? 0
        let rowCount = columnWeights.map { $0.endInput - $0.firstInput } ?? bitmap.height
        var rows: [UInt8]
        if horizontalNeeded {
            let weights = ResampleWeights(inSize: bitmap.width, outSize: width, offset: box.x, span: box.width, filter: filter)
            rows = [UInt8](repeating: 0, count: try Bitmap.byteCount(width: width, height: rowCount, layout: bitmap.layout))
            source.withUnsafeBufferPointer { src in
                rows.withUnsafeMutableBufferPointer { dst in
                    horizontal(src.baseAddress! + firstRow * bitmap.rowBytes, inWidth: bitmap.width, dst.baseAddress!,
                               outWidth: width, rows: rowCount, channels: c, weights: weights)
                }
            }
        } else {
            rows = source
        }
        var out = rows
        if let columnWeights {
            out = [UInt8](repeating: 0, count: outCount)
            let split = SplitWeights(columnWeights.weights)
            rows.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    if let split {
                        verticalLanes(src.baseAddress!, dst.baseAddress!, rowLength: width * c, outHeight: height,
                                      firstRow: horizontalNeeded ? firstRow : 0, weights: columnWeights, split: split)
                    } else {
                        vertical(src.baseAddress!, dst.baseAddress!, rowLength: width * c, outHeight: height,
                                 firstRow: horizontalNeeded ? firstRow : 0, weights: columnWeights)
                    }
                }
            }
        }
        if bitmap.layout.hasAlpha {
            out.withUnsafeMutableBufferPointer { p in
                AlphaPremultiply.unpremultiply(p.baseAddress!, pixels: width * height, channels: c)
            }
        }
        return try Bitmap(width: width, height: height, layout: bitmap.layout, pixels: out)
    }

    static let half: Int32 = 1 << (ResampleWeights.precisionBits - 1)

    @inline(__always)
    static func clamp(_ v: Int32) -> UInt8 {
        UInt8(clamping: v >> ResampleWeights.precisionBits)
    }

    private static func horizontal(_ src: UnsafePointer<UInt8>, inWidth: Int, _ dst: UnsafeMutablePointer<UInt8>,
                                   outWidth: Int, rows: Int, channels: Int, weights: ResampleWeights) {
        var done = 0
        if rows >= 8, let pairs = PairWeights(weights.weights) {
            done = rows / 8 * 8
            let columns = UnsafeMutablePointer<SIMD8<Int16>>.allocate(capacity: inWidth * channels * 2)
            defer { columns.deallocate() }
            weights.start.withUnsafeBufferPointer { starts in
                weights.count.withUnsafeBufferPointer { counts in
                    pairs.packed.withUnsafeBufferPointer { w in
                        let k = w.baseAddress!, stride = weights.stride, blocks = rows / 8
                        switch channels {
                        case 1: horizontalLanes(src, inWidth, dst, outWidth, blocks, starts, counts, k, stride, columns, Channels1.self)
                        case 2: horizontalLanes(src, inWidth, dst, outWidth, blocks, starts, counts, k, stride, columns, Channels2.self)
                        case 3: horizontalLanes(src, inWidth, dst, outWidth, blocks, starts, counts, k, stride, columns, Channels3.self)
                        default: horizontalLanes(src, inWidth, dst, outWidth, blocks, starts, counts, k, stride, columns, Channels4.self)
                        }
                    }
                }
            }
        }
        if done == rows { return }
        let src = src + done * inWidth * channels, dst = dst + done * outWidth * channels, rows = rows - done
        weights.start.withUnsafeBufferPointer { starts in
            weights.count.withUnsafeBufferPointer { counts in
                weights.weights.withUnsafeBufferPointer { w in
                    let stride = weights.stride
                    switch channels {
                    case 1: horizontalPass(src, inWidth, dst, outWidth, rows, starts, counts, w, stride, Channels1.self)
                    case 2: horizontalPass(src, inWidth, dst, outWidth, rows, starts, counts, w, stride, Channels2.self)
                    case 3: horizontalPass(src, inWidth, dst, outWidth, rows, starts, counts, w, stride, Channels3.self)
                    default: horizontalPass(src, inWidth, dst, outWidth, rows, starts, counts, w, stride, Channels4.self)
                    }
                }
            }
        }
    }

    /// Compile-time channel count, so each layout gets its own unrolled inner loop.
    protocol ChannelCount { static var n: Int { get } }
    enum Channels1: ChannelCount { static var n: Int { 1 } }
    enum Channels2: ChannelCount { static var n: Int { 2 } }
    enum Channels3: ChannelCount { static var n: Int { 3 } }
    enum Channels4: ChannelCount { static var n: Int { 4 } }

    @inline(__always)
    private static func horizontalPass<C: ChannelCount>(
        _ src: UnsafePointer<UInt8>, _ inWidth: Int, _ dst: UnsafeMutablePointer<UInt8>, _ outWidth: Int, _ rows: Int,
        _ starts: UnsafeBufferPointer<Int32>, _ counts: UnsafeBufferPointer<Int32>,
        _ w: UnsafeBufferPointer<Int32>, _ stride: Int, _: C.Type
    ) {
        let n = C.n
        let weightBase = w.baseAddress!
        for y in 0..<rows {
            let inRow = src + y &* inWidth &* n
            var out = dst + y &* outWidth &* n
            for x in 0..<outWidth {
                var s0 = half, s1 = half, s2 = half, s3 = half
                var p = inRow + Int(starts[x]) &* n
                let k = weightBase + x &* stride
                for i in 0..<Int(counts[x]) {
                    let wi = k[i]
                    s0 &+= Int32(p[0]) &* wi
                    if n > 1 { s1 &+= Int32(p[1]) &* wi }
                    if n > 2 { s2 &+= Int32(p[2]) &* wi }
                    if n > 3 { s3 &+= Int32(p[3]) &* wi }
                    p += n
                }
                out[0] = clamp(s0)
                if n > 1 { out[1] = clamp(s1) }
                if n > 2 { out[2] = clamp(s2) }
                if n > 3 { out[3] = clamp(s3) }
                out += n
            }
        }
    }

    /// `src` row r is input row `firstRow + r`.
    private static func vertical(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>,
                                 rowLength: Int, outHeight: Int, firstRow: Int, weights: ResampleWeights) {
        let acc = UnsafeMutablePointer<Int32>.allocate(capacity: rowLength)
        defer { acc.deallocate() }
        weights.start.withUnsafeBufferPointer { starts in
            weights.count.withUnsafeBufferPointer { counts in
                weights.weights.withUnsafeBufferPointer { w in
                    for y in 0..<outHeight {
                        acc.update(repeating: half, count: rowLength)
                        let first = Int(starts[y]) &- firstRow
                        let k = w.baseAddress! + y &* weights.stride
                        for i in 0..<Int(counts[y]) {
                            let wi = k[i]
                            let row = src + (first &+ i) &* rowLength
                            for j in 0..<rowLength { acc[j] &+= Int32(row[j]) &* wi }
                        }
                        let out = dst + y &* rowLength
                        for j in 0..<rowLength { out[j] = clamp(acc[j]) }
                    }
                }
            }
        }
    }
}
