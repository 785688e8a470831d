/// Reads the few EXIF fields we use from a TIFF structure (JPEG APP1 after "Exif\0\0", or a
/// PNG eXIf chunk). Every offset is checked against the buffer and each IFD is visited at most
/// once, so a hostile file yields missing fields, never a trap or a loop.
public enum ExifReader {
    /// Parses `tiff`, which starts at the TIFF header ("II*\0" or "MM\0*"). Malformed data gives
    /// whatever fields could be read before the damage.
    public static func parse(tiff: ArraySlice<UInt8>) -> ExifMetadata {
        let bytes = Array(tiff)
        var meta = ExifMetadata()
        guard bytes.count >= 8 else { return meta }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return meta
        }
        let reader = TIFFReader(bytes: bytes, little: little)
        guard reader.u16(2) == 42, let ifd0 = reader.u32(4) else { return meta }
        var visited = Set<Int>()
        var dateTime: String?
        var subIFD: Int?
        reader.forEachEntry(ifd: Int(ifd0), visited: &visited) { tag, entry in
            switch tag {
            case 0x0112:
                if let v = reader.shortValue(entry) { meta.orientation = Orientation(exifValue: v) }
            case 0x010F: meta.make = reader.asciiValue(entry)
            case 0x0110: meta.model = reader.asciiValue(entry)
            case 0x0132: dateTime = reader.asciiValue(entry)
            case 0x8769: subIFD = reader.longValue(entry)
            default: break
            }
        }
        if let sub = subIFD {
            reader.forEachEntry(ifd: sub, visited: &visited) { tag, entry in
                if tag == 0x9003 { meta.dateTimeOriginal = reader.asciiValue(entry) }
            }
        }
        if meta.dateTimeOriginal == nil { meta.dateTimeOriginal = dateTime }
        return meta
    }

    /// Parses a JPEG APP1 payload; nil unless it starts with "Exif\0\0".
    public static func parse(app1 payload: ArraySlice<UInt8>) -> ExifMetadata? {
        let magic: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        guard payload.count >= 6, payload.prefix(6).elementsEqual(magic) else { return nil }
        return parse(tiff: payload.dropFirst(6))
    }
}

/// Bounds-checked reads of a TIFF byte order.
private struct TIFFReader {
    let bytes: [UInt8]
    let little: Bool

    struct Entry {
        let type: Int
        let count: Int
        /// Offset of the 4-byte value-or-offset field.
        let valueField: Int
    }

    func u16(_ at: Int) -> Int? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        let a = Int(bytes[at]), b = Int(bytes[at + 1])
        return little ? a | b << 8 : a << 8 | b
    }

    func u32(_ at: Int) -> UInt32? {
        guard let hi = u16(little ? at + 2 : at), let lo = u16(little ? at : at + 2) else { return nil }
        return UInt32(hi) << 16 | UInt32(lo)
    }

    /// Calls `body` for each 12-byte entry of the IFD at `ifd`, skipping IFDs already seen.
    func forEachEntry(ifd: Int, visited: inout Set<Int>, _ body: (Int, Entry) -> Void) {
        guard ifd >= 8, !visited.contains(ifd), let count = u16(ifd) else { return }
        visited.insert(ifd)
        for i in 0..<count {
            let at = ifd + 2 + i * 12
            guard let tag = u16(at), let type = u16(at + 2), let n = u32(at + 4), at + 12 <= bytes.count else { return }
            body(tag, Entry(type: type, count: Int(n), valueField: at + 8))
        }
    }

    func shortValue(_ e: Entry) -> Int? {
        guard e.count >= 1 else { return nil }
        switch e.type {
        case 3: return u16(e.valueField)
        case 4: return u32(e.valueField).map { Int($0) }
        case 1: return e.valueField < bytes.count ? Int(bytes[e.valueField]) : nil
        default: return nil
        }
    }

    func longValue(_ e: Entry) -> Int? {
        guard e.count >= 1 else { return nil }
        switch e.type {
        case 4, 13: return u32(e.valueField).map { Int($0) }
        case 3: return u16(e.valueField)
        default: return nil
        }
    }

    /// ASCII text up to its first NUL, trimmed; at most 256 bytes are read.
    func asciiValue(_ e: Entry) -> String? {
        guard e.type == 2 || e.type == 7, e.count > 0 else { return nil }
        let length = min(e.count, 256)
        let start: Int
        if e.count <= 4 {
            start = e.valueField
        } else {
            guard let off = u32(e.valueField) else { return nil }
            start = Int(off)
        }
        guard start >= 0, start <= bytes.count - length else { return nil }
        var raw = bytes[start..<(start + length)]
        if let nul = raw.firstIndex(of: 0) { raw = raw[raw.startIndex..<nul] }
        let text = String(decoding: raw.map { $0 < 0x20 || $0 > 0x7E ? UInt8(0x20) : $0 }, as: UTF8.self)
        let trimmed = text.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
