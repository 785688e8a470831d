/// `iovl` derived images (ISO/IEC 23008-12 §6.6.2.3): a canvas of a fill colour on which the
/// `dimg` inputs are drawn in reference order, each at a signed offset and clipped to the
/// canvas. The item's data is
///
///     version (8) = 0, flags (8), canvas_fill_value[4] (16 each: R, G, B, A),
///     output_width, output_height (16 or 32 bits: flags & 1),
///     per input: horizontal_offset, vertical_offset (signed, same size)
///
/// As in libheif 1.23 the canvas is 8-bit RGB without alpha: the fill keeps the high byte of
/// each 16-bit value and ignores A, and every input is drawn opaque (its own alpha item, if
/// any, is not read). Inputs are coded items, grids or `iden` items with their own
/// transforms; an overlay of overlays is refused (`.unsupported`).

/// One input of an overlay: its picture and where its top-left corner goes on the canvas.
struct HEIFOverlayInput {
    var plan: HEIFPicturePlan
    /// Canvas position of the input's displayed top-left pixel; may be negative or past the canvas.
    var x: Int
    var y: Int
}

struct HEIFOverlay {
    /// Canvas fill as 8-bit R, G, B.
    var fill: (r: UInt8, g: UInt8, b: UInt8)
    var inputs: [HEIFOverlayInput]

    /// The parsed `iovl` data before its inputs are resolved.
    struct Layout {
        var fill: (r: UInt8, g: UInt8, b: UInt8)
        var width: Int
        var height: Int
        var offsets: [(x: Int, y: Int)]
    }

    /// Reads the item data of an overlay with `inputCount` `dimg` references. Every field is
    /// checked: version 0 only, data long enough for all offsets, a canvas within `limits`.
    static func parse(_ data: [UInt8], itemID: Int, inputCount: Int, limits: DecodeLimits) throws -> Layout {
        var r = HEIFByteReader(data, from: 0, to: data.count, context: "'iovl' item \(itemID)")
        let version = try r.u8()
        guard version == 0 else { throw ImageCodecError(.unsupported, "'iovl' item \(itemID) version \(version)") }
        let flags = try r.u8()
        let fieldSize = flags & 1 != 0 ? 4 : 2
        var fill: [UInt8] = []
        for _ in 0..<4 { fill.append(UInt8(truncatingIfNeeded: try r.u16() >> 8)) }
        let width = try r.uint(fieldSize), height = try r.uint(fieldSize)
        // The offsets must all be there before anything else is believed (libheif's check).
        let (offsetBytes, overflow) = inputCount.multipliedReportingOverflow(by: 2 * fieldSize)
        guard !overflow, offsetBytes <= r.remaining else {
            throw ImageCodecError(.corrupt, "'iovl' item \(itemID) has \(r.remaining) bytes of offsets for \(inputCount) inputs")
        }
        try limits.check(width: width, height: height)
        var offsets: [(x: Int, y: Int)] = []
        offsets.reserveCapacity(inputCount)
        for _ in 0..<inputCount {
            offsets.append((try r.signed(fieldSize), try r.signed(fieldSize)))
        }
        return Layout(fill: (fill[0], fill[1], fill[2]), width: width, height: height, offsets: offsets)
    }
}

extension HEIFByteReader {
    /// A big-endian two's-complement integer of 2 or 4 bytes.
    mutating func signed(_ size: Int) throws -> Int {
        let v = try uint(size)
        return size == 2 ? Int(Int16(truncatingIfNeeded: v)) : Int(Int32(truncatingIfNeeded: v))
    }
}

extension HEIFImageGraph {
    /// Most inputs an overlay may draw (each is decoded in full before it is drawn).
    static let maxOverlayInputs = 256

    /// The plan of `iovl` item `id`: a canvas-sized picture with no tiles of its own whose
    /// `overlay` lists the input pictures. `path` already ends with `id`.
    static func overlayPlan(_ c: HEIFContainer, id: Int, props: [(property: HEIFProperty, essential: Bool)],
                            limits: DecodeLimits, path: [Int]) throws -> HEIFPicturePlan {
        let inputIDs = c.references(FourCC("dimg"), from: id)
        guard !inputIDs.isEmpty else { throw ImageCodecError(.corrupt, "'iovl' item \(id) has no inputs") }
        guard inputIDs.count <= maxOverlayInputs else {
            throw ImageCodecError(.limitExceeded, "'iovl' item \(id) has \(inputIDs.count) inputs (at most \(maxOverlayInputs))")
        }
        let layout = try HEIFOverlay.parse(Array(try c.data(of: id, limits: limits)), itemID: id, inputCount: inputIDs.count, limits: limits)
        var inputs: [HEIFOverlayInput] = []
        // Each input is decoded in full, even when it repeats: all of them together may not
        // exceed the pixel limit, so many draws of one big item cannot multiply the work.
        var inputPixels = 0
        for (inputID, offset) in zip(inputIDs, layout.offsets) {
            guard inputID != id else { throw ImageCodecError(.corrupt, "'iovl' item \(id) draws itself") }
            let input = try plan(c, id: inputID, limits: limits, path: path)
            guard input.overlay == nil else { throw ImageCodecError(.unsupported, "'iovl' item \(id) draws another overlay (\(inputID))") }
            let (sum, overflow) = inputPixels.addingReportingOverflow(input.displayWidth * input.displayHeight)
            guard !overflow, sum <= limits.maxPixels else {
                throw ImageCodecError(.limitExceeded, "'iovl' item \(id) inputs have more than \(limits.maxPixels) pixels in all")
            }
            inputPixels = sum
            // The far edge must still be a 32-bit canvas coordinate, as the format's are.
            guard offset.x + input.displayWidth <= Int(Int32.max), offset.y + input.displayHeight <= Int(Int32.max) else {
                throw ImageCodecError(.corrupt, "'iovl' item \(id) places input \(inputID) past the largest canvas coordinate")
            }
            inputs.append(HEIFOverlayInput(plan: input, x: offset.x, y: offset.y))
        }
        // The canvas is RGB whatever the inputs are; bit depths follow the first input (libheif).
        var configuration = inputs[0].plan.configuration
        if configuration.chromaFormat == .monochrome { configuration.chromaFormat = .yuv444 }
        var plan = HEIFPicturePlan(baseWidth: layout.width, baseHeight: layout.height, tiles: [], tileWidth: layout.width,
                                   tileHeight: layout.height, columns: 0, configuration: configuration,
                                   transform: HEIFTransform(width: layout.width, height: layout.height))
        for (p, _) in props {
            if case .icc(let i) = p, plan.icc == nil { plan.icc = i }
        }
        if plan.icc == nil { plan.icc = inputs[0].plan.icc }
        plan.overlay = HEIFOverlay(fill: layout.fill, inputs: inputs)
        return plan
    }
}
