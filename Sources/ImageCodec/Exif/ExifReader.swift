/// Reads the few EXIF fields we use from a TIFF structure (JPEG APP1 after "Exif\0\0", a PNG
/// eXIf chunk, a WebP EXIF chunk, a HEIF Exif item). Every offset and count is checked against
/// the buffer (with overflow-checked sizes) and each IFD is visited at most once, so a hostile
/// file yields missing fields, never a trap or a loop. EXIF is optional metadata: damage in it
/// drops the damaged fields and never makes the image unreadable, so the reader answers what
/// it could read instead of throwing.
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
        var gpsIFD: Int?
        var text = ExifTextFields()
        reader.forEachEntry(ifd: Int(ifd0), visited: &visited) { tag, entry in
            if ExifTextFields.ifd0Tags.contains(tag) { text.read(tag, reader.rawBytes(entry), little: little) }
            switch tag {
            case 0x0112:
                if let v = reader.shortValue(entry) { meta.orientation = Orientation(exifValue: v) }
            case 0x010F: meta.make = reader.asciiValue(entry)
            case 0x0110: meta.model = reader.asciiValue(entry)
            case 0x0132: dateTime = reader.asciiValue(entry)
            case 0x8769: subIFD = reader.longValue(entry)
            case 0x8825: gpsIFD = reader.longValue(entry)
            default: break
            }
        }
        if let sub = subIFD { readExifIFD(sub, reader: reader, visited: &visited, into: &meta, text: &text) }
        meta.text = text.text
        if let gps = gpsIFD { meta.gps = readGPS(gps, reader: reader, visited: &visited) }
        if meta.dateTimeOriginal == nil { meta.dateTimeOriginal = dateTime }
        return meta
    }

    /// The Exif sub-IFD: date taken, lens and exposure.
    private static func readExifIFD(_ ifd: Int, reader: TIFFReader, visited: inout Set<Int>, into meta: inout ExifMetadata,
                                    text: inout ExifTextFields) {
        var isoRatings: Int?
        var isoSpeed: Int?
        reader.forEachEntry(ifd: ifd, visited: &visited) { tag, entry in
            switch tag {
            case 0x9286: text.read(tag, reader.rawBytes(entry), little: reader.little)
            case 0x9003: meta.dateTimeOriginal = reader.asciiValue(entry)
            case 0xA433: meta.lensMake = reader.asciiValue(entry)
            case 0xA434: meta.lensModel = reader.asciiValue(entry)
            case 0x829A: meta.exposureTime = reader.rationals(entry, upTo: 1)?.first ?? nil
            case 0x829D: meta.fNumber = reader.rationals(entry, upTo: 1)?.first ?? nil
            case 0x920A: meta.focalLength = reader.rationals(entry, upTo: 1)?.first ?? nil
            case 0x8827: isoRatings = reader.firstShort(entry)
            case 0x8833: isoSpeed = reader.longValue(entry)
            case 0xA405: meta.focalLength35mm = reader.firstShort(entry).flatMap { $0 > 0 ? $0 : nil }
            case 0x927C: meta.contentIdentifier = reader.rawBytes(entry, limit: AppleMakerNote.maxBytes).flatMap(AppleMakerNote.contentIdentifier)
            default: break
            }
        }
        // 65535 in the SHORT field means "see ISOSpeed" (EXIF 2.3 for sensitivities above it).
        if let iso = isoRatings, iso > 0, iso < 65535 {
            meta.iso = iso
        } else if let iso = isoSpeed, iso > 0 {
            meta.iso = iso
        }
    }

    /// The GPS IFD: latitude and longitude with their N/S and E/W references, and altitude
    /// with its above/below sea level byte. A position needs both coordinates, each three
    /// valid RATIONALs (degrees, minutes, seconds) within range.
    private static func readGPS(_ ifd: Int, reader: TIFFReader, visited: inout Set<Int>) -> GPSPosition? {
        var latitudeRef: String?, longitudeRef: String?
        var latitude: Double?, longitude: Double?
        var altitude: Double?
        var belowSeaLevel = false
        reader.forEachEntry(ifd: ifd, visited: &visited) { tag, entry in
            switch tag {
            case 1: latitudeRef = reader.asciiValue(entry)
            case 2: latitude = reader.rationals(entry, upTo: 3).flatMap(degrees)
            case 3: longitudeRef = reader.asciiValue(entry)
            case 4: longitude = reader.rationals(entry, upTo: 3).flatMap(degrees)
            case 5: belowSeaLevel = reader.shortValue(entry) == 1
            case 6: altitude = (reader.rationals(entry, upTo: 1)?.first ?? nil)?.value
            default: break
            }
        }
        guard var lat = latitude, var lon = longitude, lat <= 90, lon <= 180 else { return nil }
        // A reference other than S or W (or none) reads as N or E, as exiftool does.
        if latitudeRef?.uppercased() == "S" { lat = -lat }
        if longitudeRef?.uppercased() == "W" { lon = -lon }
        return GPSPosition(latitude: lat, longitude: lon, altitude: altitude.map { belowSeaLevel ? -$0 : $0 })
    }

    /// Degrees from a degrees, minutes, seconds triple; nil unless all three are valid.
    private static func degrees(_ dms: [ExifRational?]) -> Double? {
        guard dms.count == 3, let d = dms[0], let m = dms[1], let s = dms[2] else { return nil }
        return d.value + m.value / 60 + s.value / 3600
    }

    /// Parses a JPEG APP1 payload; nil unless it starts with "Exif\0\0".
    public static func parse(app1 payload: ArraySlice<UInt8>) -> ExifMetadata? {
        let magic: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        guard payload.count >= 6, payload.prefix(6).elementsEqual(magic) else { return nil }
        return parse(tiff: payload.dropFirst(6))
    }
}

