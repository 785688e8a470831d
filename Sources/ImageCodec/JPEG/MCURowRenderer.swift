/// Turns iMCU rows of component samples into output pixels.
///
/// Each component plane lives in a ring of three iMCU rows: the row being output and its
/// neighbours, which fancy vertical upsampling reads as context (libjpeg `jdmainct.c`). The
/// scan decoders IDCT straight into the ring, and `emit(band:)` runs once the next band is in,
/// so a sequential file never holds more than three iMCU rows of samples per component.
///
/// The output is either the whole bitmap (row y at `output + y × rowBytes`) or, with a
/// `sink`, a buffer of `handOverRows(for:)` rows (about 128 KB) reused from top to bottom and
/// handed to the sink each time it is full (`JPEGDecoder.decodeRows`): no whole-image buffer.
final class MCURowRenderer {
    let plan: DecodePlan
    private let rings: [UnsafeMutablePointer<UInt8>]
    private let upsampled: [UnsafeMutablePointer<UInt8>]
    /// Dequantisation tables per component, natural order; zero until the component's first
    /// scan latches its table (libjpeg leaves a never-scanned component's multipliers zero).
    let quant: [UnsafeMutablePointer<UInt16>]
    private(set) var quantLatched: [Bool]
    /// A 64-coefficient scratch block, kept zero between uses.
    let scratch: UnsafeMutablePointer<Int16>
    /// The kernel build chosen for this CPU, read once per decode (tests pass either set).
    let kernels: KernelDispatch
    /// The output bitmap's samples, or the hand-over buffer when `sink` is set; and the row size.
    let output: UnsafeMutablePointer<UInt8>
    let outputRowBytes: Int
    /// Receives the converted rows; nil when `output` is the whole bitmap.
    private let sink: (any DecodedRowSink)?
    /// With a sink: rows the hand-over buffer holds, and how many of them are filled.
    private let handOver: Int
    private var held = 0
    /// CMYK/YCCK files with an embedded profile: the ICC conversion replacing the naive one.
    private let cmykTransform: ColourTransform?
    /// Three output-width rows for YCCK's converted C, M, Y on the ICC path.
    private let cmyRows: UnsafeMutablePointer<UInt8>?

