/// WebP decoding: RIFF container → VP8 (lossy, with optional ALPH) or VP8L (lossless) →
/// RGB(A) rows → first-frame placement on the canvas → (optionally) box reduction by 8 / M.
///
/// Output matches `dwebp`'s default output (fancy chroma upsampling, libwebp's YUV→RGB; PAM
/// for alpha). An animation decodes its first frame, placed on a transparent canvas as a
/// viewer first shows it. EXIF orientation is reported, not applied.
///
/// Memory: lossy frames keep their YUV planes (1.5 bytes per pixel) and lossless ones their
/// ARGB pixels (4 bytes per pixel) for the whole frame, because the loop filter / upsampler and
/// the lossless predictor reach back into earlier rows; the RGB(A) rows are then produced one
/// at a time and box-reduced as they come, so a thumbnail never holds a full RGBA bitmap.
enum WebPDecoder {
    static func probe(_ bytes: [UInt8], limits: DecodeLimits) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { file in
            let container = try WebPContainer.read(file)
            try limits.check(width: container.canvasWidth, height: container.canvasHeight)
            return info(container, file, limits: limits)
        }
    }

    static func memoryEstimate(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        try checkReduction(reduction)
        return try bytes.withUnsafeBufferPointer { file in
            let container = try WebPContainer.read(file)
            try limits.check(width: container.canvasWidth, height: container.canvasHeight)
            return Sizing(container, file, reduction: reduction).memory
        }
    }

    /// Decodes at 1/`reduction` of the canvas size (1, 2, 4 or 8), box-averaging
    /// reduction × reduction blocks. The info keeps the stored size.
    static func decode(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodedImage {
        try checkReduction(reduction)
        return try bytes.withUnsafeBufferPointer { file in
            let (container, sizing, frame) = try prepare(file, limits: limits, reduction: reduction, bandRows: nil)
            let pixels = try render(frame, container, sizing: sizing, reduction: reduction)
            let bitmap = try Bitmap(width: sizing.outWidth, height: sizing.outHeight, layout: sizing.layout, pixels: pixels)
            return DecodedImage(bitmap: bitmap, info: info(container, file, limits: limits))
        }
    }

    /// Rows handed to a sink at once by `decodeRows`: a few hundred KB at most for the widest
    /// frames, and few enough calls that the sink's cost per call does not show.
    static let streamedRows = 16

    /// `decode` at full size handing the canvas rows to `sink`, `streamedRows` at a time,
    /// from one reused band: the frame's YUV planes (or ARGB pixels) are held, the RGB(A)
    /// bitmap never is. The memory limit is checked with the band in place of the output.
    static func decodeRows(_ bytes: [UInt8], limits: DecodeLimits, into sink: any DecodedRowSink) throws -> DecodedRows {
        try bytes.withUnsafeBufferPointer { file in
            let (container, sizing, frame) = try prepare(file, limits: limits, reduction: 1, bandRows: streamedRows)
            try sink.begin(width: sizing.outWidth, height: sizing.outHeight, layout: sizing.layout)
            let channels = sizing.layout.channels, rowBytes = sizing.outWidth * channels
            let band = UnsafeMutablePointer<UInt8>.allocate(capacity: streamedRows * rowBytes)
            defer { band.deallocate() }
            let last = sizing.outHeight - 1
            try place(frame, container, channels: channels, into: { y in band + (y % streamedRows) * rowBytes }, then: { y, _ in
                guard y % streamedRows == streamedRows - 1 || y == last else { return }
                let first = y - y % streamedRows, count = y - first + 1
                try sink.write(UnsafeBufferPointer(start: band, count: count * rowBytes), first: first, count: count)
            })
            return DecodedRows(info: info(container, file, limits: limits))
        }
    }

    /// The container, what the decode will hold (checked against `limits` before anything
    /// is allocated), then the decoded frame: what `decode` and `decodeRows` both start with.
    private static func prepare(_ file: UnsafeBufferPointer<UInt8>, limits: DecodeLimits, reduction: Int,
                                bandRows: Int?) throws -> (WebPContainer, Sizing, WebPFrameSource) {
        let container = try WebPContainer.read(file)
        try limits.check(width: container.canvasWidth, height: container.canvasHeight)
        let sizing = Sizing(container, file, reduction: reduction, bandRows: bandRows)
        try limits.check(sizing.memory)
        return (container, sizing, try WebPFrameSource(container, file))
    }

    static func checkReduction(_ reduction: Int) throws {
        guard [1, 2, 4, 8].contains(reduction) else {
            throw ImageCodecError(.invalidArgument, "WebP reduction \(reduction) is not 1, 2, 4 or 8")
        }
    }

    /// Whether the decoded image carries alpha: an ALPH chunk, the lossless alpha hint or VP8X
    /// flag, or a first animation frame that leaves part of the canvas uncovered.
    static func hasAlpha(_ c: WebPContainer) -> Bool {
        let frameAlpha = c.bitstream == .lossy ? c.alpha != nil : c.alphaFlag
        let uncovered = c.frameWidth != c.canvasWidth || c.frameHeight != c.canvasHeight
        return frameAlpha || (c.animated && (uncovered || c.alphaFlag))
    }

    private static func info(_ c: WebPContainer, _ file: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) -> ImageInfo {
        var exif = ExifMetadata()
        if let range = c.exif {
            var tiff = Array(file[range])[...]
            // Some writers keep the JPEG APP1 "Exif\0\0" prefix in the chunk.
            if tiff.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) { tiff = tiff.dropFirst(6) }
            exif = ExifReader.parse(tiff: tiff)
        }
        let alpha = hasAlpha(c)
        let icc = c.iccProfile.flatMap { $0.count <= limits.maxMetadataBytes ? $0 : nil }
        var embedded = EmbeddedMetadata(maxBytes: limits.maxMetadataBytes)
        if let range = c.xmp { embedded.addXMP(UnsafeBufferPointer(rebasing: file[range])) }
        var info = ImageInfo(format: .webp, width: c.canvasWidth, height: c.canvasHeight, components: alpha ? 4 : 3,
                         hasAlpha: alpha, bitDepth: 8, progressive: false,
                         colorSpace: c.bitstream == .lossy ? "YCbCr" : "RGB",
                         sampling: c.bitstream == .lossy ? ["2x2", "1x1", "1x1"] : [],
                         exif: exif, iccProfile: icc)
        info.text = embedded.text(exif: exif.text)
        return info
    }

    /// The output of one decode and the buffers it allocates, from the container alone, so
    /// that `decode` and `memoryEstimate` cannot drift apart.
    struct Sizing {
        let layout: Bitmap.Layout
        let outWidth: Int
        let outHeight: Int
        let memory: DecodeMemoryEstimate

        /// `bandRows`: the output is handed over that many rows at a time (`decodeRows`), so
        /// only a band of it is held; nil for the whole output.
        init(_ c: WebPContainer, _ file: UnsafeBufferPointer<UInt8>, reduction: Int, bandRows: Int? = nil) {
            layout = WebPDecoder.hasAlpha(c) ? .rgba : .rgb
            outWidth = (c.canvasWidth + reduction - 1) / reduction
            outHeight = (c.canvasHeight + reduction - 1) / reduction
            let channels = layout.channels
            var m = DecodeMemoryEstimate("\(c.bitstream == .lossy ? "lossy" : "lossless") WebP \(c.canvasWidth)x\(c.canvasHeight) at \(8 / reduction)/8")
            switch c.bitstream {
            case .lossy:
                m.add("YUV planes", bytes: VP8Planes.byteCount(width: c.frameWidth, height: c.frameHeight))
                if let alpha = c.alpha {
                    m.add("alpha", c.frameWidth, c.frameHeight)
                    if alpha.count > 0, file[alpha.lowerBound] & 3 == 1 { m.add("alpha ARGB", c.frameWidth, c.frameHeight, 4) }
                }
            case .lossless:
                m.add("ARGB", bytes: VP8LDecoder.byteCount(width: c.frameWidth, height: c.frameHeight))
            }
            m.add("rows", c.canvasWidth + c.frameWidth, channels)
            if reduction > 1 {
                m.add("reduction sums", bytes: PNGBoxReducer.sumBytes(width: c.canvasWidth, height: c.canvasHeight,
                                                                       channels: channels, factor: reduction, scattered: false))
            }
            if let bandRows {
                m.add("band", outWidth, min(bandRows, outHeight), channels)
            } else {
                m.add("output", outWidth, outHeight, channels)
            }
            memory = m
        }
    }

    /// Places the frame's rows on the canvas and writes them, reduced, into the output.
    private static func render(_ frame: WebPFrameSource, _ c: WebPContainer, sizing: Sizing, reduction: Int) throws -> [UInt8] {
        let channels = sizing.layout.channels
        let count = sizing.outWidth * sizing.outHeight * channels
        let rowBytes = c.canvasWidth * channels
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let out = buffer.baseAddress!
            if reduction > 1 {
                let reducer = PNGBoxReducer(width: c.canvasWidth, height: c.canvasHeight, layout: sizing.layout, factor: reduction)
                let canvasRow = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
                defer { canvasRow.deallocate() }
                place(frame, c, channels: channels, into: { _ in canvasRow }, then: { _, row in reducer.add(row, output: out) })
            } else {
                place(frame, c, channels: channels, into: { y in out + y * rowBytes }, then: { _, _ in })
            }
            initialized = count
        }
    }

    /// Writes each canvas row, top to bottom, where `destination(y)` says, then hands it to
    /// `take`: the frame's row where the frame covers the canvas, transparent black around it.
    private static func place<E: Error>(_ frame: WebPFrameSource, _ c: WebPContainer, channels: Int,
                                        into destination: (Int) -> UnsafeMutablePointer<UInt8>,
                                        then take: (Int, UnsafeMutablePointer<UInt8>) throws(E) -> Void) throws(E) {
        let canvasWidth = c.canvasWidth
        let covers = c.frameX == 0 && c.frameY == 0 && c.frameWidth == canvasWidth && c.frameHeight == c.canvasHeight
        let frameRow = UnsafeMutablePointer<UInt8>.allocate(capacity: covers ? 0 : c.frameWidth * channels)
        defer { frameRow.deallocate() }
        for y in 0..<c.canvasHeight {
            let row = destination(y)
            if covers {
                frame.row(y, channels: channels, into: row)
            } else {
                row.update(repeating: 0, count: canvasWidth * channels)
                if y >= c.frameY && y < c.frameY + c.frameHeight {
                    frame.row(y - c.frameY, channels: channels, into: frameRow)
                    (row + c.frameX * channels).update(from: frameRow, count: c.frameWidth * channels)
                }
            }
            try take(y, row)
        }
    }
}

