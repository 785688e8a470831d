/// The inverse transforms of VP8L (lossless specification section 4), applied in place to
/// ARGB pixels (0xAARRGGBB) in the reverse of the order they were read.
enum VP8LTransforms {
    /// One transform as read from the stream; `width` is the image width it applies to.
    struct Transform {
        enum Kind: UInt32 { case predictor = 0, colour = 1, subtractGreen = 2, colourIndexing = 3 }
        let kind: Kind
        /// Block-size bits (predictor, colour) or pixel-bundling bits (colour indexing).
        let bits: Int
        /// Width of the image before this transform was undone (for colour indexing: the full,
        /// unbundled width).
        let width: Int
        /// Sub-image of modes / multipliers, or the palette padded to 256 entries.
        let data: [UInt32]
    }

    @inline(__always) static func add(_ a: UInt32, _ b: UInt32) -> UInt32 {
        (((a & 0xFF00FF00) &+ (b & 0xFF00FF00)) & 0xFF00FF00) | (((a & 0x00FF00FF) &+ (b & 0x00FF00FF)) & 0x00FF00FF)
    }

    @inline(__always) private static func average(_ a: UInt32, _ b: UInt32) -> UInt32 {
        (((a ^ b) & 0xFEFEFEFE) >> 1) &+ (a & b)
    }

    @inline(__always) private static func channel(_ v: UInt32, _ shift: UInt32) -> Int32 { Int32((v >> shift) & 0xFF) }

    @inline(__always) private static func select(top: UInt32, left: UInt32, topLeft: UInt32) -> UInt32 {
        var difference: Int32 = 0
        for shift: UInt32 in [24, 16, 8, 0] {
            let t = channel(top, shift), l = channel(left, shift), c = channel(topLeft, shift)
            difference &+= Swift.abs(l &- c) &- Swift.abs(t &- c)
        }
        return difference <= 0 ? top : left
    }

    @inline(__always) private static func clampByte(_ v: Int32) -> UInt32 { v < 0 ? 0 : (v > 255 ? 255 : UInt32(v)) }

    @inline(__always) private static func clampAddSubtractFull(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt32 {
        var out: UInt32 = 0
        for shift: UInt32 in [24, 16, 8, 0] {
            out |= clampByte(channel(a, shift) &+ channel(b, shift) &- channel(c, shift)) << shift
        }
        return out
    }

    @inline(__always) private static func clampAddSubtractHalf(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var out: UInt32 = 0
        for shift: UInt32 in [24, 16, 8, 0] {
            let x = channel(a, shift), y = channel(b, shift)
            out |= clampByte(x &+ (x &- y) / 2) << shift
        }
        return out
    }

    @inline(__always)
    private static func predict(_ mode: UInt32, left: UInt32, top: UnsafePointer<UInt32>) -> UInt32 {
        switch mode {
        case 1: return left
        case 2: return top[0]
        case 3: return top[1]
        case 4: return top[-1]
        case 5: return average(average(left, top[1]), top[0])
        case 6: return average(left, top[-1])
        case 7: return average(left, top[0])
        case 8: return average(top[-1], top[0])
        case 9: return average(top[0], top[1])
        case 10: return average(average(left, top[-1]), average(top[0], top[1]))
        case 11: return select(top: top[0], left: left, topLeft: top[-1])
        case 12: return clampAddSubtractFull(left, top[0], top[-1])
        case 13: return clampAddSubtractHalf(average(left, top[0]), top[-1])
        default: return 0xFF00_0000  // 0, and the unused 14 and 15
        }
    }

    /// Undoes `transform` on `height` rows of `pixels`.
    static func undo(_ transform: Transform, _ pixels: UnsafeMutablePointer<UInt32>, height: Int) {
        let width = transform.width
        transform.data.withUnsafeBufferPointer { dataBuffer in
            let data = dataBuffer.baseAddress!
            switch transform.kind {
            case .predictor:
                let blocksPerRow = (width + (1 << transform.bits) - 1) >> transform.bits
                pixels[0] = add(pixels[0], 0xFF00_0000)
                for x in 1..<max(width, 1) { pixels[x] = add(pixels[x], pixels[x &- 1]) }
                for y in 1..<max(height, 1) {
                    let row = pixels + y &* width
                    row[0] = add(row[0], row[-width])
                    let modes = data + (y >> transform.bits) &* blocksPerRow
                    var x = 1
                    while x < width {
                        let mode = (modes[x >> transform.bits] >> 8) & 0xF
                        let blockEnd = min(((x >> transform.bits) &+ 1) << transform.bits, width)
                        while x < blockEnd {
                            row[x] = add(row[x], predict(mode, left: row[x &- 1], top: row + (x &- width)))
                            x &+= 1
                        }
                    }
                }
            case .colour:
                let blocksPerRow = (width + (1 << transform.bits) - 1) >> transform.bits
                for y in 0..<height {
                    let row = pixels + y &* width
                    let codes = data + (y >> transform.bits) &* blocksPerRow
                    for x in 0..<width {
                        let code = codes[x >> transform.bits]
                        let greenToRed = Int32(Int8(truncatingIfNeeded: code))
                        let greenToBlue = Int32(Int8(truncatingIfNeeded: code >> 8))
                        let redToBlue = Int32(Int8(truncatingIfNeeded: code >> 16))
                        let argb = row[x]
                        let green = Int32(Int8(truncatingIfNeeded: argb >> 8))
                        var red = Int32((argb >> 16) & 0xFF)
                        var blue = Int32(argb & 0xFF)
                        red = (red &+ ((greenToRed &* green) >> 5)) & 0xFF
                        blue = blue &+ ((greenToBlue &* green) >> 5)
                        blue = (blue &+ ((redToBlue &* Int32(Int8(truncatingIfNeeded: red))) >> 5)) & 0xFF
                        row[x] = (argb & 0xFF00_FF00) | UInt32(red) << 16 | UInt32(blue)
                    }
                }
            case .subtractGreen:
                for i in 0..<(width &* height) {
                    let argb = pixels[i]
                    let green = (argb >> 8) & 0xFF
                    let redBlue = ((argb & 0x00FF_00FF) &+ (green << 16 | green)) & 0x00FF_00FF
                    pixels[i] = (argb & 0xFF00_FF00) | redBlue
                }
            case .colourIndexing:
                // Rows are expanded from the last one backwards, each from its end, so the
                // packed pixels still to be read are never overwritten (packed width ≤ width).
                let bits = transform.bits
                let packedWidth = (width + (1 << bits) - 1) >> bits
                let bitsPerIndex = 8 >> bits
                let indexMask = UInt32((1 << bitsPerIndex) - 1)
                let perPixelMask = (1 << bits) - 1
                var y = height - 1
                while y >= 0 {
                    let packed = pixels + y &* packedWidth
                    let row = pixels + y &* width
                    var x = width - 1
                    while x >= 0 {
                        let green = (packed[x >> bits] >> 8) & 0xFF
                        let index = (green >> UInt32((x & perPixelMask) &* bitsPerIndex)) & indexMask
                        row[x] = data[Int(index)]
                        x -= 1
                    }
                    y -= 1
                }
            }
        }
    }
}
