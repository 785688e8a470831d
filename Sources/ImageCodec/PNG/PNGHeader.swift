/// The IHDR fields, validated, and the geometry derived from them: bytes per row, Adam7 passes,
/// and the exact size the inflated image data must have (docs/png.md "Chunks", "Image data").
struct PNGHeader: Equatable {
    enum ColorType: UInt8 {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6

        /// Samples per pixel as stored (a palette index is one sample).
        var samples: Int {
            switch self {
            case .gray, .palette: return 1
            case .grayAlpha: return 2
            case .rgb: return 3
            case .rgba: return 4
            }
        }

        var name: String {
            switch self {
            case .gray: return "Gray"
            case .rgb: return "RGB"
            case .palette: return "Palette"
            case .grayAlpha: return "GrayAlpha"
            case .rgba: return "RGBA"
            }
        }
    }

    /// One Adam7 pass (or the whole image when not interlaced) as its own small image.
    struct Pass: Equatable {
        var x0: Int, y0: Int, dx: Int, dy: Int
        /// Pixels per row and rows; either may be 0, and then the pass has no bytes at all.
        var width: Int, height: Int
        /// Filtered bytes per row, without the filter-type byte.
        var rowBytes: Int
    }

    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: ColorType
    let interlaced: Bool

    /// Bits per pixel as stored: samples × depth (1...64).
    var bitsPerPixel: Int { colorType.samples * bitDepth }
    /// The filter's byte distance to "the pixel on the left": at least 1, even for sub-byte pixels.
    var filterStride: Int { (bitsPerPixel + 7) / 8 }

    /// Parses and validates the 13 IHDR bytes, then checks the size against `limits`, so no
    /// caller ever allocates from a header that fails either.
    init(_ data: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) throws {
        guard data.count == 13 else {
            throw ImageCodecError(.corrupt, "PNG IHDR has \(data.count) bytes, not 13")
        }
        let w = PNGHeader.u32(data, 0), h = PNGHeader.u32(data, 4)
        guard w >= 1, h >= 1, w <= 0x7FFF_FFFF, h <= 0x7FFF_FFFF else {
            throw ImageCodecError(.corrupt, "PNG size \(w)x\(h) is invalid")
        }
        guard let type = ColorType(rawValue: data[9]) else {
            throw ImageCodecError(.corrupt, "PNG colour type \(data[9]) is invalid")
        }
        let depth = Int(data[8])
        let allowed: [Int]
        switch type {
        case .gray: allowed = [1, 2, 4, 8, 16]
        case .palette: allowed = [1, 2, 4, 8]
        case .rgb, .grayAlpha, .rgba: allowed = [8, 16]
        }
        guard allowed.contains(depth) else {
            throw ImageCodecError(.corrupt, "PNG bit depth \(depth) is invalid for colour type \(type.rawValue)")
        }
        guard data[10] == 0 else { throw ImageCodecError(.corrupt, "PNG compression method \(data[10]) is unknown") }
        guard data[11] == 0 else { throw ImageCodecError(.corrupt, "PNG filter method \(data[11]) is unknown") }
        guard data[12] <= 1 else { throw ImageCodecError(.corrupt, "PNG interlace method \(data[12]) is unknown") }
        try limits.check(width: w, height: h)
        width = w
        height = h
        bitDepth = depth
        colorType = type
        interlaced = data[12] == 1
        expectedDataBytes = 0
        guard let bytes = PNGHeader.dataBytes(passes) else {
            throw ImageCodecError(.limitExceeded, "PNG size \(w)x\(h) at \(bitsPerPixel) bits per pixel is too large")
        }
        expectedDataBytes = bytes
    }

    /// The passes in decoding order: seven for Adam7, one otherwise. Width and height are at
    /// most 2^31 − 1, so width × 64 bits cannot overflow.
    var passes: [Pass] {
        let shapes: [(Int, Int, Int, Int)] = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        return shapes.map { x0, y0, dx, dy in
            let w = width > x0 ? (width - x0 + dx - 1) / dx : 0
            let h = height > y0 ? (height - y0 + dy - 1) / dy : 0
            return Pass(x0: x0, y0: y0, dx: dx, dy: dy, width: w, height: h, rowBytes: (w * bitsPerPixel + 7) / 8)
        }
    }

    /// Σ over non-empty passes of rows × (1 + rowBytes): exactly what the zlib stream must
    /// inflate to. Computed (with overflow checks) once in `init`.
    private(set) var expectedDataBytes: Int

    private static func dataBytes(_ passes: [Pass]) -> Int? {
        var total = 0
        for p in passes where p.width > 0 && p.height > 0 {
            let (row, o1) = p.rowBytes.addingReportingOverflow(1)
            let (bytes, o2) = row.multipliedReportingOverflow(by: p.height)
            let (sum, o3) = total.addingReportingOverflow(bytes)
            guard !o1, !o2, !o3 else { return nil }
            total = sum
        }
        return total
    }

    /// Channels of the decoded 8-bit bitmap (palette expanded; tRNS adds alpha).
    func outputLayout(hasTransparencyChunk: Bool) -> Bitmap.Layout {
        switch colorType {
        case .gray: return hasTransparencyChunk ? .grayAlpha : .gray
        case .grayAlpha: return .grayAlpha
        case .rgb, .palette: return hasTransparencyChunk ? .rgba : .rgb
        case .rgba: return .rgba
        }
    }

    static func u32(_ d: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        Int(d[i]) << 24 | Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3])
    }
}
