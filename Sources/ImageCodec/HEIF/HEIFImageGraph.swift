/// Which items make the image a viewer shows, resolved from the container before anything is
/// decoded: the primary item (libheif's choice, see `primaryItem`), its grid tiles or `iden`
/// source, its transforms, colour properties, alpha item and EXIF. Every size is checked
/// against `DecodeLimits` here, and reference cycles, deep `iden` chains, oversized grids and
/// files that would decode far more pixels than they have coded bytes (`HEIFDecodeWork`) are
/// refused, so decoding starts only on a plan whose allocations and work are known.

/// One HEVC-coded item placed at (x, y) of a picture's untransformed image.
struct HEIFTile {
    let itemID: Int
    let x: Int
    let y: Int
}

/// A picture to decode: coded tiles covering a `baseWidth` × `baseHeight` image, then `transform`.
struct HEIFPicturePlan {
    var baseWidth: Int
    var baseHeight: Int
    /// Row-major; each `tileWidth` × `tileHeight` (the last row and column may reach past the base).
    var tiles: [HEIFTile]
    var tileWidth: Int
    var tileHeight: Int
    var columns: Int
    /// The coding configuration all tiles share.
    var configuration: HEVCConfiguration
    var transform: HEIFTransform
    var nclx: ColourCodePoints?
    var icc: [UInt8]?
    /// `iovl` items: the inputs drawn on the canvas (`tiles` is then empty).
    var overlay: HEIFOverlay?

    var displayWidth: Int { transform.displayWidth }
    var displayHeight: Int { transform.displayHeight }
}

struct HEIFImageGraph {
    /// Most tiles a grid may have (the format allows 256 × 256). A 200 MP camera grid has 768
    /// (512×512 tiles); each tile costs a few µs of planning and a decoder set-up, so this
    /// keeps both small while leaving 256 MP in 128×128 tiles possible.
    static let maxTiles = 16_384
    /// Longest chain of `iden` items followed.
    static let maxIdentityDepth = 8

    let container: HEIFContainer
    let primaryID: Int
    let primary: HEIFPicturePlan
    let alpha: HEIFPicturePlan?
    /// `prem` reference from the primary to its alpha: colour samples are premultiplied.
    let premultipliedAlpha: Bool
    let exif: ExifMetadata?
    /// The primary's XMP packet (a `mime` item of type `application/rdf+xml` describing it).
    let xmp: [UInt8]?
    /// `thmb` items of the primary that decode to a smaller image of the same aspect ratio
    /// (within 1 %), smallest first. Items whose structure is damaged are left out.
    let thumbnails: [(id: Int, plan: HEIFPicturePlan)]

    init(_ container: HEIFContainer, limits: DecodeLimits) throws {
        self.container = container
        primaryID = try Self.primaryItem(container)
        primary = try Self.plan(container, id: primaryID, limits: limits, path: [])
        var alphaPlan: HEIFPicturePlan?
        var alphaID: Int?
        // An overlay's canvas has no alpha (libheif 1.23).
        for id in container.referrers(FourCC("auxl"), to: primaryID) where primary.overlay == nil {
            let props = try container.properties(of: id)
            if props.contains(where: { if case .auxC(let urn) = $0.property { return heifAlphaURNs.contains(urn) } else { return false } }) {
                alphaPlan = try Self.plan(container, id: id, limits: limits, path: [primaryID])
                alphaID = id
                break
            }
        }
        alpha = alphaPlan
        try HEIFDecodeWork.check([primary] + (alphaPlan.map { [$0] } ?? []), container: container, limits: limits)
        let pid = primaryID
        premultipliedAlpha = alphaID.map { container.references(FourCC("prem"), from: pid).contains($0) } ?? false
        exif = Self.readExif(container, for: primaryID, limits: limits)
        xmp = Self.readXMP(container, for: primaryID, limits: limits)
        let main = primary
        thumbnails = container.referrers(FourCC("thmb"), to: primaryID).compactMap { id -> (id: Int, plan: HEIFPicturePlan)? in
            guard let plan = try? Self.plan(container, id: id, limits: limits, path: [pid]),
                  (try? HEIFDecodeWork.check([plan], container: container, limits: limits)) != nil else { return nil }
            let (tw, th, pw, ph) = (plan.displayWidth, plan.displayHeight, main.displayWidth, main.displayHeight)
            guard tw < pw, th < ph, abs(tw * ph - th * pw) * 100 <= tw * ph else { return nil }
            return (id, plan)
        }.sorted { $0.plan.displayWidth * $0.plan.displayHeight < $1.plan.displayWidth * $1.plan.displayHeight }
    }

