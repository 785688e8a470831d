/// `iloc` (ISO/IEC 14496-12 §8.11.3): where each item's bytes are. Extents are checked only
/// when an item is read, as libheif does, so that a damaged thumbnail or metadata item does
/// not make the primary image undecodable (the truncated conformance file relies on it).

struct HEIFItemLocation {
    /// 0: file offsets, 1: offsets into `idat`.
    var constructionMethod: Int
    var extents: [(offset: Int, length: Int)]
}

enum HEIFItemLocations {
    /// Parses `iloc` versions 0-2 with field sizes 0, 4 or 8.
    static func parse(_ bytes: [UInt8], box: HEIFBox) throws -> [Int: HEIFItemLocation] {
        var r = HEIFByteReader(bytes, box: box)
        let (version, _) = try r.fullBoxHeader()
        guard version <= 2 else { throw ImageCodecError(.unsupported, "'iloc' version \(version)") }
        let a = try r.u8(), b = try r.u8()
        let offsetSize = a >> 4, lengthSize = a & 15, baseSize = b >> 4
        let indexSize = version >= 1 ? b & 15 : 0
        for s in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(s) {
            throw ImageCodecError(.corrupt, "'iloc' field size \(s)")
        }
        let count = version < 2 ? try r.u16() : try r.u32()
        var out: [Int: HEIFItemLocation] = [:]
        for _ in 0..<count {
            // The smallest entry is 6 bytes: refuse counts the box cannot hold before looping.
            guard r.remaining >= 6 else { throw ImageCodecError(.corrupt, "'iloc' lists more items than it holds") }
            let id = version < 2 ? try r.u16() : try r.u32()
            var method = 0
            if version >= 1 { method = try r.u16() & 15 }
            let dataReference = try r.u16()
            let base = try r.uint(baseSize)
            let extentCount = try r.u16()
            guard extentCount <= r.remaining else { throw ImageCodecError(.corrupt, "'iloc' item \(id) lists more extents than it holds") }
            var extents: [(Int, Int)] = []
            extents.reserveCapacity(extentCount)
            for _ in 0..<extentCount {
                if indexSize > 0 { _ = try r.uint(indexSize) }
                let offset = try r.uint(offsetSize)
                let length = try r.uint(lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow else { throw ImageCodecError(.corrupt, "'iloc' item \(id) offset overflows") }
                extents.append((start, length))
            }
            guard out[id] == nil else { throw ImageCodecError(.corrupt, "'iloc' lists item \(id) twice") }
            // Other files (data_reference_index) and item offsets (method 2) are valid HEIF
            // we do not read; the item fails only if someone needs its bytes.
            out[id] = HEIFItemLocation(constructionMethod: dataReference == 0 ? method : -1, extents: extents)
        }
        return out
    }

    /// The item's bytes: its extents concatenated (one extent is returned as a slice of the
    /// file, no copy). Extents past the data are `.truncated`; the total must stay within
    /// `limits.maxInputBytes` before anything is copied.
    static func data(_ location: HEIFItemLocation, itemID: Int, file: [UInt8], idat: Range<Int>?,
                     limits: DecodeLimits) throws -> ArraySlice<UInt8> {
        let region: Range<Int>
        switch location.constructionMethod {
        case 0: region = 0..<file.count
        case 1:
            guard let idat else { throw ImageCodecError(.corrupt, "item \(itemID) is in 'idat' but there is none") }
            region = idat
        default:
            throw ImageCodecError(.unsupported, "item \(itemID) is stored in another file or by item offset")
        }
        var ranges: [Range<Int>] = []
        var total = 0
        for (offset, length) in location.extents {
            guard offset <= region.count else {
                throw ImageCodecError(.truncated, "item \(itemID) extent at \(offset) is past the end of the data (\(region.count) bytes)")
            }
            // Length 0 means "to the end of the data".
            let n = length == 0 ? region.count - offset : length
            guard n <= region.count - offset else {
                throw ImageCodecError(.truncated, "item \(itemID) extent \(offset)+\(n) runs past the end of the data (\(region.count) bytes)")
            }
            let (t, overflow) = total.addingReportingOverflow(n)
            guard !overflow, t <= limits.maxInputBytes else {
                throw ImageCodecError(.limitExceeded, "item \(itemID) has more than \(limits.maxInputBytes) bytes")
            }
            total = t
            ranges.append((region.lowerBound + offset)..<(region.lowerBound + offset + n))
        }
        if ranges.count == 1 { return file[ranges[0]] }
        var joined: [UInt8] = []
        joined.reserveCapacity(total)
        for range in ranges { joined.append(contentsOf: file[range]) }
        return joined[...]
    }

    /// Bytes `data` would copy for this item (0 when it returns a slice of the file).
    static func copiedBytes(_ location: HEIFItemLocation) -> Int {
        location.extents.count <= 1 ? 0 : location.extents.reduce(0) { $0 &+ max(0, $1.length) }
    }
}
