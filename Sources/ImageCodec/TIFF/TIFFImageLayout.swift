/// One TIFF image's pixel description, read from its IFD and validated once: size, samples,
/// compression, photometric interpretation, and the blocks (strips or tiles) it is stored in.
/// Everything the decode loops rely on is checked here so they can use wrapping arithmetic.
struct TIFFImageLayout {
    enum Alpha { case none, associated, unassociated }
    enum Colour { case minIsWhite, minIsBlack, rgb, palette, cmyk, ycbcrJPEG }

    let width: Int
    let height: Int
    let bitsPerSample: Int
    let samplesPerPixel: Int
    let compression: Int
    let colour: Colour
    /// 1 chunky, 2 planar (one block set per sample).
    let planar: Int
    /// 1 none, 2 horizontal differencing.
    let predictor: Int
    let alpha: Alpha
    let tiled: Bool
    /// Block size: tile size, or image width × rows per strip.
    let blockWidth: Int
    let blockHeight: Int
    let offsets: [Int]
    let byteCounts: [Int]
    /// Palette: 3 × 2^bits entries, red then green then blue, scaled to 8 bits.
    let colourMap: [UInt8]
    let jpegTables: [UInt8]?

    static let compressionNames = [1: "uncompressed", 5: "LZW", 7: "JPEG", 8: "Deflate", 32946: "Deflate", 32773: "PackBits"]

    var blocksAcross: Int { (width + blockWidth - 1) / blockWidth }
    var blocksDown: Int { (height + blockHeight - 1) / blockHeight }
    /// Samples stored per pixel in one block: all of them (chunky) or one (planar).
    var samplesPerBlockPixel: Int { planar == 1 ? samplesPerPixel : 1 }
    /// Bytes of one decompressed block row (rows start on byte boundaries).
    var blockRowBytes: Int { (blockWidth * samplesPerBlockPixel * bitsPerSample + 7) / 8 }
    var blockBytes: Int { blockRowBytes * blockHeight }
    /// Samples that carry colour: 1 (gray, palette), 3 (RGB) or 4 (CMYK).
    var colourSamples: Int {
        switch colour {
        case .minIsWhite, .minIsBlack, .palette: return 1
        case .rgb, .ycbcrJPEG: return 3
        case .cmyk: return 4
        }
    }
    var layout: Bitmap.Layout {
        let gray = colour == .minIsWhite || colour == .minIsBlack
        switch (gray, alpha != .none) {
        case (true, false): return .gray
        case (true, true): return .grayAlpha
        case (false, false): return .rgb
        case (false, true): return .rgba
        }
    }
    var colourSpaceName: String {
        switch colour {
        case .minIsWhite, .minIsBlack: return alpha == .none ? "Gray" : "GrayAlpha"
        case .rgb, .ycbcrJPEG: return alpha == .none ? "RGB" : "RGBA"
        case .palette: return "Palette"
        case .cmyk: return "CMYK"
        }
    }