    /// Image item types (libheif's list): only these can be the primary image.
    static let imageTypes: Set<FourCC> = [FourCC("hvc1"), FourCC("grid"), FourCC("iden"), FourCC("iovl"), FourCC("av01"),
                                          FourCC("avc1"), FourCC("unci"), FourCC("vvc1"), FourCC("jpeg"), FourCC("j2k1"),
                                          FourCC("tili"), FourCC("mski")]

    /// The `pitm` item when it is a shown image; otherwise the first image that is neither
    /// hidden, a thumbnail nor auxiliary (what libheif + pillow-heif show: one conformance
    /// file's `pitm` names a thumbnail).
    static func primaryItem(_ c: HEIFContainer) throws -> Int {
        let thumbnails = Set(c.references.filter { $0.type == FourCC("thmb") }.map(\.from))
        let auxiliary = Set(c.references.filter { $0.type == FourCC("auxl") }.map(\.from))
        let shown = c.items.filter { imageTypes.contains($0.type) && !$0.hidden && !thumbnails.contains($0.id) && !auxiliary.contains($0.id) }
        if let p = c.primaryID, shown.contains(where: { $0.id == p }) { return p }
        guard let first = shown.first else { throw ImageCodecError(.corrupt, "no displayable image item") }
        return first.id
    }

    /// The plan of image item `id`. `path` holds the items above it (a repeat is a cycle).
    static func plan(_ c: HEIFContainer, id: Int, limits: DecodeLimits, path: [Int]) throws -> HEIFPicturePlan {
        guard !path.contains(id) else { throw ImageCodecError(.corrupt, "item references form a cycle through item \(id)") }
        guard path.count <= maxIdentityDepth else { throw ImageCodecError(.unsupported, "derived images nest deeper than \(maxIdentityDepth)") }
        guard let item = c.itemsByID[id] else { throw ImageCodecError(.corrupt, "item \(id) does not exist") }
        let props = try c.properties(of: id)
        for (p, essential) in props where essential {
            if case .other(let type) = p { throw ImageCodecError(.unsupported, "item \(id) has an essential '\(type)' property we do not know") }
        }
        var plan: HEIFPicturePlan
        switch item.type {
        case FourCC("hvc1"):
            plan = try codedPlan(c, id: id, props: props, limits: limits)
        case FourCC("grid"):
            plan = try gridPlan(c, id: id, props: props, limits: limits)
        case FourCC("iovl"):
            plan = try overlayPlan(c, id: id, props: props, limits: limits, path: path + [id])
        case FourCC("iden"):
            let sources = c.references(FourCC("dimg"), from: id)
            guard sources.count == 1 else { throw ImageCodecError(.corrupt, "'iden' item \(id) has \(sources.count) sources") }
            plan = try self.plan(c, id: sources[0], limits: limits, path: path + [id])
            for (p, _) in props {
                if case .nclx(let n) = p { plan.nclx = n }
                if case .icc(let i) = p { plan.icc = i }
            }
        default:
            throw ImageCodecError(.unsupported, "item \(id) of type '\(item.type)' is not decoded")
        }
        for (p, _) in props where p.isTransform { try plan.transform.apply(p) }
        try limits.check(width: plan.displayWidth, height: plan.displayHeight)
        return plan
    }

    private static func size(_ props: [(property: HEIFProperty, essential: Bool)], id: Int) throws -> (Int, Int) {
        for (p, _) in props { if case .ispe(let w, let h) = p { return (w, h) } }
        throw ImageCodecError(.corrupt, "item \(id) has no 'ispe'")
    }

    private static func codedPlan(_ c: HEIFContainer, id: Int, props: [(property: HEIFProperty, essential: Bool)],
                                  limits: DecodeLimits) throws -> HEIFPicturePlan {
        guard let config = props.lazy.compactMap({ if case .hvcC(let h) = $0.property { return h } else { return nil } }).first else {
            throw ImageCodecError(.corrupt, "HEVC item \(id) has no 'hvcC'")
        }
        let (w, h) = try size(props, id: id)
        try limits.check(width: w, height: h)
        var plan = HEIFPicturePlan(baseWidth: w, baseHeight: h, tiles: [HEIFTile(itemID: id, x: 0, y: 0)], tileWidth: w, tileHeight: h,
                                   columns: 1, configuration: config, transform: HEIFTransform(width: w, height: h))
        colour(props, into: &plan)
        return plan
    }

    private static func colour(_ props: [(property: HEIFProperty, essential: Bool)], into plan: inout HEIFPicturePlan) {
        for (p, _) in props {
            if case .nclx(let n) = p, plan.nclx == nil { plan.nclx = n }
            if case .icc(let i) = p, plan.icc == nil { plan.icc = i }
        }
    }

