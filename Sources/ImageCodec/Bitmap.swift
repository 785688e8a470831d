/// An 8-bit, interleaved, top-down image held in one contiguous array.
///
/// Rows are tightly packed: `rowBytes == width * channels`. Decoders, the resampler and the
/// encoders all speak this one type so that no stage needs to know where pixels came from.
public struct Bitmap: Sendable, Equatable {
    /// How the samples of one pixel are laid out.
    public enum Layout: Int, Sendable, CaseIterable {
        case gray = 1
        case grayAlpha = 2
        case rgb = 3
        case rgba = 4

        /// Samples per pixel.
        public var channels: Int { rawValue }
        /// Whether the last sample of each pixel is alpha.
        public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
    }

    public let width: Int
    public let height: Int
    public let layout: Layout
    /// `height * rowBytes` samples, row after row.
    public var pixels: [UInt8]

    public var channels: Int { layout.channels }
    public var rowBytes: Int { width * layout.channels }

    /// A black (or transparent) bitmap. Throws when the size is not positive or its byte count
    /// would overflow, so callers never allocate from unchecked header arithmetic.
    public init(width: Int, height: Int, layout: Layout) throws {
        let count = try Bitmap.byteCount(width: width, height: height, layout: layout)
        self.width = width
        self.height = height
        self.layout = layout
        self.pixels = [UInt8](repeating: 0, count: count)
    }

    /// Wraps existing samples; `pixels.count` must be exactly `width * height * channels`.
    public init(width: Int, height: Int, layout: Layout, pixels: [UInt8]) throws {
        let count = try Bitmap.byteCount(width: width, height: height, layout: layout)
        guard pixels.count == count else {
            throw ImageCodecError(.invalidArgument, "bitmap has \(pixels.count) bytes, \(width)x\(height) \(layout) needs \(count)")
        }
        self.width = width
        self.height = height
        self.layout = layout
        self.pixels = pixels
    }

    /// The checked byte size of a bitmap of this shape.
    public static func byteCount(width: Int, height: Int, layout: Layout) throws -> Int {
        guard width > 0, height > 0 else {
            throw ImageCodecError(.invalidArgument, "bitmap size \(width)x\(height) is not positive")
        }
        let (row, o1) = width.multipliedReportingOverflow(by: layout.channels)
        let (total, o2) = row.multipliedReportingOverflow(by: height)
        guard !o1, !o2, total <= Int(Int32.max) * 8 else {
            throw ImageCodecError(.limitExceeded, "bitmap size \(width)x\(height) is too large")
        }
        return total
    }

    /// The same pixels converted to another layout. Gray expands to equal R, G, B; colour
    /// drops to gray with the Rec. 601 luma weights; missing alpha becomes opaque.
    public func converted(to target: Layout) -> Bitmap {
        if target == layout { return self }
        let n = width * height
        let src = layout.channels
        let dst = target.channels
        var out = [UInt8](repeating: 255, count: n * dst)
        pixels.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for i in 0..<n {
                    let si = i &* src
                    let di = i &* dst
                    let r: UInt8, g: UInt8, b: UInt8, a: UInt8
                    switch layout {
                    case .gray: r = s[si]; g = r; b = r; a = 255
                    case .grayAlpha: r = s[si]; g = r; b = r; a = s[si &+ 1]
                    case .rgb: r = s[si]; g = s[si &+ 1]; b = s[si &+ 2]; a = 255
                    case .rgba: r = s[si]; g = s[si &+ 1]; b = s[si &+ 2]; a = s[si &+ 3]
                    }
                    switch target {
                    case .gray, .grayAlpha:
                        let y = (19595 &* Int(r) &+ 38470 &* Int(g) &+ 7471 &* Int(b) &+ 32768) >> 16
                        d[di] = UInt8(truncatingIfNeeded: y)
                        if target == .grayAlpha { d[di &+ 1] = a }
                    case .rgb, .rgba:
                        d[di] = r; d[di &+ 1] = g; d[di &+ 2] = b
                        if target == .rgba { d[di &+ 3] = a }
                    }
                }
            }
        }
        // The size was valid for `self`, and `target` only changes the channel count.
        return try! Bitmap(width: width, height: height, layout: target, pixels: out)
    }

    /// A sub-rectangle; throws when the rectangle is empty or leaves the bitmap.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) throws -> Bitmap {
        guard x >= 0, y >= 0, w > 0, h > 0, x <= width - w, y <= height - h else {
            throw ImageCodecError(.invalidArgument, "crop \(w)x\(h)+\(x)+\(y) is outside \(width)x\(height)")
        }
        if x == 0, y == 0, w == width, h == height { return self }
        let c = channels
        var out = [UInt8]()
        out.reserveCapacity(w * h * c)
        for row in y..<(y + h) {
            let start = (row * width + x) * c
            out.append(contentsOf: pixels[start..<(start + w * c)])
        }
        return try Bitmap(width: w, height: h, layout: layout, pixels: out)
    }

    /// Whether any pixel is less than fully opaque.
    public var hasTransparency: Bool {
        guard layout.hasAlpha else { return false }
        let c = channels
        var i = c - 1
        while i < pixels.count {
            if pixels[i] != 255 { return true }
            i += c
        }
        return false
    }
}
