/// Turns rows of decompressed TIFF samples into 8-bit output pixels: undoes the horizontal
/// predictor, interleaves planar samples, reduces 16-bit samples to their high byte and
/// unpacks 1-, 2- and 4-bit ones, then maps the photometric interpretation to gray or RGB
/// with alpha (associated alpha is divided out, as Pillow does, so the output is straight).
///
/// CMYK without a colour transform uses Pillow's naive formula ((255 − C)(255 − K)/255),
/// with one (`cmyk`, built from the image's ICC profile) the device link the JPEG CMYK path
/// uses. All per-row scratch is allocated once per decode.
final class TIFFPixelConverter {
    let layout: TIFFImageLayout
    let little: Bool
    private let cmyk: ColourTransform?
    /// Interleaved samples of one row (planar images), at the stored sample size.
    private let chunky: UnsafeMutablePointer<UInt8>
    /// One row of 8-bit samples (16-bit and sub-byte images).
    private let eight: UnsafeMutablePointer<UInt8>
    /// Four planes of one row for the CMYK transform.
    private let planes: UnsafeMutablePointer<UInt8>
    private let grayScale: [UInt8]

    /// Whether decompressed rows already are output rows (8-bit chunky gray or RGB without
    /// alpha or extra samples), so that strips can be decompressed straight into the output.
    var isIdentity: Bool {
        layout.bitsPerSample == 8 && layout.planar == 1 && layout.alpha == .none && cmyk == nil &&
            ((layout.colour == .minIsBlack && layout.samplesPerPixel == 1) || (layout.colour == .rgb && layout.samplesPerPixel == 3))
    }

    /// Bytes of scratch `init` allocates.
    static func scratchBytes(_ l: TIFFImageLayout) -> Int {
        let samples = l.blockWidth * l.samplesPerPixel
        return samples * (l.bitsPerSample == 16 ? 2 : 1) + samples + l.blockWidth * 4
    }

    init(_ layout: TIFFImageLayout, little: Bool, cmyk: ColourTransform?) {
        self.layout = layout
        self.little = little
        self.cmyk = layout.colour == .cmyk && cmyk?.convertsCMYK == true ? cmyk : nil
        let samples = layout.blockWidth * layout.samplesPerPixel
        chunky = .allocate(capacity: max(1, samples * (layout.bitsPerSample == 16 ? 2 : 1)))
        eight = .allocate(capacity: max(1, samples))
        planes = .allocate(capacity: layout.blockWidth * 4)
        let top = (1 << min(layout.bitsPerSample, 8)) - 1
        grayScale = (0...top).map { UInt8(($0 * 255 + top / 2) / top) }
    }

    deinit {
        chunky.deallocate()
        eight.deallocate()
        planes.deallocate()
    }

    /// Undoes predictor 2 on every row of a decompressed block (`samples` per pixel in it),
    /// whose rows are `stride` bytes apart (the block's row size unless it sits in the output).
    func undoPredictor(_ block: UnsafeMutablePointer<UInt8>, rows: Int, samples: Int, stride: Int? = nil) {
        guard layout.predictor == 2 else { return }
        let perRow = layout.blockWidth &* samples
        for r in 0..<rows {
            let row = block + r &* (stride ?? layout.blockRowBytes)
            if layout.bitsPerSample == 8 && samples == 3 {
                // Running sums in registers: no store-to-load chain through memory.
                var r = row[0], g = row[1], b = row[2]
                var p = row + 3
                for _ in 1..<layout.blockWidth {
                    r &+= p[0]; g &+= p[1]; b &+= p[2]
                    p[0] = r; p[1] = g; p[2] = b
                    p += 3
                }
            } else if layout.bitsPerSample == 8 {
                var i = samples
                while i < perRow { row[i] &+= row[i &- samples]; i &+= 1 }
            } else {
                let hi = little ? 1 : 0, lo = 1 &- hi
                var i = samples
                while i < perRow {
                    let p = row + i &* 2, q = row + (i &- samples) &* 2
                    let v = (UInt16(p[hi]) << 8 | UInt16(p[lo])) &+ (UInt16(q[hi]) << 8 | UInt16(q[lo]))
                    p[hi] = UInt8(truncatingIfNeeded: v >> 8); p[lo] = UInt8(truncatingIfNeeded: v)
                    i &+= 1
                }
            }
        }
    }