    init(_ c: TIFFContainer, _ dir: TIFFDirectory, limits: DecodeLimits) throws {
        guard let w = try c.integer(dir, 256), let h = try c.integer(dir, 257) else {
            throw ImageCodecError(.corrupt, "TIFF image without ImageWidth or ImageLength")
        }
        try limits.check(width: w, height: h)
        width = w
        height = h
        samplesPerPixel = try c.integer(dir, 277) ?? 1
        guard (1...16).contains(samplesPerPixel) else {
            throw ImageCodecError(.unsupported, "TIFF with \(samplesPerPixel) samples per pixel")
        }
        let bits = try c.integers(dir, 258, maxCount: 16) ?? [1]
        guard let b = bits.first, bits.allSatisfy({ $0 == b }), [1, 2, 4, 8, 16].contains(b) else {
            throw ImageCodecError(.unsupported, "TIFF with \(bits) bits per sample")
        }
        bitsPerSample = b
        if let format = try c.integer(dir, 339), format != 1 {
            throw ImageCodecError(.unsupported, "TIFF sample format \(format) (only unsigned integers are decoded)")
        }
        compression = try c.integer(dir, 259) ?? 1
        guard TIFFImageLayout.compressionNames[compression] != nil else {
            throw ImageCodecError(.unsupported, "TIFF compression \(compression)")
        }
        planar = try c.integer(dir, 284) ?? 1
        guard planar == 1 || planar == 2 else { throw ImageCodecError(.corrupt, "TIFF planar configuration \(planar)") }
        guard planar == 1 || b >= 8 || samplesPerPixel == 1 else {
            throw ImageCodecError(.unsupported, "planar TIFF with \(b)-bit samples")
        }
        predictor = try c.integer(dir, 317) ?? 1
        guard predictor == 1 || (predictor == 2 && (b == 8 || b == 16)) else {
            throw ImageCodecError(.unsupported, "TIFF predictor \(predictor) with \(b)-bit samples")
        }
        if let fill = try c.integer(dir, 266), fill != 1 {
            throw ImageCodecError(.unsupported, "TIFF fill order \(fill)")
        }
        let photometric = try c.integer(dir, 262) ?? (samplesPerPixel >= 3 ? 2 : 1)
        switch photometric {
        case 0: colour = .minIsWhite
        case 1: colour = .minIsBlack
        case 2: colour = .rgb
        case 3: colour = .palette
        case 5:
            guard (try c.integer(dir, 332) ?? 1) == 1 else { throw ImageCodecError(.unsupported, "TIFF separated image with an ink set other than CMYK") }
            colour = .cmyk
        case 6 where compression == 7: colour = .ycbcrJPEG
        default: throw ImageCodecError(.unsupported, "TIFF photometric interpretation \(photometric)")
        }
        if compression == 7 {
            guard b == 8, colour != .palette, colour != .cmyk, planar == 1 else {
                throw ImageCodecError(.unsupported, "JPEG-compressed TIFF other than 8-bit gray, RGB or YCbCr")
            }
        } else if colour == .ycbcrJPEG {
            throw ImageCodecError(.unsupported, "uncompressed YCbCr TIFF")
        }
        let colourCount: Int
        switch colour {
        case .minIsWhite, .minIsBlack, .palette: colourCount = 1
        case .rgb, .ycbcrJPEG: colourCount = 3
        case .cmyk: colourCount = 4
        }
        guard samplesPerPixel >= colourCount else {
            throw ImageCodecError(.corrupt, "TIFF photometric \(photometric) with \(samplesPerPixel) samples per pixel")
        }
        let extra = try c.integers(dir, 338, maxCount: 16) ?? []
        if samplesPerPixel > colourCount, let kind = extra.first, kind == 1 || kind == 2 {
            alpha = kind == 1 ? .associated : .unassociated
        } else {
            alpha = .none
        }
        if colour == .palette {
            guard b <= 8, let map = try c.integers(dir, 320, maxCount: 3 << 16), map.count == 3 << b else {
                throw ImageCodecError(.corrupt, "palette TIFF without a ColorMap of 3 × 2^\(b) entries")
            }
            colourMap = map.map { UInt8(truncatingIfNeeded: $0 >> 8) }
        } else {
            colourMap = []
        }
        jpegTables = compression == 7 ? try dir.entries[347].flatMap { try c.valueBytes($0, maxCount: 1 << 20) } : nil

        let planes = planar == 2 ? samplesPerPixel : 1
        if let tw = try c.integer(dir, 322), let th = try c.integer(dir, 323) {
            guard tw > 0, th > 0, tw <= 1 << 16, th <= 1 << 16 else {
                throw ImageCodecError(.corrupt, "TIFF tile size \(tw)x\(th)")
            }
            tiled = true
            blockWidth = tw
            blockHeight = th
        } else {
            tiled = false
            blockWidth = w
            let rows = try c.integer(dir, 278) ?? h
            blockHeight = rows <= 0 ? h : min(rows, h)
        }
        let blockCount = ((w + blockWidth - 1) / blockWidth) * ((h + blockHeight - 1) / blockHeight) * planes
        let offsetTag = tiled ? 324 : 273, countTag = tiled ? 325 : 279
        guard let offs = try c.integers(dir, offsetTag, maxCount: 1 << 24), offs.count >= blockCount else {
            throw ImageCodecError(.corrupt, "TIFF with fewer \(tiled ? "tile" : "strip") offsets than its \(blockCount) blocks")
        }
        offsets = Array(offs.prefix(blockCount))
        // Bits per row ≤ 2^16 · 16 · 16 for tiles, 65,500 · 16 · 16 for strips: no overflow.
        let rowBytes = (blockWidth * (planar == 1 ? samplesPerPixel : 1) * b + 7) / 8
        if let counts = try c.integers(dir, countTag, maxCount: 1 << 24), counts.count >= blockCount {
            byteCounts = Array(counts.prefix(blockCount))
        } else if compression == 1 {
            byteCounts = Array(repeating: rowBytes * blockHeight, count: blockCount)
        } else {
            throw ImageCodecError(.corrupt, "compressed TIFF without byte counts for its \(blockCount) blocks")
        }
    }
}
