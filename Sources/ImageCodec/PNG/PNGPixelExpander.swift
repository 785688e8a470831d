/// Turns one unfiltered row at native depth into 8-bit pixels of the output layout
/// (docs/png.md "Expansion to 8-bit pixels"): palette lookup, tRNS keys compared on the raw
/// sample, 16-bit samples cut to their high byte, sub-byte gray scaled by 255 / (2^depth − 1).
///
/// The conversion is chosen once per image (`Plan`); each row then runs one tight loop.
struct PNGPixelExpander {
    private enum Plan {
        /// Same bytes in and out (8-bit gray, gray+alpha, RGB, RGBA without tRNS).
        case copy
        /// 16-bit samples of any colour type without tRNS: keep every high byte.
        case highBytes
        /// 1/2/4-bit gray without tRNS.
        case grayLow
        /// Gray at any depth with a tRNS key: gray+alpha.
        case grayKeyed(key: Int)
        /// RGB at 8 or 16 bits with a tRNS key: RGBA.
        case rgbKeyed(r: Int, g: Int, b: Int)
        /// Palette indices at 1/2/4/8 bits: RGB, or RGBA with tRNS.
        case palette
    }

    private let plan: Plan
    private let depth: Int
    private let samplesPerPixel: Int
    /// Palette as 256 entries of 4 bytes (RGBA); only the first `paletteCount` are valid.
    private let table: [UInt8]
    private let paletteCount: Int
    private let outChannels: Int

    init(_ s: PNGStructure) {
        let h = s.header
        depth = h.bitDepth
        samplesPerPixel = h.colorType.samples
        outChannels = h.outputLayout(hasTransparencyChunk: s.transparency != nil).channels
        paletteCount = s.paletteCount
        var table = [UInt8](repeating: 255, count: 1024)
        let trns = s.transparency ?? []
        // Keys are compared at the native depth; like libpng, bits above the depth are ignored.
        let keyMask = h.bitDepth == 16 ? 0xFFFF : (1 << h.bitDepth) - 1
        func key(_ i: Int) -> Int { i + 1 < trns.count ? (Int(trns[i]) << 8 | Int(trns[i + 1])) & keyMask : -1 }
        switch h.colorType {
        case .palette:
            for i in 0..<s.paletteCount {
                table[i * 4] = s.palette[i * 3]
                table[i * 4 + 1] = s.palette[i * 3 + 1]
                table[i * 4 + 2] = s.palette[i * 3 + 2]
                if i < trns.count { table[i * 4 + 3] = trns[i] }
            }
            plan = .palette
        case .gray where s.transparency != nil:
            plan = .grayKeyed(key: key(0))
        case .rgb where s.transparency != nil:
            plan = .rgbKeyed(r: key(0), g: key(2), b: key(4))
        default:
            plan = h.bitDepth == 16 ? .highBytes : h.bitDepth < 8 ? .grayLow : .copy
        }
        self.table = table
    }

    /// Whether rows already are output pixels (8-bit, no palette, no tRNS), so a consumer
    /// that only reads them can skip the copy.
    var isIdentity: Bool {
        if case .copy = plan { return true }
        return false
    }

    /// Expands `width` pixels from `src` into `dst` (`width × channels` bytes). Throws only
    /// for a palette index past the end of PLTE.
    func expand(_ src: UnsafePointer<UInt8>, width: Int, into dst: UnsafeMutablePointer<UInt8>) throws {
        switch plan {
        case .copy:
            dst.update(from: src, count: width &* outChannels)
        case .highBytes:
            for i in 0..<(width &* samplesPerPixel) { dst[i] = src[i &<< 1] }
        case .grayLow:
            let scale: UInt8 = depth == 1 ? 255 : depth == 2 ? 85 : 17
            for x in 0..<width { dst[x] = UInt8(truncatingIfNeeded: sample(src, x)) &* scale }
        case .grayKeyed(let key):
            let scale = depth == 16 ? 0 : depth == 8 ? 1 : depth == 4 ? 17 : depth == 2 ? 85 : 255
            for x in 0..<width {
                let v = sample(src, x)
                dst[x &<< 1] = UInt8(truncatingIfNeeded: depth == 16 ? v >> 8 : v &* scale)
                dst[x &<< 1 &+ 1] = v == key ? 0 : 255
            }
        case .rgbKeyed(let kr, let kg, let kb):
            let step = depth == 16 ? 6 : 3
            let wide = depth == 16
            for x in 0..<width {
                let p = src + x &* step
                let r = wide ? Int(p[0]) << 8 | Int(p[1]) : Int(p[0])
                let g = wide ? Int(p[2]) << 8 | Int(p[3]) : Int(p[1])
                let b = wide ? Int(p[4]) << 8 | Int(p[5]) : Int(p[2])
                let q = dst + x &* 4
                q[0] = p[0]
                q[1] = p[wide ? 2 : 1]
                q[2] = p[wide ? 4 : 2]
                q[3] = r == kr && g == kg && b == kb ? 0 : 255
            }
        case .palette:
            try table.withUnsafeBufferPointer { t in
                let base = t.baseAddress!  // 1024 entries, never empty
                let count = paletteCount
                let rgba = outChannels == 4
                for x in 0..<width {
                    let i = depth == 8 ? Int(src[x]) : sample(src, x)
                    guard i < count else {
                        throw ImageCodecError(.corrupt, "PNG palette index \(i) is past the \(count) PLTE entries")
                    }
                    let e = base + i &<< 2
                    if rgba {
                        (dst + x &<< 2).update(from: e, count: 4)
                    } else {
                        let q = dst + x &* 3
                        q[0] = e[0]; q[1] = e[1]; q[2] = e[2]
                    }
                }
            }
        }
    }

    /// Sample `x` of a one-sample-per-pixel row at `depth` (sub-byte samples are MSB first).
    @inline(__always)
    private func sample(_ src: UnsafePointer<UInt8>, _ x: Int) -> Int {
        switch depth {
        case 16: return Int(src[x &<< 1]) << 8 | Int(src[x &<< 1 &+ 1])
        case 8: return Int(src[x])
        default:
            let bit = x &* depth
            let shift = 8 &- depth &- (bit & 7)
            return Int(src[bit >> 3] >> UInt8(truncatingIfNeeded: shift)) & ((1 << depth) &- 1)
        }
    }
}