    private static func gridPlan(_ c: HEIFContainer, id: Int, props: [(property: HEIFProperty, essential: Bool)],
                                 limits: DecodeLimits) throws -> HEIFPicturePlan {
        let data = Array(try c.data(of: id, limits: limits))
        var r = HEIFByteReader(data, from: 0, to: data.count, context: "grid item \(id)")
        let version = try r.u8()
        guard version == 0 else { throw ImageCodecError(.unsupported, "grid version \(version)") }
        let flags = try r.u8()
        let rows = try r.u8() + 1, columns = try r.u8() + 1
        let fieldSize = flags & 1 != 0 ? 4 : 2
        let width = try r.uint(fieldSize), height = try r.uint(fieldSize)
        try limits.check(width: width, height: height)
        let tileIDs = c.references(FourCC("dimg"), from: id)
        guard tileIDs.count == rows * columns else {
            throw ImageCodecError(.corrupt, "grid \(id) is \(columns)x\(rows) but references \(tileIDs.count) tiles")
        }
        guard tileIDs.count <= maxTiles else { throw ImageCodecError(.limitExceeded, "grid \(id) has \(tileIDs.count) tiles") }
        var first: HEIFPicturePlan?
        var tiles: [HEIFTile] = []
        tiles.reserveCapacity(tileIDs.count)
        for (index, tileID) in tileIDs.enumerated() {
            guard let item = c.itemsByID[tileID], item.type == FourCC("hvc1") else {
                throw ImageCodecError(.unsupported, "grid \(id) tile \(tileID) is not an HEVC item")
            }
            let tileProps = try c.properties(of: tileID)
            guard !tileProps.contains(where: { $0.property.isTransform }) else {
                throw ImageCodecError(.unsupported, "grid \(id) tile \(tileID) has its own transforms")
            }
            let tile = try codedPlan(c, id: tileID, props: tileProps, limits: limits)
            if let f = first {
                guard tile.baseWidth == f.baseWidth, tile.baseHeight == f.baseHeight,
                      tile.configuration.chromaFormat == f.configuration.chromaFormat,
                      tile.configuration.bitDepthLuma == f.configuration.bitDepthLuma,
                      tile.configuration.bitDepthChroma == f.configuration.bitDepthChroma else {
                    throw ImageCodecError(.corrupt, "grid \(id) tiles differ in size or format")
                }
            } else {
                first = tile
            }
            tiles.append(HEIFTile(itemID: tileID, x: (index % columns) * tile.baseWidth, y: (index / columns) * tile.baseHeight))
        }
        guard let f = first else { throw ImageCodecError(.corrupt, "grid \(id) has no tiles") }
        guard f.baseWidth.multipliedReportingOverflow(by: columns).partialValue >= width,
              f.baseHeight.multipliedReportingOverflow(by: rows).partialValue >= height else {
            throw ImageCodecError(.corrupt, "grid \(id) tiles (\(columns)x\(rows) of \(f.baseWidth)x\(f.baseHeight)) do not cover \(width)x\(height)")
        }
        var plan = HEIFPicturePlan(baseWidth: width, baseHeight: height, tiles: tiles, tileWidth: f.baseWidth, tileHeight: f.baseHeight,
                                   columns: columns, configuration: f.configuration, transform: HEIFTransform(width: width, height: height))
        colour(props, into: &plan)
        // libheif: a grid without colour properties takes its first tile's.
        if plan.nclx == nil { plan.nclx = f.nclx }
        if plan.icc == nil { plan.icc = f.icc }
        return plan
    }

    /// The XMP packet of a `mime` item (`application/rdf+xml`) describing `id`; nil when
    /// absent or unreadable.
    static func readXMP(_ c: HEIFContainer, for id: Int, limits: DecodeLimits) -> [UInt8]? {
        for ref in c.references where ref.type == FourCC("cdsc") && ref.to.contains(id) {
            guard let item = c.itemsByID[ref.from], item.type == FourCC("mime"), item.contentType == "application/rdf+xml",
                  let data = try? c.data(of: ref.from, limits: limits), data.count <= limits.maxMetadataBytes else { continue }
            return Array(data)
        }
        return nil
    }

    /// EXIF from an `Exif` item describing `id`: a 4-byte offset to the TIFF header, then the
    /// data. Damaged EXIF gives nil, never an error.
    static func readExif(_ c: HEIFContainer, for id: Int, limits: DecodeLimits) -> ExifMetadata? {
        for ref in c.references where ref.type == FourCC("cdsc") && ref.to.contains(id) {
            guard c.itemsByID[ref.from]?.type == FourCC("Exif"),
                  let data = try? c.data(of: ref.from, limits: limits), data.count >= 4 else { continue }
            let offset = data.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard offset <= data.count - 4 - 8 else { continue }
            return ExifReader.parse(tiff: data.dropFirst(4 + offset))
        }
        return nil
    }
}