    /// Converts `count` pixels of block row `r` (`planeBlocks`: one block, or one per sample
    /// for planar images) into output pixels at `dst`.
    func convert(row r: Int, of planeBlocks: [UnsafeMutablePointer<UInt8>], count: Int, into dst: UnsafeMutablePointer<UInt8>) {
        let spp = layout.samplesPerPixel, bits = layout.bitsPerSample
        var src = UnsafePointer(planeBlocks[0] + r &* layout.blockRowBytes)
        if planeBlocks.count > 1 {
            let size = bits == 16 ? 2 : 1
            for (s, plane) in planeBlocks.enumerated() {
                let p = plane + r &* layout.blockRowBytes
                for x in 0..<count {
                    let d = chunky + (x &* spp &+ s) &* size
                    d[0] = p[x &* size]
                    if size == 2 { d[1] = p[x &* 2 &+ 1] }
                }
            }
            src = UnsafePointer(chunky)
        }
        if bits == 16 {
            let hi = little ? 1 : 0
            for i in 0..<(count &* spp) { eight[i] = src[i &* 2 &+ hi] }
            src = UnsafePointer(eight)
        } else if bits < 8 {
            let perByte = 8 / bits, mask = (1 << bits) &- 1
            let scaleGray = layout.colour != .palette
            grayScale.withUnsafeBufferPointer { scale in
                for i in 0..<(count &* spp) {
                    let shift = 8 &- bits &* (i % perByte &+ 1)
                    let v = Int(src[i / perByte] >> UInt8(shift)) & mask
                    eight[i] = scaleGray ? scale[v] : UInt8(truncatingIfNeeded: v)
                }
            }
            src = UnsafePointer(eight)
        }
        map(src, count: count, into: dst)
    }

    /// Photometric mapping of 8-bit chunky samples.
    private func map(_ s: UnsafePointer<UInt8>, count: Int, into d: UnsafeMutablePointer<UInt8>) {
        let spp = layout.samplesPerPixel
        let alphaAt = layout.colourSamples
        let premultiplied = layout.alpha == .associated
        switch layout.colour {
        case .minIsBlack, .minIsWhite:
            let invert: UInt8 = layout.colour == .minIsWhite ? 255 : 0
            if layout.alpha == .none {
                for x in 0..<count { d[x] = s[x &* spp] ^ invert }
            } else {
                for x in 0..<count {
                    let a = s[x &* spp &+ alphaAt]
                    d[x &* 2] = Self.straight(s[x &* spp] ^ invert, a, premultiplied)
                    d[x &* 2 &+ 1] = a
                }
            }
        case .palette:
            let n = 1 << layout.bitsPerSample
            layout.colourMap.withUnsafeBufferPointer { map in
                for x in 0..<count {
                    let i = Int(s[x &* spp])
                    d[x &* 3] = map[i]; d[x &* 3 &+ 1] = map[n &+ i]; d[x &* 3 &+ 2] = map[2 &* n &+ i]
                }
            }
        case .rgb, .ycbcrJPEG:
            if layout.alpha == .none {
                if spp == 3 {
                    d.update(from: s, count: count &* 3)
                } else {
                    for x in 0..<count { let p = s + x &* spp, q = d + x &* 3; q[0] = p[0]; q[1] = p[1]; q[2] = p[2] }
                }
            } else {
                for x in 0..<count {
                    let p = s + x &* spp, q = d + x &* 4
                    let a = p[alphaAt]
                    q[0] = Self.straight(p[0], a, premultiplied); q[1] = Self.straight(p[1], a, premultiplied)
                    q[2] = Self.straight(p[2], a, premultiplied); q[3] = a
                }
            }
        case .cmyk:
            let c = layout.alpha == .none ? 3 : 4
            if let cmyk {
                for x in 0..<count {
                    for k in 0..<4 { planes[k &* layout.blockWidth &+ x] = s[x &* spp &+ k] }
                }
                let w = layout.blockWidth
                if c == 3 {
                    cmyk.convertCMYK(c: planes, m: planes + w, y: planes + 2 &* w, k: planes + 3 &* w, count: count, inverted: false, d)
                } else {
                    // The link writes RGB triples; spread them into RGBA from the end backwards.
                    cmyk.convertCMYK(c: planes, m: planes + w, y: planes + 2 &* w, k: planes + 3 &* w, count: count, inverted: false, d)
                    var x = count &- 1
                    while x >= 0 {
                        let q = d + x &* 4, p = d + x &* 3
                        let r = p[0], g = p[1], b = p[2]
                        q[0] = r; q[1] = g; q[2] = b; q[3] = s[x &* spp &+ 4]
                        x &-= 1
                    }
                }
                return
            }
            for x in 0..<count {
                let p = s + x &* spp, q = d + x &* c
                let nk = 255 &- Int(p[3])
                for k in 0..<3 { q[k] = UInt8(truncatingIfNeeded: nk &- Self.mulDiv255(Int(p[k]), nk)) }
                if c == 4 { q[3] = p[4] }
            }
        }
    }

    /// a·b/255 rounded, the way Pillow's MULDIV255 computes it.
    @inline(__always)
    static func mulDiv255(_ a: Int, _ b: Int) -> Int {
        let t = a &* b &+ 128
        return ((t >> 8) &+ t) >> 8
    }

    /// A colour sample with alpha divided out when it was premultiplied (Pillow's RGBa unpack).
    @inline(__always)
    static func straight(_ v: UInt8, _ a: UInt8, _ premultiplied: Bool) -> UInt8 {
        guard premultiplied, a != 255 else { return v }
        if a == 0 { return 0 }
        return UInt8(truncatingIfNeeded: min(255, Int(v) &* 255 / Int(a)))
    }
}
