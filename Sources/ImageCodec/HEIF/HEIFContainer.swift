/// The HEIF structure of a file (ISO/IEC 23008-12): `ftyp` brands, then the `meta` box with
/// its handler, primary item, item list, locations, references and properties. Nothing is
/// decoded here; `HEIFImageGraph` decides what to show.

struct HEIFItem {
    let id: Int
    let type: FourCC
    let hidden: Bool
    /// `mime` items: the content type.
    let contentType: String
}

struct HEIFReference {
    let type: FourCC
    let from: Int
    let to: [Int]
}

struct HEIFContainer {
    let bytes: [UInt8]
    var brands: [FourCC] = []
    var primaryID: Int?
    /// Items in `iinf` order (libheif picks a fallback primary in this order).
    var items: [HEIFItem] = []
    var itemsByID: [Int: HEIFItem] = [:]
    var locations: [Int: HEIFItemLocation] = [:]
    var idat: Range<Int>?
    var references: [HEIFReference] = []
    var properties: [HEIFProperty] = []
    /// Per item: (property index into `properties`, essential), in `ipma` order.
    var associations: [Int: [(index: Int, essential: Bool)]] = [:]

    /// Brands for still images whose items may be HEVC-coded.
    static let stillBrands: Set<FourCC> = [FourCC("heic"), FourCC("heix"), FourCC("heim"), FourCC("heis"),
                                           FourCC("mif1"), FourCC("mif2"), FourCC("msf1"), FourCC("hevc"), FourCC("hevx")]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        guard bytes.count >= 8 else { throw ImageCodecError(bytes.isEmpty ? .truncated : .notAnImage, "file of \(bytes.count) bytes is too small for HEIF") }
        // Walk the top level only until 'meta': boxes after it (usually 'mdat', which a
        // truncated file cuts short) are reached through 'iloc' offsets, not by walking.
        let top = try HEIFBoxReader.children(bytes, from: 0, to: bytes.count, truncatedAtEnd: true) { $0.type == FourCC("meta") }
        guard let ftyp = top.first, ftyp.type == FourCC("ftyp") else {
            throw ImageCodecError(.notAnImage, "no 'ftyp' box at the start")
        }
        var r = HEIFByteReader(bytes, box: ftyp)
        brands.append(try r.fourCC())
        try r.skip(4)
        while r.remaining >= 4 { brands.append(try r.fourCC()) }
        guard brands.contains(where: Self.stillBrands.contains) else {
            throw ImageCodecError(.unsupported, "no HEIF still-image brand among \(brands)")
        }
        guard let meta = top.last, meta.type == FourCC("meta") else {
            throw ImageCodecError(.corrupt, "no 'meta' box")
        }
        try parseMeta(meta)
    }

    private mutating func parseMeta(_ meta: HEIFBox) throws {
        var r = HEIFByteReader(bytes, box: meta)
        _ = try r.fullBoxHeader()
        let children = try HEIFBoxReader.children(bytes, from: r.position, to: meta.end)
        var sawHandler = false
        for box in children {
            switch box.type {
            case FourCC("hdlr"):
                var h = HEIFByteReader(bytes, box: box)
                _ = try h.fullBoxHeader()
                try h.skip(4)
                let handler = try h.fourCC()
                guard handler == FourCC("pict") else { throw ImageCodecError(.unsupported, "'meta' handler '\(handler)' is not 'pict'") }
                sawHandler = true
            case FourCC("pitm"):
                var p = HEIFByteReader(bytes, box: box)
                let (version, _) = try p.fullBoxHeader()
                primaryID = version == 0 ? try p.u16() : try p.u32()
            case FourCC("iinf"): try parseItemInfo(box)
            case FourCC("iloc"): locations = try HEIFItemLocations.parse(bytes, box: box)
            case FourCC("idat"): idat = box.bodyStart..<box.end
            case FourCC("iref"): try parseReferences(box)
            case FourCC("iprp"): try parseItemProperties(box)
            default: break
            }
        }
        guard sawHandler else { throw ImageCodecError(.corrupt, "'meta' has no 'hdlr'") }
    }

    private mutating func parseItemInfo(_ box: HEIFBox) throws {
        var r = HEIFByteReader(bytes, box: box)
        let (version, _) = try r.fullBoxHeader()
        let count = version == 0 ? try r.u16() : try r.u32()
        let entries = try HEIFBoxReader.children(bytes, from: r.position, to: box.end)
        guard entries.count >= count else { throw ImageCodecError(.corrupt, "'iinf' announces \(count) items but holds \(entries.count)") }
        for entry in entries where entry.type == FourCC("infe") {
            var e = HEIFByteReader(bytes, box: entry)
            let (v, flags) = try e.fullBoxHeader()
            // Versions 0 and 1 predate item types: such items are never images.
            guard v >= 2 else { continue }
            let id = v == 2 ? try e.u16() : try e.u32()
            _ = try e.u16()
            let type = try e.fourCC()
            _ = e.cString()
            let contentType = type == FourCC("mime") ? e.cString() : ""
            guard itemsByID[id] == nil else { throw ImageCodecError(.corrupt, "item \(id) is listed twice") }
            let item = HEIFItem(id: id, type: type, hidden: flags & 1 != 0, contentType: contentType)
            items.append(item)
            itemsByID[id] = item
        }
    }

    private mutating func parseReferences(_ box: HEIFBox) throws {
        var r = HEIFByteReader(bytes, box: box)
        let (version, _) = try r.fullBoxHeader()
        guard version <= 1 else { throw ImageCodecError(.unsupported, "'iref' version \(version)") }
        let idSize = version == 0 ? 2 : 4
        for child in try HEIFBoxReader.children(bytes, from: r.position, to: box.end) {
            var c = HEIFByteReader(bytes, box: child)
            let from = try c.uint(idSize)
            let count = try c.u16()
            guard count * idSize <= c.remaining else { throw ImageCodecError(.corrupt, "'\(child.type)' reference lists more items than it holds") }
            var to: [Int] = []
            to.reserveCapacity(count)
            for _ in 0..<count { to.append(try c.uint(idSize)) }
            references.append(HEIFReference(type: child.type, from: from, to: to))
        }
    }

    private mutating func parseItemProperties(_ box: HEIFBox) throws {
        for child in try HEIFBoxReader.children(bytes, from: box.bodyStart, to: box.end) {
            if child.type == FourCC("ipco") {
                for p in try HEIFBoxReader.children(bytes, from: child.bodyStart, to: child.end) {
                    properties.append(try HEIFProperty.parse(bytes, box: p))
                }
            } else if child.type == FourCC("ipma") {
                var r = HEIFByteReader(bytes, box: child)
                let (version, flags) = try r.fullBoxHeader()
                let count = try r.u32()
                guard count <= r.remaining / 3 else { throw ImageCodecError(.corrupt, "'ipma' lists more items than it holds") }
                for _ in 0..<count {
                    let id = version < 1 ? try r.u16() : try r.u32()
                    let n = try r.u8()
                    var list = associations[id] ?? []
                    for _ in 0..<n {
                        let raw: Int, index: Int, essential: Bool
                        if flags & 1 != 0 {
                            raw = try r.u16(); index = raw & 0x7FFF; essential = raw & 0x8000 != 0
                        } else {
                            raw = try r.u8(); index = raw & 0x7F; essential = raw & 0x80 != 0
                        }
                        // Index 0 means "no property".
                        if index > 0 { list.append((index - 1, essential)) }
                    }
                    associations[id] = list
                }
            }
        }
    }

    // MARK: - Queries

    /// The item's properties in `ipma` order. An index past `ipco` throws `.corrupt`.
    func properties(of id: Int) throws -> [(property: HEIFProperty, essential: Bool)] {
        try (associations[id] ?? []).map { entry in
            guard entry.index < properties.count else {
                throw ImageCodecError(.corrupt, "item \(id) names property \(entry.index + 1) of \(properties.count)")
            }
            return (properties[entry.index], entry.essential)
        }
    }

    /// The first `type` reference from `id` (libheif reads only the first).
    func references(_ type: FourCC, from id: Int) -> [Int] {
        references.first { $0.type == type && $0.from == id }?.to ?? []
    }

    /// Items with a `type` reference pointing at `id`.
    func referrers(_ type: FourCC, to id: Int) -> [Int] {
        references.filter { $0.type == type && $0.to.contains(id) }.map(\.from)
    }

    func data(of id: Int, limits: DecodeLimits) throws -> ArraySlice<UInt8> {
        guard let location = locations[id] else { throw ImageCodecError(.corrupt, "item \(id) has no location") }
        return try HEIFItemLocations.data(location, itemID: id, file: bytes, idat: idat, limits: limits)
    }
}
