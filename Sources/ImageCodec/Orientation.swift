/// The eight EXIF orientations (TIFF tag 0x0112) and the transform that shows an image upright.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1
    case mirrored = 2
    case rotated180 = 3
    case mirroredVertically = 4
    case transposed = 5
    case rotatedClockwise = 6
    case transversed = 7
    case rotatedCounterClockwise = 8

    /// Any value outside 1...8 reads as `.up`, as viewers do.
    public init(exifValue: Int) {
        self = Orientation(rawValue: exifValue) ?? .up
    }

    /// Whether the displayed image is the stored one turned on its side.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The upright image. For each output pixel (x, y) it reads the stored pixel named in
    /// docs/jpeg-decoding.md "EXIF orientation", so mirrors and rotations share one loop.
    public func apply(to bitmap: Bitmap) -> Bitmap {
        if self == .up { return bitmap }
        let w = bitmap.width, h = bitmap.height, c = bitmap.channels
        let ow = swapsAxes ? h : w
        let oh = swapsAxes ? w : h
        var out = [UInt8](repeating: 0, count: bitmap.pixels.count)
        let o = self
        bitmap.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                var di = 0
                for y in 0..<oh {
                    for x in 0..<ow {
                        let sx: Int, sy: Int
                        switch o {
                        case .up: sx = x; sy = y
                        case .mirrored: sx = w - 1 - x; sy = y
                        case .rotated180: sx = w - 1 - x; sy = h - 1 - y
                        case .mirroredVertically: sx = x; sy = h - 1 - y
                        case .transposed: sx = y; sy = x
                        case .rotatedClockwise: sx = y; sy = h - 1 - x
                        case .transversed: sx = w - 1 - y; sy = h - 1 - x
                        case .rotatedCounterClockwise: sx = w - 1 - y; sy = x
                        }
                        let si = (sy &* w &+ sx) &* c
                        for k in 0..<c { dst[di &+ k] = src[si &+ k] }
                        di &+= c
                    }
                }
            }
        }
        // Same byte count as the input, which was valid.
        return try! Bitmap(width: ow, height: oh, layout: bitmap.layout, pixels: out)
    }
}
