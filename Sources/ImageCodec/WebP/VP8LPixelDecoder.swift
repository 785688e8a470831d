/// The entropy-coded pixel loop of VP8L (lossless specification 5.2): literals, LZ77 backward
/// references with the 2-D distance map, and colour-cache hits, each pixel read with the
/// prefix-code group its meta-image block selects.
enum VP8LPixelDecoder {
    /// Length or distance from a prefix symbol and its extra bits.
    @inline(__always)
    private static func prefixValue(_ symbol: Int, _ r: inout VP8LBitReader) -> Int {
        if symbol < 4 { return symbol + 1 }
        let extraBits = (symbol - 2) >> 1
        let offset = (2 + (symbol & 1)) << extraBits
        return offset + Int(r.read(extraBits)) + 1
    }

    static func run(_ r: inout VP8LBitReader, pixels: inout [UInt32], width: Int, height: Int, cacheBits: Int,
                    metaBits: Int, metaImage: [UInt32], groupOf: [Int32], tables: [UInt32], offsets: [Int]) throws {
        let total = width * height
        let metaWidth = metaBits > 0 ? (width + (1 << metaBits) - 1) >> metaBits : 0
        let mask = metaBits > 0 ? (1 << metaBits) - 1 : -1
        let cacheSize = cacheBits > 0 ? 1 << cacheBits : 0
        var cache = [UInt32](repeating: 0, count: max(cacheSize, 1))
        let cacheShift = UInt32(32 - cacheBits)
        try pixels.withUnsafeMutableBufferPointer { outBuffer in
            try tables.withUnsafeBufferPointer { tableBuffer in
                try cache.withUnsafeMutableBufferPointer { cacheBuffer in
                    let out = outBuffer.baseAddress!, t = tableBuffer.baseAddress!, c = cacheBuffer.baseAddress!
                    var green = t, red = t, blue = t, alpha = t, distance = t
                    func selectGroup(_ x: Int, _ y: Int) {
                        var g = 0
                        if metaBits > 0 { g = Int(groupOf[Int(metaImage[(y >> metaBits) * metaWidth + (x >> metaBits)])]) }
                        green = t + offsets[g * 5]; red = t + offsets[g * 5 + 1]; blue = t + offsets[g * 5 + 2]
                        alpha = t + offsets[g * 5 + 3]; distance = t + offsets[g * 5 + 4]
                    }
                    @inline(__always) func remember(_ argb: UInt32) {
                        if cacheBits > 0 { c[Int((argb &* 0x1E35_A7BD) >> cacheShift)] = argb }
                    }
                    var x = 0, y = 0, position = 0
                    selectGroup(0, 0)
                    while position < total {
                        if x & mask == 0 { selectGroup(x, y) }
                        let symbol = VP8LHuffmanCode.decode(&r, green)
                        if symbol < 256 {
                            let rr = UInt32(VP8LHuffmanCode.decode(&r, red))
                            let bb = UInt32(VP8LHuffmanCode.decode(&r, blue))
                            let aa = UInt32(VP8LHuffmanCode.decode(&r, alpha))
                            let argb = aa << 24 | rr << 16 | UInt32(symbol) << 8 | bb
                            out[position] = argb
                            remember(argb)
                            position &+= 1
                            x &+= 1
                            if x == width { x = 0; y &+= 1 }
                        } else if symbol < 280 {
                            let length = prefixValue(symbol - 256, &r)
                            let code = prefixValue(VP8LHuffmanCode.decode(&r, distance), &r)
                            var dist: Int
                            if code > 120 {
                                dist = code - 120
                            } else {
                                let d = Int(WebPTables.distanceMap[code - 1])
                                dist = (d >> 4) * width + 8 - (d & 0xF)
                                if dist < 1 { dist = 1 }
                            }
                            guard dist <= position, length <= total - position else {
                                throw ImageCodecError(.corrupt, "VP8L backward reference leaves the image")
                            }
                            for k in 0..<length {
                                let argb = out[position &+ k &- dist]
                                out[position &+ k] = argb
                                remember(argb)
                            }
                            position &+= length
                            x &+= length
                            while x >= width { x &-= width; y &+= 1 }
                            if position < total { selectGroup(x, y) }
                        } else {
                            guard cacheBits > 0, symbol - 280 < cacheSize else { throw ImageCodecError(.corrupt, "VP8L colour cache index without a cache") }
                            let argb = c[symbol - 280]
                            out[position] = argb
                            position &+= 1
                            x &+= 1
                            if x == width { x = 0; y &+= 1 }
                        }
                        if r.pastEnd { throw ImageCodecError(.truncated, "VP8L pixel data ends early") }
                    }
                }
            }
        }
    }
}
