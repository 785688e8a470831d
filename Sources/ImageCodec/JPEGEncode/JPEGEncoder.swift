/// Baseline JPEG encoder following cjpeg 2.1.5's model step by step (docs/jpeg-encoding.md), so a
/// file from us has the same quantised coefficients as `cjpeg -quality Q -sample 2x2|1x1
/// [-optimize]` on the same pixels, and (with the same tables) the same bytes apart from our own
/// choices: always baseline (quantisers clamped to 255, where cjpeg without `-baseline` writes SOF1
/// below quality 24), and no comment or EXIF segments.
///
/// Data flow, one stage per file: `ComponentStrips` (`RGBToYCbCr`, edge replication,
/// `ChromaDownsampler`) → `MCURowTransform` (`ForwardDCT` + quantiser, dummy blocks) →
/// `ScanEncoder` / `HuffmanEncoder` → `BitWriter`, with headers from `JPEGMarkerWriter`.
/// Memory is a few MCU rows, except with `optimizeHuffman`, which keeps every quantised block
/// (2 bytes per sample, as libjpeg does) to count symbols before writing.
///
/// Speed (1920×1080 q82, one encode, portable x86-64 build): callgrind 97.7 M instructions for
/// 4:2:0 and 146 M for 4:4:4, down from 200 M and 302 M for the first scalar version. The
/// SIMD stages: `ForwardDCT` and `QuantDivisors` (16-bit lanes, pmaddwd and pmulhuw, 107 M →
/// 38 M), `RGBToYCbCr` (pmaddwd on R−G and B−G, 48 M → 24 M), `ChromaDownsampler` (16
/// outputs per step, 14.5 M → 2.1 M); blocks stay in natural order and the entropy coder reads
/// the few non-zero coefficients through the zigzag table (a table-built mask replaces a
/// 63-step reorder). What is left is mostly the entropy coder (about 30 M, as much as
/// cjpeg's), which keeps the bit state in registers per chunk (`BitSink`) and uses ready-made
/// code words for AC values −15...15. `gallery-bench --only encode` compares with cjpeg.
public enum JPEGEncoder {
    /// Chroma subsampling of colour output. Gray bitmaps always give one-component files.
    public enum Subsampling: String, Sendable { case s420 = "4:2:0", s444 = "4:4:4" }

    /// Largest width or height we write: libjpeg's JPEG_MAX_DIMENSION, so every libjpeg reads it.
    public static let maxDimension = 65_500

    /// Encodes `bitmap` as a baseline JFIF file.
    /// - Parameters:
    ///   - bitmap: any layout. `.gray` and `.grayAlpha` give a grayscale JPEG, `.rgb` and
    ///     `.rgba` a YCbCr one. Alpha is dropped, not composited: callers send images with
    ///     transparency to PNG instead.
    ///   - quality: 1...100 on libjpeg's scale (50 = the Annex K tables). 82 by default.
    ///   - subsampling: chroma sampling for colour images; 4:2:0 by default (cjpeg's default).
    ///   - optimizeHuffman: two passes with Huffman tables built for this image (as
    ///     `cjpeg -optimize`): typically 1-5% smaller, about 1.15× the time, and memory for
    ///     every quantised block plus its mask (136 bytes per 8×8 block). Off by default.
    ///   - iccProfile: an ICC profile to embed (APP2 ICC_PROFILE segments after the JFIF
    ///     header), for pixels that are not sRGB; nil (the default) writes none.
    /// - Throws: `.invalidArgument` for a quality outside 1...100 or a side over `maxDimension`;
    ///   `.limitExceeded` when the optimiser's coefficient buffer would not fit in memory.
    public static func encode(_ bitmap: Bitmap, quality: Int = 82, subsampling: Subsampling = .s420,
                              optimizeHuffman: Bool = false, iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw ImageCodecError(.invalidArgument, "JPEG quality \(quality) is outside 1...100")
        }
        guard bitmap.width <= maxDimension, bitmap.height <= maxDimension else {
            throw ImageCodecError(.invalidArgument, "\(bitmap.width)x\(bitmap.height) exceeds JPEG's \(maxDimension) px limit")
        }
        guard bitmap.pixels.count == bitmap.height * bitmap.rowBytes else {
            throw ImageCodecError(.invalidArgument, "bitmap has \(bitmap.pixels.count) bytes for \(bitmap.width)x\(bitmap.height)")
        }
        let gray = bitmap.layout == .gray || bitmap.layout == .grayAlpha
        let layout = FrameLayout(width: bitmap.width, height: bitmap.height, gray: gray, subsample: subsampling == .s420)
        let quant = QuantTables(quality: quality)

