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

    /// A pixel's four bytes in the low lanes of a vector register (the other lanes are 0).
    @inline(__always) private static func bytes(_ v: UInt32) -> SIMD16<UInt8> {
        unsafeBitCast(SIMD4<UInt32>(v, 0, 0, 0), to: SIMD16<UInt8>.self)
    }
    @inline(__always) private static func word(_ v: SIMD16<UInt8>) -> UInt32 { unsafeBitCast(v, to: SIMD4<UInt32>.self)[0] }

    /// Per-byte sum modulo 256 (one `paddb`).
    @inline(__always) static func add(_ a: UInt32, _ b: UInt32) -> UInt32 { word(bytes(a) &+ bytes(b)) }

    @inline(__always) private static func average(_ a: UInt32, _ b: UInt32) -> UInt32 {
        (((a ^ b) & 0xFEFEFEFE) >> 1) &+ (a & b)
    }

    /// 16-bit lanes of the bytes of two pixels (`low` in lanes 0-3, `high` in 4-7, blue first).
    private typealias Channels = SIMD8<Int16>
    @inline(__always) private static func channels(_ low: UInt32, _ high: UInt32) -> Channels {
        Channels(widening: unsafeBitCast(UInt64(low) | UInt64(high) &<< 32, to: SIMD8<UInt8>.self))
    }
    /// Lanes 0-3, clamped to 0...255 (shift masks), as a pixel.
    @inline(__always) private static func clampedPixel(_ v: Channels) -> UInt32 {
        let x = v & ~(v &>> 15)
        let over = (Channels(repeating: 255) &- x) &>> 15
        let clamped = (x & ~over) | (Channels(repeating: 255) & over)
        return UInt32(truncatingIfNeeded: unsafeBitCast(SIMD8<UInt8>(narrowing: clamped), to: UInt64.self))
    }
    /// The sum of the four 16-bit fields of `v` (each at most 255 here).
    @inline(__always) private static func fieldSum(_ v: UInt64) -> Int {
        let pairs = (v & 0x0000_FFFF_0000_FFFF) &+ ((v &>> 16) & 0x0000_FFFF_0000_FFFF)
        return Int(truncatingIfNeeded: (pairs & 0xFFFF_FFFF) &+ (pairs &>> 32))
    }

    @inline(__always) private static func select(top: UInt32, left: UInt32, topLeft: UInt32) -> UInt32 {
        // Σ |left − topLeft| − |top − topLeft| over the four channels, both sums on one set of
        // lanes: left's channels in 0-3, top's in 4-7.
        let d = channels(left, top) &- channels(topLeft, topLeft)
        let sign = d &>> 15
        let distances = unsafeBitCast((d ^ sign) &- sign, to: SIMD2<UInt64>.self)
        return fieldSum(distances[0]) &- fieldSum(distances[1]) <= 0 ? top : left
    }

    @inline(__always) private static func clampAddSubtractFull(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt32 {
        clampedPixel(channels(a, 0) &+ channels(b, 0) &- channels(c, 0))
    }

    @inline(__always) private static func clampAddSubtractHalf(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let x = channels(a, 0), d = x &- channels(b, 0)
        // d / 2 rounded toward zero, as C's division (libwebp AddSubtractComponentHalf).
        return clampedPixel(x &+ ((d &- (d &>> 15)) &>> 1))
    }

    /// Adds predictor `mode` to the `count` pixels at `row` (`row[-1]` is the left neighbour,
    /// `row[i - width]` the one above). One loop per mode, so the mode is chosen once per block
    /// run rather than once per pixel.
    @inline(__always)
    private static func predictRun(_ mode: UInt32, _ row: UnsafeMutablePointer<UInt32>, count: Int, width: Int) {
        let top = UnsafePointer(row - width)
        @inline(__always) func run(_ predict: (UInt32, Int) -> UInt32) {
            var left = row[-1]
            for i in 0..<count {
                left = add(row[i], predict(left, i))
                row[i] = left
            }
        }
        /// Modes that read only the row above: four pixels at a time (their predictions do not
        /// depend on the pixels being decoded), bytes added on lanes.
        @inline(__always) func runAbove(_ predict4: (Int) -> SIMD4<UInt32>, _ predict: (Int) -> UInt32) {
            var i = 0
            while i &+ 4 <= count {
                let residual = UnsafeRawPointer(row + i).loadUnaligned(as: SIMD16<UInt8>.self)
                let sum = residual &+ unsafeBitCast(predict4(i), to: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(row + i).storeBytes(of: sum, as: SIMD16<UInt8>.self)
                i &+= 4
            }
            while i < count {
                row[i] = add(row[i], predict(i))
                i &+= 1
            }
        }
        @inline(__always) func above4(_ i: Int) -> SIMD4<UInt32> { UnsafeRawPointer(top + i).loadUnaligned(as: SIMD4<UInt32>.self) }
        @inline(__always) func average4(_ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>) -> SIMD4<UInt32> {
            (((a ^ b) & 0xFEFE_FEFE) &>> 1) &+ (a & b)
        }
        switch mode {
        case 1: run { left, _ in left }
        case 2: runAbove({ above4($0) }, { top[$0] })
        case 3: runAbove({ above4($0 &+ 1) }, { top[$0 &+ 1] })
        case 4: runAbove({ above4($0 &- 1) }, { top[$0 &- 1] })
        case 5: run { left, i in average(average(left, top[i &+ 1]), top[i]) }
        case 6: run { left, i in average(left, top[i &- 1]) }
        case 7: run { left, i in average(left, top[i]) }
        case 8: runAbove({ average4(above4($0 &- 1), above4($0)) }, { average(top[$0 &- 1], top[$0]) })
        case 9: runAbove({ average4(above4($0), above4($0 &+ 1)) }, { average(top[$0], top[$0 &+ 1]) })
        case 10: run { left, i in average(average(left, top[i &- 1]), average(top[i], top[i &+ 1])) }
        case 11: run { left, i in select(top: top[i], left: left, topLeft: top[i &- 1]) }
        case 12: run { left, i in clampAddSubtractFull(left, top[i], top[i &- 1]) }
        case 13: run { left, i in clampAddSubtractHalf(average(left, top[i]), top[i &- 1]) }
        default: runAbove({ _ in SIMD4(repeating: 0xFF00_0000) }, { _ in 0xFF00_0000 })  // 0, and the unused 14 and 15
        }
    }

    /// The colour transform's inverse on one pixel: `code` holds the green-to-red (byte 0),
    /// green-to-blue (byte 1) and red-to-blue (byte 2) multipliers as signed bytes.
    @inline(__always)
    private static func undoColour(_ argb: UInt32, _ code: UInt32) -> UInt32 {
        let greenToRed = Int32(Int8(truncatingIfNeeded: code))
        let greenToBlue = Int32(Int8(truncatingIfNeeded: code >> 8))
        let redToBlue = Int32(Int8(truncatingIfNeeded: code >> 16))
        let green = Int32(Int8(truncatingIfNeeded: argb >> 8))
        var red = Int32((argb >> 16) & 0xFF)
        var blue = Int32(argb & 0xFF)
        red = (red &+ ((greenToRed &* green) >> 5)) & 0xFF
        blue = blue &+ ((greenToBlue &* green) >> 5)
        blue = (blue &+ ((redToBlue &* Int32(Int8(truncatingIfNeeded: red))) >> 5)) & 0xFF
        return (argb & 0xFF00_FF00) | UInt32(red) << 16 | UInt32(blue)
    }

    /// `undoColour` on eight pixels with one code, on 16-bit lanes: every product of two
    /// signed bytes fits (|−128 · −128| = 2¹⁴), so the multiplies are `pmullw`.
    @inline(__always)
    private static func undoColour8(_ p: UnsafeMutablePointer<UInt32>, _ code: UInt32) {
        typealias L = SIMD8<Int16>
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt32>.self)
        @inline(__always) func lanes(_ shift: UInt32) -> L {
            L(Int16(truncatingIfNeeded: (v[0] >> shift) & 0xFF), Int16(truncatingIfNeeded: (v[1] >> shift) & 0xFF),
              Int16(truncatingIfNeeded: (v[2] >> shift) & 0xFF), Int16(truncatingIfNeeded: (v[3] >> shift) & 0xFF),
              Int16(truncatingIfNeeded: (v[4] >> shift) & 0xFF), Int16(truncatingIfNeeded: (v[5] >> shift) & 0xFF),
              Int16(truncatingIfNeeded: (v[6] >> shift) & 0xFF), Int16(truncatingIfNeeded: (v[7] >> shift) & 0xFF))
        }
        @inline(__always) func signed(_ byte: L) -> L { (byte &<< 8) &>> 8 }
        let greenToRed = L(repeating: Int16(Int8(truncatingIfNeeded: code)))
        let greenToBlue = L(repeating: Int16(Int8(truncatingIfNeeded: code >> 8)))
        let redToBlue = L(repeating: Int16(Int8(truncatingIfNeeded: code >> 16)))
        let green = signed(lanes(8))
        let red = (lanes(16) &+ ((greenToRed &* green) &>> 5)) & 0xFF
        let blue = (lanes(0) &+ ((greenToBlue &* green) &>> 5) &+ ((redToBlue &* signed(red)) &>> 5)) & 0xFF
        @inline(__always) func word(_ i: Int) -> UInt32 {
            (v[i] & 0xFF00_FF00) | UInt32(truncatingIfNeeded: red[i]) << 16 | UInt32(truncatingIfNeeded: blue[i])
        }
        let out = SIMD8<UInt32>(word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
        UnsafeMutableRawPointer(p).storeBytes(of: out, as: SIMD8<UInt32>.self)
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
                        predictRun(mode, row + x, count: blockEnd &- x, width: width)
                        x = blockEnd
                    }
                }
            case .colour:
                let blocksPerRow = (width + (1 << transform.bits) - 1) >> transform.bits
                for y in 0..<height {
                    let row = pixels + y &* width
                    let codes = data + (y >> transform.bits) &* blocksPerRow
                    var x = 0
                    while x < width {
                        let code = codes[x >> transform.bits]
                        let blockEnd = min(((x >> transform.bits) &+ 1) << transform.bits, width)
                        while blockEnd &- x >= 8 {
                            undoColour8(row + x, code)
                            x &+= 8
                        }
                        while x < blockEnd {
                            row[x] = undoColour(row[x], code)
                            x &+= 1
                        }
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
