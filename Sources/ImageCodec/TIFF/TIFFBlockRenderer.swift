/// Runs a TIFF decode plan: reads and decompresses each block (one per sample plane when
/// planar), converts its rows and places them in the output, directly at full size or
/// through a box reducer (strips row by row, tiles one band of tiles at a time).
struct TIFFBlockRenderer {
    let container: TIFFContainer
    let layout: TIFFImageLayout
    let plan: TIFFDecoder.Plan
    let limits: DecodeLimits
    let cmyk: ColourTransform?

    func render(warnings: inout [String]) throws -> Bitmap {
        let l = layout
        let ch = l.layout.channels
        let planes = l.planar == 2 ? l.samplesPerPixel : 1
        let blocksPerPlane = l.blocksAcross * l.blocksDown
        let converter = TIFFPixelConverter(l, little: container.little, cmyk: cmyk)
        let blocks = (0..<planes).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: l.blockBytes) }
        defer { blocks.forEach { $0.deallocate() } }
        let reducer = plan.reduction > 1
            ? PNGBoxReducer(width: l.width, height: l.height, layout: l.layout, factor: plan.reduction) : nil
        let bandRows = l.tiled ? l.blockHeight : 1
        let band = UnsafeMutablePointer<UInt8>.allocate(capacity: reducer == nil ? 1 : l.width * bandRows * ch)
        defer { band.deallocate() }
        let count = plan.outWidth * plan.outHeight * ch
        let direct = reducer == nil && !l.tiled && l.compression != 7 && converter.isIdentity
        var notes: [String] = []
        let pixels = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            // UInt8 needs no initialisation; the blocks cover every output pixel.
            initialized = count
            guard let out = buffer.baseAddress else { return }
            for by in 0..<l.blocksDown {
                let y0 = by * l.blockHeight
                let rows = min(l.blockHeight, l.height - y0)
                if direct {
                    // Strips whose samples already are output pixels decompress in place.
                    let dst = out + y0 * l.width * ch
                    try decodeBlock(by, into: dst, rows: rows, notes: &notes)
                    converter.undoPredictor(dst, rows: rows, samples: l.samplesPerBlockPixel)
                    continue
                }
                for bx in 0..<l.blocksAcross {
                    let x0 = bx * l.blockWidth
                    let cols = min(l.blockWidth, l.width - x0)
                    for p in 0..<planes {
                        try decodeBlock(p * blocksPerPlane + by * l.blocksAcross + bx, into: blocks[p], rows: rows, notes: &notes)
                        converter.undoPredictor(blocks[p], rows: rows, samples: l.samplesPerBlockPixel)
                    }
                    for r in 0..<rows {
                        let dst: UnsafeMutablePointer<UInt8>
                        if reducer == nil {
                            dst = out + ((y0 + r) * l.width + x0) * ch
                        } else {
                            dst = l.tiled ? band + (r * l.width + x0) * ch : band
                        }
                        converter.convert(row: r, of: blocks, count: cols, into: dst)
                        if let reducer, !l.tiled { reducer.add(band, output: out) }
                    }
                }
                if let reducer, l.tiled {
                    for r in 0..<rows { reducer.add(band + r * l.width * ch, output: out) }
                }
            }
        }
        warnings += notes.prefix(8)
        if notes.count > 8 { warnings.append("\(notes.count - 8) more damaged TIFF blocks") }
        return try Bitmap(width: plan.outWidth, height: plan.outHeight, layout: l.layout, pixels: pixels)
    }

    /// Reads block `index` and decompresses its first `rows` rows into `block`; what the data
    /// does not cover is left zero and noted.
    private func decodeBlock(_ index: Int, into block: UnsafeMutablePointer<UInt8>, rows: Int, notes: inout [String]) throws {
        let l = layout
        let needed = rows * l.blockRowBytes
        let offset = l.offsets[index], stored = l.byteCounts[index]
        let size = container.source.size
        if stored == 0 {
            block.initialize(repeating: 0, count: needed)
            notes.append("TIFF block \(index) is empty")
            return
        }
        guard offset >= 0, offset < size, stored > 0 else {
            throw ImageCodecError(.truncated, "TIFF block \(index) at \(offset) is outside the \(size)-byte file")
        }
        let available = min(stored, size - offset)
        if available < stored { notes.append("TIFF block \(index) is cut short by the end of the file") }
        let input = try container.source.read(offset: offset, count: available)
        let produced: Int
        if l.compression == 7 {
            produced = try decodeJPEGBlock(input, into: block, rows: rows)
        } else {
            produced = try input.withUnsafeBufferPointer {
                try TIFFDecompressor.decompress(l.compression, $0, into: block, capacity: needed)
            }
        }
        if produced < needed {
            (block + produced).initialize(repeating: 0, count: needed - produced)
            notes.append("TIFF block \(index) decoded to \(produced) of \(needed) bytes")
        }
    }

    /// A compression-7 block: the JPEGTables stream (without its EOI) spliced before the
    /// block's own stream (without its SOI), decoded by our JPEG decoder, copied into the block.
    private func decodeJPEGBlock(_ input: [UInt8], into block: UnsafeMutablePointer<UInt8>, rows: Int) throws -> Int {
        let l = layout
        var stream = input
        if let tables = l.jpegTables, tables.count >= 4, input.count >= 2, input[0] == 0xFF, input[1] == 0xD8 {
            let end = tables[tables.count - 2] == 0xFF && tables[tables.count - 1] == 0xD9 ? tables.count - 2 : tables.count
            stream = Array(tables[0..<end]) + input[2...]
        }
        // The block's JPEG may not claim more than the block (rounded up to whole MCUs): a
        // tiny stream cannot make every tile a large decode.
        var blockLimits = limits
        let mcuWidth = (l.blockWidth + 15) / 16 * 16, mcuHeight = (l.blockHeight + 15) / 16 * 16
        blockLimits.maxDimension = min(limits.maxDimension, max(mcuWidth, mcuHeight))
        blockLimits.maxPixels = min(limits.maxPixels, mcuWidth * mcuHeight)
        let image = try JPEGDecoder.decode(stream, scale: 8, limits: blockLimits)
        let bitmap = image.bitmap
        guard bitmap.channels == l.samplesPerPixel, bitmap.width >= min(l.blockWidth, l.width) else {
            throw ImageCodecError(.corrupt, "TIFF JPEG block is \(bitmap.width)x\(bitmap.height) \(bitmap.layout), the image wants \(l.samplesPerPixel) samples")
        }
        let copyRows = min(rows, bitmap.height)
        let rowBytes = min(bitmap.rowBytes, l.blockRowBytes)
        bitmap.pixels.withUnsafeBufferPointer { src in
            for r in 0..<copyRows {
                (block + r * l.blockRowBytes).update(from: src.baseAddress! + r * bitmap.rowBytes, count: rowBytes)
                if rowBytes < l.blockRowBytes {
                    (block + r * l.blockRowBytes + rowBytes).initialize(repeating: 0, count: l.blockRowBytes - rowBytes)
                }
            }
        }
        return copyRows * l.blockRowBytes
    }
}
