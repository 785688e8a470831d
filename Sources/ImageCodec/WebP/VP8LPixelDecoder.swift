/// The entropy-coded pixel loop of VP8L (lossless specification 5.2): literals, LZ77 backward
/// references with the 2-D distance map, and colour-cache hits, each pixel read with the
/// prefix-code group its meta-image block selects.
///
/// Why one function with the reader in a local: the bit window, its count and the byte
/// position belong to a local copy of the reader whose methods all inline (the slow refill is
/// a function of values), so they stay in registers for the whole image. Reading through an
/// `inout` reader kept them in memory and the symbol decoder out of line (391 M of the 977 M
/// instructions of a 2560×1600 photo went to symbols). Nested functions must not capture the
/// mutable state: a capture turned each variable into a heap box.
enum VP8LPixelDecoder {
    /// The five prefix codes of one group as table pointers (`VP8LHuffmanCode` layout), with
    /// libwebp's shortcut for codes that have a single symbol: those take no bits, so their
    /// value is known before the pixel is read.
    struct Group {
        var green, red, blue, alpha, distance: UnsafePointer<UInt32>
        /// Whether the red, blue and alpha codes all have one symbol (a literal is then its
        /// green symbol alone).
        var trivialLiteral: Bool
        /// Whether the alpha code has one symbol (common: an opaque image).
        var trivialAlpha: Bool
        /// The single symbols as `alpha << 24 | red << 16 | blue`, for those codes that have one.
        var literalBits: UInt32

        init(tables: UnsafePointer<UInt32>, offsets: UnsafePointer<Int>) {
            green = tables + offsets[0]; red = tables + offsets[1]; blue = tables + offsets[2]
            alpha = tables + offsets[3]; distance = tables + offsets[4]
            @inline(__always) func single(_ t: UnsafePointer<UInt32>) -> UInt32? {
                // Only a one-symbol code has zero-length root entries.
                t[0] & 0x1FF == 0 ? t[0] >> 16 : nil
            }
            let r = single(red), b = single(blue), a = single(alpha)
            trivialAlpha = a != nil
            trivialLiteral = r != nil && b != nil && a != nil
            literalBits = (a ?? 0) << 24 | (r ?? 0) << 16 | (b ?? 0)
        }
    }