/// Bounds-checked reads of a TIFF byte order.
struct TIFFReader {
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

    /// Where an entry's values start: inline in the value field when they fit in 4 bytes,
    /// else at the offset it holds. nil unless all `count` values of `size` bytes lie inside
    /// the buffer (a count of 4 billion is refused here, before anything is read).
    func valueStart(_ e: Entry, size: Int) -> Int? {
        let (total, overflow) = e.count.multipliedReportingOverflow(by: size)
        guard !overflow, e.count > 0, total <= bytes.count else { return nil }
        if total <= 4 { return e.valueField }
        guard let offset = u32(e.valueField).map(Int.init), offset <= bytes.count - total else { return nil }
        return offset
    }

    /// The first value of a SHORT (or LONG, or BYTE) entry, wherever it is stored.
    func firstShort(_ e: Entry) -> Int? {
        switch e.type {
        case 3: return valueStart(e, size: 2).flatMap { u16($0) }
        case 4: return valueStart(e, size: 4).flatMap { u32($0) }.map { Int($0) }
        case 1: return valueStart(e, size: 1).map { Int(bytes[$0]) }
        default: return nil
        }
    }

    /// The first `limit` values of a RATIONAL entry (type 5), each nil when its denominator is
    /// 0; nil when the entry is of another type, or when its declared values do not all lie
    /// inside the buffer.
    func rationals(_ e: Entry, upTo limit: Int) -> [ExifRational?]? {
        guard e.type == 5, let start = valueStart(e, size: 8) else { return nil }
        return (0..<min(e.count, limit)).map { i in
            guard let n = u32(start + 8 * i), let d = u32(start + 8 * i + 4) else { return nil }
            return ExifRational(numerator: n, denominator: d)
        }
    }

    /// The bytes of a BYTE, ASCII or UNDEFINED entry, at most `limit`; nil when they do not
    /// lie inside the buffer.
    func rawBytes(_ e: Entry, limit: Int = ExifTextFields.maxBytes) -> ArraySlice<UInt8>? {
        guard e.type == 1 || e.type == 2 || e.type == 7, e.count > 0 else { return nil }
        let length = min(e.count, limit)
        let start: Int
        if e.count <= 4 {
            start = e.valueField
        } else {
            guard let off = u32(e.valueField) else { return nil }
            start = Int(off)
        }
        guard start >= 0, start <= bytes.count - length else { return nil }
        return bytes[start..<(start + length)]
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