    /// `output` holds the whole image, or `handOverRows(for: plan)` rows when `sink` is set.
    init(plan: DecodePlan, output: UnsafeMutablePointer<UInt8>, cmyk: ColourTransform? = nil,
         sink: (any DecodedRowSink)? = nil, kernels: KernelDispatch = .selected) {
        self.plan = plan
        self.output = output
        self.sink = sink
        handOver = MCURowRenderer.handOverRows(for: plan)
        self.kernels = kernels
        let transform = cmyk?.convertsCMYK == true && plan.components.count == 4 ? cmyk : nil
        cmykTransform = transform
        if transform != nil, plan.colorSpace == .ycck {
            let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * plan.outWidth)
            rows.initialize(repeating: 0, count: 3 * plan.outWidth)
            cmyRows = rows
        } else {
            cmyRows = nil
        }
        outputRowBytes = plan.outWidth * (plan.colorSpace == .gray ? 1 : 3)
        var r: [UnsafeMutablePointer<UInt8>] = [], u: [UnsafeMutablePointer<UInt8>] = []
        var q: [UnsafeMutablePointer<UInt16>] = []
        for c in plan.components {
            let ringBytes = MCURowRenderer.ringBytes(c)
            let ring = UnsafeMutablePointer<UInt8>.allocate(capacity: ringBytes)
            ring.initialize(repeating: 128, count: ringBytes)
            r.append(ring)
            let upBytes = MCURowRenderer.upsampledBytes(c)
            let up = UnsafeMutablePointer<UInt8>.allocate(capacity: upBytes)
            up.initialize(repeating: 0, count: upBytes)
            u.append(up)
            let qt = UnsafeMutablePointer<UInt16>.allocate(capacity: 64)
            qt.initialize(repeating: 0, count: 64)
            q.append(qt)
        }
        rings = r
        upsampled = u
        quant = q
        quantLatched = [Bool](repeating: false, count: plan.components.count)
        scratch = .allocate(capacity: 64)
        scratch.initialize(repeating: 0, count: 64)
    }

    /// One component's ring: three iMCU rows of samples. The factors come from a frame of at
    /// most 65,535 × 65,535 pixels, so the product stays far below `Int.max`.
    static func ringBytes(_ c: ComponentPlan) -> Int { 3 * c.bandRows * c.rowStride }

    /// One component's upsampled row, with room for the vector loops' overrun.
    static func upsampledBytes(_ c: ComponentPlan) -> Int { c.rowStride * c.hFactor + 32 }

    /// Rows handed to a sink at a time: as many as fit in 128 KB, at least one and at most the
    /// image. Measured on the 17.9 MP 4:2:2 photo (`gallery decode` to a PPM): one row per
    /// write(2) (17 KB, meant to stay in L1) cost 15 ms more system time than 8-row bands and
    /// no less user time; at 1/8 a band is one 2 KB row, and 397 writes cost a few ms.
    static func handOverRows(for plan: DecodePlan) -> Int {
        let rowBytes = max(1, plan.outWidth * (plan.colorSpace == .gray ? 1 : 3))
        return max(1, min(plan.outHeight, (128 << 10) / rowBytes))
    }

    /// Everything `init` allocates (rings, upsampled rows, quantisation tables, scratch), for
    /// the decoder's memory estimate.
    static func bufferBytes(for plan: DecodePlan) -> Int? {
        let cmy = plan.components.count == 4 ? 3 * plan.outWidth : 0
        return DecodeMemoryEstimate.sum(plan.components.map { ringBytes($0) + upsampledBytes($0) + 64 * 2 } + [64 * 2, cmy])
    }

    deinit {
        for p in rings { p.deallocate() }
        for p in upsampled { p.deallocate() }
        for p in quant { p.deallocate() }
        scratch.deallocate()
        cmyRows?.deallocate()
    }

    /// Copies the component's quantisation table the first time a scan includes it, as
    /// libjpeg's `latch_quant_tables` does; later DQTs do not change it.
    func latchQuant(component c: Int, table: [UInt16]) {
        guard !quantLatched[c], table.count == 64 else { return }
        for i in 0..<64 { quant[c][i] = table[i] }
        quantLatched[c] = true
    }

    /// Top-left sample of block row `by` (within the iMCU row) of `band` for component `c`.
    @inline(__always) func blockRow(_ c: Int, band: Int, by: Int) -> UnsafeMutablePointer<UInt8> {
        let p = plan.components[c]
        return rings[c] + ((band % 3) &* p.bandRows &+ by &* p.idctSize) &* p.rowStride
    }

    @inline(__always) private func planeRow(_ c: Int, _ r: Int) -> UnsafeMutablePointer<UInt8> {
        let p = plan.components[c]
        return rings[c] + (r % (3 &* p.bandRows)) &* p.rowStride
    }

    /// Dequantises and transforms one natural-order block into `out`.
    /// `idct8` is the 8×8 kernel of the renderer's `kernels`.
    @inline(__always) static func idct(size: Int, _ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                                       _ out: UnsafeMutablePointer<UInt8>, _ stride: Int, _ idct8: KernelDispatch.IDCT) {
        switch size {
        case 8: idct8(coef, quant, out, stride)
        case 4: ScaledIDCT.idct4x4(coef, quant, out, stride)
        case 2: ScaledIDCT.idct2x2(coef, quant, out, stride)
        default: ScaledIDCT.idct1x1(coef, quant, out, stride)
        }
    }

    /// An all-zero block: mid grey, what libjpeg shows for blocks it could not decode.
    @inline(__always) static func fillGrey(size: Int, _ out: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        for y in 0..<size { (out + y &* stride).update(repeating: 128, count: size) }
    }

    /// Transforms iMCU row `band` of every component from the coefficient store (a whole-image
    /// store, or a band store holding this band). Smoothing needs a whole-image store.
    func fill(band: Int, from store: CoefficientStore, smoother: BlockSmoother?) {
        let idct8 = kernels.idct8x8
        for (c, p) in plan.components.enumerated() {
            let q = UnsafePointer(quant[c])
            for by in 0..<p.v {
                let row = band &* p.v &+ by
                let storeRow = row % store.planes[c].blocksHigh
                let dst = blockRow(c, band: band, by: by)
                for bx in 0..<p.blocksWide {
                    if smoother == nil, let block = store.naturalBlock(component: c, bx: bx, row: storeRow) {
                        MCURowRenderer.idct(size: p.idctSize, block, q, dst + bx &* p.idctSize, p.rowStride, idct8)
                        continue
                    }
                    store.expand(component: c, bx: bx, row: storeRow, into: scratch)
                    if let smoother, bx < p.dataBlocksWide, row < p.dataBlocksHigh {
                        smoother.apply(component: c, plan: p, band: band, by: by, bx: bx, store: store, coef: scratch)
                    }
                    MCURowRenderer.idct(size: p.idctSize, scratch, q, dst + bx &* p.idctSize, p.rowStride, idct8)
                }
            }
        }
    }

    /// Renders the whole image from a complete coefficient store, smoothing blocks when
    /// `smoother` is set (incomplete progressive data).
    func render(from store: CoefficientStore, smoother: BlockSmoother?) throws {
        for band in 0..<plan.bands {
            fill(band: band, from: store, smoother: smoother)
            if band > 0 { try emit(band: band - 1) }
        }
        try emit(band: plan.bands - 1)
    }

    /// Upsamples, converts and writes the output rows of iMCU row `band`, handing the buffer to
    /// the sink (if there is one; its error ends the decode) whenever it is full and after the
    /// image's last row. Bands `band - 1` and `band + 1` (where they exist) must still be in
    /// the rings.
    func emit(band: Int) throws {
        let first = band * plan.bandOutputRows
        let last = min(plan.outHeight, first + plan.bandOutputRows)
        guard first < last else { return }
        let n = plan.components.count
        var rows = [UnsafePointer<UInt8>](repeating: UnsafePointer(upsampled[0]), count: n)
        for y in first..<last {
            for (c, p) in plan.components.enumerated() {
                let r = y / p.vFactor
                let near = planeRow(c, r)
                let up = upsampled[c]
                switch p.method {
                case .none:
                    rows[c] = UnsafePointer(near)
                case .fancyH2V1:
                    kernels.fancyH2V1(near, p.planeWidth, up)
                    rows[c] = UnsafePointer(up)
                case .fancyH1V2, .fancyH2V2:
                    let upper = y & 1 == 0
                    let farRow = upper ? max(r - 1, 0) : min(r + 1, p.planeHeight - 1)
                    let far = planeRow(c, farRow)
                    if p.method == .fancyH1V2 {
                        Upsampler.fancyH1V2(near: near, far: far, width: p.planeWidth, upper: upper, up)
                    } else {
                        kernels.fancyH2V2(near, far, p.planeWidth, up)
                    }
                    rows[c] = UnsafePointer(up)
                case .replicate:
                    if p.hFactor == 1 {
                        rows[c] = UnsafePointer(near)
                    } else {
                        Upsampler.replicate(near, width: p.planeWidth, factor: p.hFactor, up)
                        rows[c] = UnsafePointer(up)
                    }
                }
            }
            let out = output + (sink == nil ? y : held) &* outputRowBytes
            let w = plan.outWidth
            switch plan.colorSpace {
            case .gray: out.update(from: rows[0], count: w)
            case .ycbcr: kernels.ycbcrToRGB(rows[0], rows[1], rows[2], w, out)
            case .rgb: ColourToRGB.interleaveRGB(r: rows[0], g: rows[1], b: rows[2], count: w, out)
            case .cmyk:
                if let t = cmykTransform {
                    t.convertCMYK(c: rows[0], m: rows[1], y: rows[2], k: rows[3], count: w, inverted: true, out)
                } else {
                    ColourToRGB.cmykToRGB(c: rows[0], m: rows[1], y: rows[2], k: rows[3], count: w, out)
                }
            case .ycck:
                if let t = cmykTransform, let cmy = cmyRows {
                    ColourToRGB.ycckToCMY(y: rows[0], cb: rows[1], cr: rows[2], count: w, c: cmy, m: cmy + w, yellow: cmy + 2 &* w)
                    t.convertCMYK(c: cmy, m: cmy + w, y: cmy + 2 &* w, k: rows[3], count: w, inverted: true, out)
                } else {
                    ColourToRGB.ycckToRGB(y: rows[0], cb: rows[1], cr: rows[2], k: rows[3], count: w, out)
                }
            }
            if let sink {
                held &+= 1
                if held == handOver || y == plan.outHeight &- 1 {
                    let count = held
                    held = 0
                    try sink.write(UnsafeBufferPointer(start: output, count: count &* outputRowBytes), first: y &+ 1 &- count, count: count)
                }
            }
        }
    }
}