    /// Decodes `width` × `height` pixels into `out`. `groupIndex` gives the group of each
    /// meta-image block (`metaBits` > 0) or is unused (one group).
    static func run(_ reader: inout VP8LBitReader, out: UnsafeMutablePointer<UInt32>, width: Int, height: Int, cacheBits: Int,
                    metaBits: Int, groupIndex: UnsafePointer<Int32>, groups: UnsafePointer<Group>) throws {
        let total = width &* height
        let metaWidth = metaBits > 0 ? (width &+ (1 << metaBits) &- 1) >> metaBits : 0
        let mask = metaBits > 0 ? (1 << metaBits) &- 1 : -1
        let cacheSize = cacheBits > 0 ? 1 << cacheBits : 0
        let cache = UnsafeMutablePointer<UInt32>.allocate(capacity: max(cacheSize, 1))
        cache.initialize(repeating: 0, count: max(cacheSize, 1))
        defer { cache.deallocate() }
        let cacheShift = UInt32(32 &- cacheBits)

        // The reader as a local copy whose methods all inline, so its fields live in registers
        // (see the type's comment); written back at the end.
        var br = reader
        defer { reader = br }

        /// Length or distance from a prefix symbol and its extra bits.
        @inline(__always) func prefixValue(_ symbol: Int, _ br: inout VP8LBitReader) -> Int {
            if symbol < 4 { return symbol &+ 1 }
            let extraBits = (symbol &- 2) >> 1
            let offset = (2 &+ (symbol & 1)) &<< extraBits
            return offset &+ br.bits(extraBits) &+ 1
        }
        @inline(__always) func groupAt(_ x: Int, _ y: Int) -> Group {
            groups[Int(groupIndex[(y &>> metaBits) &* metaWidth &+ (x &>> metaBits)])]
        }

        var group = groups[0]
        var x = 0, y = 0, index = 0
        while index < total {
            if x & mask == 0 && metaBits > 0 { group = groupAt(x, y) }
            br.refill()
            let symbol = br.decode(group.green)
            if symbol < 256 {
                var argb = UInt32(truncatingIfNeeded: symbol) << 8 | group.literalBits
                if !group.trivialLiteral {
                    argb |= UInt32(truncatingIfNeeded: br.decode(group.red)) << 16
                    br.refill()
                    argb |= UInt32(truncatingIfNeeded: br.decode(group.blue))
                    if !group.trivialAlpha { argb |= UInt32(truncatingIfNeeded: br.decode(group.alpha)) << 24 }
                }
                out[index] = argb
                if cacheBits > 0 { cache[Int(truncatingIfNeeded: (argb &* 0x1E35_A7BD) &>> cacheShift)] = argb }
                index &+= 1
                x &+= 1
                if x == width {
                    x = 0
                    y &+= 1
                    if br.pastEnd { break }
                }
            } else if symbol < 280 {
                let length = prefixValue(symbol &- 256, &br)
                br.refill()
                let code = prefixValue(br.decode(group.distance), &br)
                var dist: Int
                if code > 120 {
                    dist = code &- 120
                } else {
                    let d = Int(WebPTables.distanceMap[code &- 1])
                    dist = (d >> 4) &* width &+ 8 &- (d & 0xF)
                    if dist < 1 { dist = 1 }
                }
                guard dist <= index, length <= total &- index else {
                    if br.pastEnd { throw ImageCodecError(.truncated, "VP8L pixel data ends early") }
                    throw ImageCodecError(.corrupt, "VP8L backward reference leaves the image")
                }
                copy(out + index, distance: dist, count: length)
                if cacheBits > 0 {
                    for k in 0..<length {
                        let argb = out[index &+ k]
                        cache[Int(truncatingIfNeeded: (argb &* 0x1E35_A7BD) &>> cacheShift)] = argb
                    }
                }
                index &+= length
                x &+= length
                while x >= width { x &-= width; y &+= 1 }
                if br.pastEnd { break }
                if index < total && metaBits > 0 { group = groupAt(x, y) }
            } else {
                guard symbol &- 280 < cacheSize else {
                    if br.pastEnd { throw ImageCodecError(.truncated, "VP8L pixel data ends early") }
                    throw ImageCodecError(.corrupt, "VP8L colour cache index without a cache")
                }
                out[index] = cache[symbol &- 280]
                index &+= 1
                x &+= 1
                if x == width {
                    x = 0
                    y &+= 1
                    if br.pastEnd { break }
                }
            }
        }
        if br.pastEnd { throw ImageCodecError(.truncated, "VP8L pixel data ends early") }
    }

    /// Copies `count` pixels from `distance` back to `dst`, as many at a step as the distance
    /// allows: a step may only read pixels written before it (a near source repeats a pattern).
    @inline(__always)
    private static func copy(_ dst: UnsafeMutablePointer<UInt32>, distance: Int, count: Int) {
        let src = UnsafePointer(dst - distance)
        if distance >= 4 {
            var k = 0
            while k &+ 4 <= count {
                UnsafeMutableRawPointer(dst + k).storeBytes(of: UnsafeRawPointer(src + k).loadUnaligned(as: SIMD4<UInt32>.self),
                                                            as: SIMD4<UInt32>.self)
                k &+= 4
            }
            while k < count { dst[k] = src[k]; k &+= 1 }
        } else if distance >= 2 {
            var k = 0
            while k &+ 2 <= count {
                UnsafeMutableRawPointer(dst + k).storeBytes(of: UnsafeRawPointer(src + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
                k &+= 2
            }
            if k < count { dst[k] = src[k] }
        } else {
            let pixel = src[0]
            for k in 0..<count { dst[k] = pixel }
        }
    }
}
