/// PNG decoding: chunk walk → streaming inflate → unfilter row by row → expand to 8-bit
/// pixels → (optionally) box-reduce, all in one pass over the rows.
///
/// Memory for a sequential (non-interlaced) file is the output bitmap plus two full-width
/// raw rows, one expanded row, one row of reduction sums and zlib's 64 KiB staging buffer:
/// a 1/8 thumbnail of a 12 MP PNG never holds the full image. Adam7 passes touch every band
/// of rows, so a reduced interlaced decode keeps block sums for the whole output instead
/// (4 bytes per output sample: 1/16 of the full image at 1/8, about its size at 1/2).
///
/// Short data is an error (`.truncated`), never a partial image.
enum PNGDecoder {
    /// Header and metadata only; never inflates pixel data.
    static func probe(_ bytes: [UInt8], limits: DecodeLimits) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { file in
            try PNGChunkReader.read(file, limits: limits, verifyImageData: false).info()
        }
    }

    /// Decodes at 1/`reduction` of the stored size (1, 2, 4 or 8), box-averaging reduction ×
    /// reduction blocks. The info keeps the stored size. Throws `.limitExceeded` before
    /// allocating when the buffers would pass `limits.maxMemoryBytes`.
    static func decode(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodedImage {
        try checkReduction(reduction)
        return try bytes.withUnsafeBufferPointer { file in
            var structure = try PNGChunkReader.read(file, limits: limits, verifyImageData: true)
            let header = structure.header
            let sizing = try Sizing(structure, reduction: reduction)
            try limits.check(sizing.memory)
            let layout = sizing.layout, outWidth = sizing.outWidth, outHeight = sizing.outHeight, count = sizing.outputBytes
            let reader = try PNGImageDataReader(file: file, ranges: structure.imageData,
                                                expectedBytes: header.expectedDataBytes)
            let plan = RowPlan(header: header, layout: layout, expander: PNGPixelExpander(structure), reader: reader)
            let pixels = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                // UInt8 needs no initialisation; every byte is written below before anyone reads it.
                initialized = count
                guard let out = buffer.baseAddress else { return }
                if header.interlaced {
                    try plan.decodeInterlaced(into: out, reduction: reduction)
                } else {
                    try plan.decodeSequential(into: out, reduction: reduction)
                }
            }
            structure.warnings += try reader.finish()
            let bitmap = try Bitmap(width: outWidth, height: outHeight, layout: layout, pixels: pixels)
            return DecodedImage(bitmap: bitmap, info: structure.info(), warnings: structure.warnings)
        }
    }
}

extension PNGDecoder {
    /// The buffers `decode` would allocate at 1/`reduction`, from the chunk structure alone
    /// (IDAT CRCs are left to the decode), checked against `limits` exactly as `decode` checks
    /// them (`ImageCodec.memoryEstimate`).
    static func memoryEstimate(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        try checkReduction(reduction)
        return try bytes.withUnsafeBufferPointer { file in
            try Sizing(PNGChunkReader.read(file, limits: limits, verifyImageData: false), reduction: reduction).memory
        }
    }

    static func checkReduction(_ reduction: Int) throws {
        guard [1, 2, 4, 8].contains(reduction) else {
            throw ImageCodecError(.invalidArgument, "PNG reduction \(reduction) is not 1, 2, 4 or 8")
        }
    }

    /// The output of a decode at one reduction and the buffers it allocates, decided from the
    /// header: `decode` allocates by it and `memoryEstimate` reports it, so the two cannot
    /// drift apart.
    struct Sizing {
        let layout: Bitmap.Layout
        let outWidth: Int
        let outHeight: Int
        let outputBytes: Int
        let memory: DecodeMemoryEstimate

        init(_ structure: PNGStructure, reduction: Int) throws {
            let header = structure.header
            layout = header.outputLayout(hasTransparencyChunk: structure.transparency != nil)
            outWidth = (header.width + reduction - 1) / reduction
            outHeight = (header.height + reduction - 1) / reduction
            outputBytes = try Bitmap.byteCount(width: outWidth, height: outHeight, layout: layout)
            memory = RowPlan.memoryEstimate(header, layout: layout, reduction: reduction, outputBytes: outputBytes)
        }
    }
}

/// The per-image decoding plan, decided once from the header, and the row loops that run it.
private struct RowPlan {
    let header: PNGHeader
    let layout: Bitmap.Layout
    let expander: PNGPixelExpander
    let reader: PNGImageDataReader