/// The decoded frame, able to write any of its rows as RGB or RGBA bytes.
struct WebPFrameSource {
    private var planes: VP8Planes?
    private var alpha: [UInt8]?
    private var argb: [UInt32]?
    /// `VP8YUVConverter.convertRow` of the kernel set chosen for this process.
    private let convertRow = KernelDispatch.selected.vp8ConvertRow
    let width: Int
    let height: Int

    init(_ c: WebPContainer, _ file: UnsafeBufferPointer<UInt8>) throws {
        width = c.frameWidth
        height = c.frameHeight
        switch c.bitstream {
        case .lossy:
            let decoded = try VP8FrameDecoder.decode(file, chunk: c.image)
            planes = decoded
            if let range = c.alpha {
                alpha = try WebPAlphaDecoder.decode(file, range, width: width, height: height)
            }
        case .lossless:
            argb = try VP8LDecoder.decode(file, c.image).argb
        }
    }

    /// Row `y` as `channels` (3 or 4) bytes per pixel; alpha is 255 where the frame has none.
    func row(_ y: Int, channels: Int, into out: UnsafeMutablePointer<UInt8>) {
        if let planes {
            planes.y.withUnsafeBufferPointer { yp in
                planes.u.withUnsafeBufferPointer { up in
                    planes.v.withUnsafeBufferPointer { vp in
                        if let alpha {
                            alpha.withUnsafeBufferPointer { ap in
                                convertRow(yp.baseAddress!, y, width, height, planes.yStride, up.baseAddress!, vp.baseAddress!,
                                           planes.uvStride, ap.baseAddress!, channels, out)
                            }
                        } else {
                            convertRow(yp.baseAddress!, y, width, height, planes.yStride, up.baseAddress!, vp.baseAddress!,
                                       planes.uvStride, nil, channels, out)
                        }
                    }
                }
            }
        } else if let argb {
            argb.withUnsafeBufferPointer { p in
                let row = p.baseAddress! + y * width
                // 0xAARRGGBB byte-swapped is B G R A from the top: one swap and a rotate give the
                // R, G, B(, A) bytes in memory order, stored as one 32-bit word per pixel (for RGB
                // words 3 bytes apart, the spare byte overwritten by the next pixel).
                let raw = UnsafeMutableRawPointer(out)
                if channels == 4 {
                    for x in 0..<width {
                        let swapped = row[x].byteSwapped
                        raw.storeBytes(of: (swapped &>> 8) | (swapped &<< 24), toByteOffset: x &* 4, as: UInt32.self)
                    }
                } else {
                    for x in 0..<(width &- 1) {
                        raw.storeBytes(of: row[x].byteSwapped &>> 8, toByteOffset: x &* 3, as: UInt32.self)
                    }
                    let v = row[width &- 1], o = out + (width &- 1) &* 3
                    o[0] = UInt8(truncatingIfNeeded: v >> 16)
                    o[1] = UInt8(truncatingIfNeeded: v >> 8)
                    o[2] = UInt8(truncatingIfNeeded: v)
                }
            }
        }
    }
}
