/// Baseline and progressive 8-bit Huffman JPEG decoding that matches libjpeg-turbo 2.1.5
/// `djpeg -dct int` at 1/8, 2/8, 4/8 and 8/8 (docs/jpeg-decoding.md says how, step by step).
///
/// Data flow: `JPEGMarkerReader` (headers) → `DecodePlan` (per-component IDCT size and
/// upsampling, decided once) → `BaselineScanDecoder` (one sequential scan streamed through
/// `MCURowRenderer` iMCU row by iMCU row) or `ProgressiveScanDecoder` /
/// `BaselineScanDecoder.decodeIntoStore` (multi-scan files, into `CoefficientStore`, rendered
/// after the last scan) → `ScaledIDCT`, `Upsampler`, `ColourToRGB`.
enum JPEGDecoder {
    /// Reads the headers up to the first scan. Throws `.unsupported` for arithmetic, lossless
    /// and 12-bit files, `.limitExceeded` when the size is over `limits`.
    static func probe(_ bytes: [UInt8], limits: DecodeLimits) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { buf in
            var warnings: [String] = []
            let h = try readHeaders(buf, limits: limits, warnings: &warnings)
            return info(h)
        }
    }

    /// Decodes at `scale`/8 (1, 2, 4 or 8). Recoverable damage (truncated or corrupt entropy
    /// data, bad restart markers) gives an image plus `warnings`, as libjpeg does. Throws
    /// `.limitExceeded` before allocating when the buffers would pass `limits.maxMemoryBytes`.
    /// `cmyk`, for 4-component files, replaces the naive CMYK → RGB step with an ICC conversion.
    /// `bands: false` keeps a well-formed progressive file in the whole-image store too (tests
    /// compare the two ways).
    static func decode(_ bytes: [UInt8], scale: Int, limits: DecodeLimits, cmyk: ColourTransform? = nil,
                       bands allowBands: Bool = true, kernels: KernelDispatch = .selected) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { throw ImageCodecError(.truncated, "empty JPEG input") }
            var warnings: [String] = []
            var h = try readHeaders(buf, limits: limits, warnings: &warnings)
            let sizing = try Sizing(h, scale: scale, limits: limits)
            try limits.check(sizing.memory)
            let count = sizing.outputBytes
            // Every output row is written by the renderer (grey where data is missing), so
            // the pixels need no zero fill first.
            let pixels = try [UInt8](unsafeUninitializedCapacity: count) { px, initialized in
                guard let out = px.baseAddress else { return }
                try render(base, buf.count, &h, sizing, limits: limits, cmyk: cmyk, output: out, sink: nil, kernels: kernels,
                           bands: allowBands, warnings: &warnings)
                initialized = count
            }
            let bitmap = try Bitmap(width: sizing.plan.outWidth, height: sizing.plan.outHeight, layout: sizing.layout, pixels: pixels)
            return DecodedImage(bitmap: bitmap, info: info(h), warnings: warnings)
        }
    }

    /// `decode` handing the output rows to `sink` from one reused buffer of about 128 KB
    /// (`ImageCodec.decodeRows`, `MCURowRenderer.handOverRows`): the same pixels, without the
    /// whole bitmap. The memory limit is checked with that buffer in place of the bitmap,
    /// before anything is allocated.
    static func decodeRows(_ bytes: [UInt8], scale: Int, limits: DecodeLimits, cmyk: ColourTransform? = nil,
                           kernels: KernelDispatch = .selected, into sink: any DecodedRowSink) throws -> DecodedRows {
        try bytes.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { throw ImageCodecError(.truncated, "empty JPEG input") }
            var warnings: [String] = []
            var h = try readHeaders(buf, limits: limits, warnings: &warnings)
            let sizing = try Sizing(h, scale: scale, limits: limits, streaming: true)
            try limits.check(sizing.memory)
            let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: sizing.outputBytes)
            defer { rows.deallocate() }
            try sink.begin(width: sizing.plan.outWidth, height: sizing.plan.outHeight, layout: sizing.layout)
            try render(base, buf.count, &h, sizing, limits: limits, cmyk: cmyk, output: rows, sink: sink, kernels: kernels,
                       bands: true, warnings: &warnings)
            return DecodedRows(info: info(h), warnings: warnings)
        }
    }

    /// Decodes every scan into `output` (the whole bitmap, or rows handed to `sink`):
    /// band by band for a well-formed progressive file (unless `allowBands` is false, which
    /// tests use to compare the two ways), else streamed (one sequential scan) or through the
    /// whole-image coefficient store.
    private static func render(_ base: UnsafePointer<UInt8>, _ count: Int, _ h: inout Headers, _ sizing: Sizing, limits: DecodeLimits,
                               cmyk: ColourTransform?, output: UnsafeMutablePointer<UInt8>, sink: (any DecodedRowSink)?,
                               kernels: KernelDispatch, bands allowBands: Bool, warnings: inout [String]) throws {
        let plan = sizing.plan
        if let bands = sizing.bands {
            if allowBands {
                let store = try CoefficientStore(plan: plan, band: true)
                var found = warnings
                let renderer = MCURowRenderer(plan: plan, output: output, cmyk: cmyk, sink: sink, kernels: kernels)
                if try ProgressiveBandDecoder.decode(bands, h, plan: plan, store: store, renderer: renderer, warnings: &found) {
                    h.metadata = bands.metadata
                    warnings = found
                    return
                }
            }
            try limits.check(memoryEstimate(h.frame, plan: plan, multiScan: true, bands: false,
                                            outputBytes: sizing.outputBytes, streaming: sink != nil))
        }
        let store = sizing.multiScan ? try CoefficientStore(plan: plan) : nil
        let renderer = MCURowRenderer(plan: plan, output: output, cmyk: cmyk, sink: sink, kernels: kernels)
        var reader = BitReader(base: base, count: count, pos: h.marker.pos)
        try latchQuantTables(h.firstScan, h, renderer)
        if let store {
            var progression = ProgressionState(components: h.frame.components.count)
            try decodeScans(&reader, &h, plan: plan, store: store, renderer: renderer,
                            progression: &progression, limits: limits, warnings: &warnings)
            let smoother = h.frame.progressive
                ? BlockSmoother(progression: progression, plan: plan, store: store, renderer: renderer) : nil
            try renderer.render(from: store, smoother: smoother)
        } else {
            try BaselineScanDecoder.decodeStreaming(&reader, scan: h.firstScan, frame: h.frame, tables: h.tables,
                                                    renderer: renderer, warnings: &warnings)
            if reader.hitEndOfInput { warnings.append("premature end of JPEG file") }
        }
    }

    /// The buffers `decode` would allocate at `scale`/8, from the headers alone, checked
    /// against `limits` exactly as `decode` checks them (`ImageCodec.memoryEstimate`).
    static func memoryEstimate(_ bytes: [UInt8], scale: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        try bytes.withUnsafeBufferPointer { buf in
            var warnings: [String] = []
            let h = try readHeaders(buf, limits: limits, warnings: &warnings)
            return try Sizing(h, scale: scale, limits: limits).memory
        }
    }

    /// What a decode at one scale allocates, decided from the headers: `decode` allocates by
    /// it and `memoryEstimate` reports it, so the two cannot drift apart.
    struct Sizing {
        let plan: DecodePlan
        let layout: Bitmap.Layout
        /// The whole bitmap, or the renderer's hand-over buffer when streaming.
        let outputBytes: Int
        /// Progressive, or sequential with components spread over several scans: decoded into
        /// a coefficient store and rendered after the last scan.
        let multiScan: Bool
        /// A well-formed progressive file: decoded band by band (`ProgressiveBandDecoder`).
        let bands: ProgressiveScanLayout?
        let memory: DecodeMemoryEstimate

        init(_ h: Headers, scale: Int, limits: DecodeLimits, streaming: Bool = false) throws {
            let colorSpace = JPEGColorSpace(frame: h.frame, metadata: h.metadata)
            plan = try DecodePlan(frame: h.frame, scale: scale, colorSpace: colorSpace)
            layout = colorSpace == .gray ? .gray : .rgb
            let rows = streaming ? MCURowRenderer.handOverRows(for: plan) : plan.outHeight
            outputBytes = try Bitmap.byteCount(width: plan.outWidth, height: rows, layout: layout)
            multiScan = h.frame.progressive || h.firstScan.components.count < h.frame.components.count
            bands = ProgressiveScanLayout(h, limits: limits)
            memory = JPEGDecoder.memoryEstimate(h.frame, plan: plan, multiScan: multiScan, bands: bands != nil,
                                                outputBytes: outputBytes, streaming: streaming)
        }
    }

    /// The buffers `decode` allocates at the plan's scale: the coefficient store of a
    /// multi-scan file (the whole image, only the positions the scaled IDCT reads; one iMCU
    /// row when decoded band by band), the renderer's band rings and rows, and the output bitmap
    /// (the renderer's hand-over rows when `streaming`).
    static func memoryEstimate(_ frame: JPEGFrame, plan: DecodePlan, multiScan: Bool, bands: Bool, outputBytes: Int,
                               streaming: Bool = false) -> DecodeMemoryEstimate {
        let kind = frame.progressive ? "progressive" : multiScan ? "multi-scan sequential" : "sequential"
        var estimate = DecodeMemoryEstimate("\(kind) JPEG \(frame.width)x\(frame.height) at \(plan.scale)/8")
        if multiScan { estimate.add(bands ? "coefficients (one band)" : "coefficients", bytes: CoefficientStore.byteCount(for: plan, band: bands)) }
        estimate.add("rows", bytes: MCURowRenderer.bufferBytes(for: plan))
        estimate.add(streaming ? "output rows" : "output", bytes: outputBytes)
        return estimate
    }

    /// Each component keeps the quantisation table current at its first scan.
    static func latchQuantTables(_ scan: JPEGScanHeader, _ h: Headers, _ renderer: MCURowRenderer) throws {
        try latchQuantTables(scan, h.frame, h.tables, renderer)
    }

    static func latchQuantTables(_ scan: JPEGScanHeader, _ frame: JPEGFrame, _ tables: JPEGTables, _ renderer: MCURowRenderer) throws {
        for c in scan.components {
            let slot = frame.components[c].quantSlot
            if let q = tables.quant[slot] {
                renderer.latchQuant(component: c, table: q)
            } else if !renderer.quantLatched[c] {
                throw ImageCodecError(.corrupt, "quantisation table \(slot) was not defined")
            }
        }
    }

    /// Runs every scan of a multi-scan file into `store`, reading the tables and markers
    /// between scans, until EOI or the end of the input.
    static func decodeScans(_ reader: inout BitReader, _ h: inout Headers, plan: DecodePlan, store: CoefficientStore,
                            renderer: MCURowRenderer, progression: inout ProgressionState,
                            limits: DecodeLimits, warnings: inout [String]) throws {
        var scan = h.firstScan
        var scans = 1
        while true {
            if h.frame.progressive {
                progression.startScan(scan)
                var decoder = try ProgressiveScanDecoder(scan: scan, tables: h.tables, reader: reader)
                decoder.decode(throughBand: plan.bands - 1, frame: h.frame, plan: plan, store: store,
                               lastGoodIMCURow: &progression.lastGoodIMCURow)
                reader = decoder.reader
                warnings += decoder.warnings
            } else {
                try BaselineScanDecoder.decodeIntoStore(&reader, scan: scan, frame: h.frame, tables: h.tables,
                                                        plan: plan, store: store, scratch: renderer.scratch,
                                                        warnings: &warnings)
            }
            h.marker.pos = reader.pos
            var pending: UInt8? = reader.marker != 0 ? reader.marker : nil
            var next: JPEGScanHeader?
            while next == nil {
                var skipped = 0
                let m: UInt8
                if let p = pending {
                    m = p
                    pending = nil
                } else if let found = h.marker.nextMarker(skipped: &skipped) {
                    m = found
                } else {
                    warnings.append("premature end of JPEG file")
                    return
                }
                if skipped > 0 { warnings.append("corrupt JPEG data: \(skipped) extraneous bytes before marker 0x\(hex(m))") }
                if m == 0xD9 { return }
                if m == 0xDA {
                    next = try JPEGScanHeader(payload: try h.marker.segment(), frame: h.frame)
                } else {
                    try handleTableMarker(m, &h.marker, &h.tables, &h.metadata)
                }
            }
            guard let following = next else { return }
            scans += 1
            guard scans <= limits.maxScans else {
                throw ImageCodecError(.limitExceeded, "JPEG has more than \(limits.maxScans) scans")
            }
            scan = following
            try latchQuantTables(scan, h, renderer)
            reader = BitReader(base: reader.base, count: reader.count, pos: h.marker.pos)
        }
    }

    /// Headers up to and including the first SOS.
    struct Headers {
        var marker: JPEGMarkerReader
        var frame: JPEGFrame
        var tables: JPEGTables
        var metadata: JPEGMetadata
        var firstScan: JPEGScanHeader
    }

    static func readHeaders(_ buf: UnsafeBufferPointer<UInt8>, limits: DecodeLimits, warnings: inout [String]) throws -> Headers {
        var r = JPEGMarkerReader(buf)
        try r.readSOI()
        var tables = JPEGTables()
        var metadata = JPEGMetadata()
        var frame: JPEGFrame?
        while true {
            var skipped = 0
            guard let m = r.nextMarker(skipped: &skipped) else {
                throw ImageCodecError(.truncated, "JPEG file ends before the first scan")
            }
            if skipped > 0 { warnings.append("corrupt JPEG data: \(skipped) extraneous bytes before marker 0x\(hex(m))") }
            switch m {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                guard frame == nil else { throw ImageCodecError(.corrupt, "duplicate SOF marker") }
                frame = try JPEGFrame(marker: m, payload: try r.segment(), limits: limits)
            case 0xDA:
                guard let f = frame else { throw ImageCodecError(.corrupt, "SOS before SOF") }
                let scan = try JPEGScanHeader(payload: try r.segment(), frame: f)
                return Headers(marker: r, frame: f, tables: tables, metadata: metadata, firstScan: scan)
            case 0xD9:
                throw ImageCodecError(.corrupt, "JPEG file has no image (EOI before the first scan)")
            case 0xD8:
                throw ImageCodecError(.corrupt, "duplicate SOI marker")
            default:
                try handleTableMarker(m, &r, &tables, &metadata)
            }
        }
    }

    /// Markers allowed between scans and before the frame: tables, restart interval, APPn,
    /// COM, stray RSTn/TEM (ignored as libjpeg does). Anything else is an error.
    static func handleTableMarker(_ m: UInt8, _ r: inout JPEGMarkerReader, _ tables: inout JPEGTables,
                                  _ metadata: inout JPEGMetadata) throws {
        switch m {
        case 0xC4: try tables.readDHT(try r.segment())
        case 0xDB: try tables.readDQT(try r.segment())
        case 0xDD: try tables.readDRI(try r.segment())
        case 0xE0...0xEF: metadata.readAPP(m, try r.segment())
        case 0xFE, 0xDC: _ = try r.segment()
        case 0xCC: throw ImageCodecError(.unsupported, "arithmetic-coded JPEG (DAC) is not supported")
        case 0xD0...0xD7, 0x01: break
        case 0xC0...0xCF: throw ImageCodecError(.corrupt, "unexpected SOF marker 0x\(hex(m))")
        default: throw ImageCodecError(.corrupt, "unsupported JPEG marker 0x\(hex(m))")
        }
    }

    static func info(_ h: Headers) -> ImageInfo {
        let cs = JPEGColorSpace(frame: h.frame, metadata: h.metadata)
        let exif = h.metadata.exif ?? ExifMetadata()
        var info = ImageInfo(format: .jpeg, width: h.frame.width, height: h.frame.height,
                             components: h.frame.components.count, hasAlpha: false, bitDepth: 8,
                             progressive: h.frame.progressive, colorSpace: cs.rawValue,
                             sampling: h.frame.components.map { "\($0.h)x\($0.v)" },
                             exif: exif, iccProfile: h.metadata.iccProfile)
        info.text = h.metadata.embedded.text(exif: exif.text)
        return info
    }

    static func hex(_ b: UInt8) -> String {
        let d = Array("0123456789ABCDEF")
        return String([d[Int(b >> 4)], d[Int(b & 15)]])
    }
}