    /// What `decode` and the row loops below allocate: the output bitmap, the current and
    /// prior rows of the widest pass, the expanded row (reduced or interlaced), the reducer's
    /// sums (one row of blocks, or the whole output for Adam7) and the inflate staging buffer.
    static func memoryEstimate(_ header: PNGHeader, layout: Bitmap.Layout, reduction: Int, outputBytes: Int) -> DecodeMemoryEstimate {
        let kind = header.interlaced ? "interlaced PNG" : "PNG"
        var estimate = DecodeMemoryEstimate("\(kind) \(header.width)x\(header.height) at \(8 / reduction)/8")
        estimate.add("output", bytes: outputBytes)
        // rowBytes ≤ (2^31 − 1) · 64 / 8: adding 1 cannot overflow.
        estimate.add("rows", 2, (header.passes.map(\.rowBytes).max() ?? 0) + 1)
        if header.interlaced || reduction > 1 { estimate.add("expanded row", header.width, layout.channels) }
        if reduction > 1 {
            estimate.add("block sums", bytes: PNGBoxReducer.sumBytes(width: header.width, height: header.height, channels: layout.channels,
                                                                     factor: reduction, scattered: header.interlaced))
        }
        estimate.add("inflate staging", PNGImageDataReader.stagingSize)
        return estimate
    }

    /// Every row's pixels go straight to `out` (full size) or through a reducer.
    func decodeSequential(into out: UnsafeMutablePointer<UInt8>, reduction: Int) throws {
        let channels = layout.channels
        let rowPixels = header.width * channels
        let reducer = reduction > 1
            ? PNGBoxReducer(width: header.width, height: header.height, layout: layout, factor: reduction) : nil
        let expanded = UnsafeMutablePointer<UInt8>.allocate(capacity: reducer == nil ? 1 : rowPixels)
        defer { expanded.deallocate() }
        try forEachRow(of: header.passes[0]) { raw, y in
            if let reducer {
                if expander.isIdentity {
                    reducer.add(raw, output: out)
                } else {
                    try expander.expand(raw, width: header.width, into: expanded)
                    reducer.add(expanded, output: out)
                }
            } else {
                try expander.expand(raw, width: header.width, into: out + y &* rowPixels)
            }
        }
    }

    /// Places each Adam7 pass's pixels: straight into the full-size `out`, or, when reducing,
    /// into block sums for the whole output (the full image is never held).
    func decodeInterlaced(into out: UnsafeMutablePointer<UInt8>, reduction: Int) throws {
        let channels = layout.channels
        let reducer = reduction > 1
            ? PNGBoxReducer(width: header.width, height: header.height, layout: layout, factor: reduction, scattered: true) : nil
        let expanded = UnsafeMutablePointer<UInt8>.allocate(capacity: header.width * channels)
        defer { expanded.deallocate() }
        for pass in header.passes where pass.width > 0 && pass.height > 0 {
            try forEachRow(of: pass) { raw, j in
                try expander.expand(raw, width: pass.width, into: expanded)
                let y = pass.y0 &+ j &* pass.dy
                if let reducer {
                    reducer.scatter(expanded, count: pass.width, y: y, x0: pass.x0, dx: pass.dx)
                    return
                }
                var dst = out + (y &* header.width &+ pass.x0) &* channels
                let step = pass.dx &* channels
                var src = UnsafePointer(expanded)
                for _ in 0..<pass.width {
                    dst.update(from: src, count: channels)
                    dst += step
                    src += channels
                }
            }
        }
        reducer?.finish(output: out)
    }

    /// Reads, unfilters and hands over each row of `pass` (raw bytes at native depth, and
    /// the row number within the pass). Two row buffers alternate as current and prior.
    private func forEachRow(of pass: PNGHeader.Pass,
                            _ body: (UnsafePointer<UInt8>, Int) throws -> Void) throws {
        let length = pass.rowBytes
        let buffers = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * (length + 1))
        defer { buffers.deallocate() }
        buffers.initialize(repeating: 0, count: 2 * (length + 1))
        var current = buffers
        var prior = buffers + (length + 1)
        let bpp = header.filterStride
        for y in 0..<pass.height {
            try reader.read(into: current, count: length + 1)
            try PNGUnfilter.apply(type: current[0], row: current + 1, prior: prior + 1, count: length, bpp: bpp)
            try body(current + 1, y)
            swap(&current, &prior)
        }
    }
}