        let perTable = QuantDivisors.valuesPerTable
        let divisors = UnsafeMutablePointer<UInt16>.allocate(capacity: 2 * perTable)
        defer { divisors.deallocate() }
        divisors.initialize(from: QuantDivisors.values(table: quant.luma), count: perTable)
        (divisors + perTable).initialize(from: QuantDivisors.values(table: quant.chroma), count: perTable)

        var strips = ComponentStrips(layout: layout)
        let transform = MCURowTransform(layout: layout, strips: strips, divisors: divisors)
        let blockRowCount = optimizeHuffman ? layout.mcusHigh : 1
        let (blockCount, overflow) = transform.blocksPerRow.multipliedReportingOverflow(by: blockRowCount)
        guard !overflow, blockCount <= (Int(Int32.max) / 64) else {
            throw ImageCodecError(.limitExceeded, "\(bitmap.width)x\(bitmap.height) is too large to optimise in memory")
        }
        let coefficients = UnsafeMutablePointer<Int16>.allocate(capacity: blockCount * 64)
        defer { coefficients.deallocate() }
        let masks = UnsafeMutablePointer<UInt64>.allocate(capacity: blockCount)
        defer { masks.deallocate() }

        // A guess at the output size (a quarter byte per pixel, capped), grown when short.
        var writer = BitWriter(capacity: min(bitmap.width * bitmap.height / 4, 16 << 20) + 1024)
        writer.append(JPEGMarkerWriter.startOfImage)
        writer.append(JPEGMarkerWriter.jfif)
        if let iccProfile { writer.append(try JPEGMarkerWriter.iccProfile(iccProfile)) }
        writer.append(JPEGMarkerWriter.quantTable(id: 0, quant.luma))
        if !gray { writer.append(JPEGMarkerWriter.quantTable(id: 1, quant.chroma)) }
        writer.append(JPEGMarkerWriter.frameHeader(layout))

        try bitmap.pixels.withUnsafeBufferPointer { pixelBuffer in
            guard let pixels = pixelBuffer.baseAddress else { return }
            let rowBlocks = transform.blocksPerRow
            if optimizeHuffman {
                for row in 0..<layout.mcusHigh {
                    strips.fill(mcuRow: row, pixels: pixels, channels: bitmap.channels)
                    transform.run(mcuRow: row, out: coefficients + row * rowBlocks * 64, masks: masks + row * rowBlocks)
                }
                let tables = ScanEncoder.optimalTables(layout, blocks: coefficients, masks: masks, blockCount: blockCount)
                var scan = try ScanEncoder(layout, tables: tables)
                writer.append(ScanEncoder.tableSegments(tables))
                writer.append(JPEGMarkerWriter.scanHeader(layout))
                scan.encode(coefficients, masks: masks, blockCount: blockCount, writer: &writer)
            } else {
                let tables = ScanEncoder.standardTables(layout)
                var scan = try ScanEncoder(layout, tables: tables)
                writer.append(ScanEncoder.tableSegments(tables))
                writer.append(JPEGMarkerWriter.scanHeader(layout))
                for row in 0..<layout.mcusHigh {
                    strips.fill(mcuRow: row, pixels: pixels, channels: bitmap.channels)
                    transform.run(mcuRow: row, out: coefficients, masks: masks)
                    scan.encode(coefficients, masks: masks, blockCount: rowBlocks, writer: &writer)
                }
            }
        }
        writer.flushBits()
        writer.append(JPEGMarkerWriter.endOfImage)
        return writer.bytes()
    }
}
