/// Movie metadata a page shows: camera make and model, when and where it was recorded, and
/// Apple's content identifier (the key that pairs a Live Photo's still with its movie).
/// Two places hold it: QuickTime's `meta` box (`hdlr` `mdta`, `keys` naming
/// `com.apple.quicktime.*`, `ilst` values in `data` boxes), which iPhones and ffmpeg's
/// `use_metadata_tags` write, and the older `udta` text atoms (`©mak`, `©mod`, `©day`, `©xyz`)
/// that Android phones and cameras write. Damaged metadata is skipped, never an error: the
/// poster does not depend on it.
struct MP4Metadata: Equatable {
    var make: String?
    var model: String?
    /// As written: ISO 8601 with the recording's own offset (`2024-06-01T12:34:56+0200`).
    var creationDate: String?
    /// ISO 6709 text (`+48.8584+002.2945+035.000/`).
    var location: String?
    var contentIdentifier: String?

    /// Longest value kept: these are short strings; anything longer is not what we look for.
    static let maxValueBytes = 1024

    /// `udta`: QuickTime text atoms (a 16-bit length, a 16-bit language, the text), and an
    /// iTunes-style `meta` inside it.
    mutating func readUserData(_ bytes: [UInt8], _ udta: HEIFBox) {
        for box in MP4SampleEntry.lenientChildren(bytes, from: udta.bodyStart, to: udta.end) {
            switch box.type {
            case FourCC(0xA96D_616B): make = make ?? Self.userText(bytes, box)        // ©mak
            case FourCC(0xA96D_6F64): model = model ?? Self.userText(bytes, box)       // ©mod
            case FourCC(0xA964_6179): creationDate = creationDate ?? Self.userText(bytes, box) // ©day
            case FourCC(0xA978_797A): location = location ?? Self.userText(bytes, box)  // ©xyz
            case FourCC("meta"): readQuickTimeMeta(bytes, box)
            default: break
            }
        }
    }

    private static func userText(_ bytes: [UInt8], _ box: HEIFBox) -> String? {
        var r = HEIFByteReader(bytes, box: box)
        guard let length = try? r.u16(), (try? r.u16()) != nil, length <= maxValueBytes,
              let text = try? r.slice(min(length, r.remaining)) else { return nil }
        return clean(text)
    }

    /// `meta` as QuickTime writes it (no version/flags, `hdlr` first) or as ISO does (a full box).
    mutating func readQuickTimeMeta(_ bytes: [UInt8], _ meta: HEIFBox) {
        var start = meta.bodyStart
        if meta.end - start >= 8, FourCC(bytes[(start + 4)..<(start + 8)].reduce(0) { $0 << 8 | UInt32($1) }) != FourCC("hdlr") {
            start += 4
        }
        let children = MP4SampleEntry.lenientChildren(bytes, from: start, to: meta.end)
        var keys: [String] = []
        if let k = children.first(where: { $0.type == FourCC("keys") }) {
            var r = HEIFByteReader(bytes, box: k)
            if (try? r.fullBoxHeader()) != nil, let count = try? r.u32() {
                for _ in 0..<min(count, 4096) {
                    guard let size = try? r.u32(), size >= 8, (try? r.fourCC()) != nil,
                          let name = try? r.slice(size - 8) else { break }
                    keys.append(String(decoding: name, as: UTF8.self))
                }
            }
        }
        guard let ilst = children.first(where: { $0.type == FourCC("ilst") }) else { return }
        for item in MP4SampleEntry.lenientChildren(bytes, from: ilst.bodyStart, to: ilst.end) {
            let index = Int(item.type.value)
            guard index >= 1, index <= keys.count else { continue }
            guard let data = MP4SampleEntry.lenientChildren(bytes, from: item.bodyStart, to: item.end).first(where: { $0.type == FourCC("data") }),
                  data.end - data.bodyStart >= 8 else { continue }
            // Type indicator 1: UTF-8 text (QuickTime "well-known types").
            let kind = bytes[data.bodyStart..<(data.bodyStart + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard kind == 1, data.end - data.bodyStart - 8 <= Self.maxValueBytes else { continue }
            let value = Self.clean(bytes[(data.bodyStart + 8)..<data.end])
            switch keys[index - 1] {
            case "com.apple.quicktime.make": make = value
            case "com.apple.quicktime.model": model = value
            case "com.apple.quicktime.creationdate": creationDate = value
            case "com.apple.quicktime.location.ISO6709": location = value
            case "com.apple.quicktime.content.identifier": contentIdentifier = value
            default: break
            }
        }
    }

    /// UTF-8 text without trailing NULs and spaces; nil when empty.
    private static func clean(_ bytes: ArraySlice<UInt8>) -> String? {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0 || bytes[end - 1] == 0x20 { end -= 1 }
        guard end > bytes.startIndex else { return nil }
        return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
    }

    /// `creationDate` in EXIF's form (`2024:06:01 12:34:56`, the recording's local time, as a
    /// camera writes DateTimeOriginal); nil unless it starts with a full date and time.
    static func exifDate(_ iso: String) -> String? {
        let c = Array(iso.utf8)
        guard c.count >= 19 else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digits.allSatisfy({ (0x30...0x39).contains(c[$0]) }), c[4] == 0x2D, c[7] == 0x2D, c[13] == 0x3A, c[16] == 0x3A else { return nil }
        var out = c[0..<19]
        out[4] = 0x3A; out[7] = 0x3A; out[10] = 0x20
        return String(decoding: out, as: UTF8.self)
    }

    /// A time in seconds since 1904-01-01 00:00 UTC (QuickTime and ISO media headers) as
    /// `YYYY:MM:DD HH:MM:SS` UTC; nil for 0 (not set) and for dates after 9999.
    static func exifDate(since1904 seconds: Int) -> String? {
        guard seconds > 0, seconds < 253_402_300_800 + 2_082_844_800 else { return nil }
        let unix = seconds - 2_082_844_800
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let rest = unix - days * 86_400
        // Howard Hinnant's days_from_civil inverse.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year):\(two(month)):\(two(day)) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))"
    }

    /// ISO 6709 (`±DD.D±DDD.D[±AAA.A]/`, degrees with minutes `±DDMM.M` or seconds
    /// `±DDMMSS.S` also accepted) as a position; nil when malformed or out of range.
    static func position(_ text: String) -> GPSPosition? {
        var parts: [(integerDigits: Int, value: Double)] = []
        var chars = Array(text.utf8)[...]
        while let sign = chars.first, sign == 0x2B || sign == 0x2D, parts.count < 3 {
            chars = chars.dropFirst()
            // Digits gathered as one integer and divided once, so "48.8584" is the nearest double.
            var intDigits = 0, fracDigits = 0, digits = 0, seenPoint = false
            while let c = chars.first, (0x30...0x39).contains(c) || c == 0x2E {
                if c == 0x2E {
                    guard !seenPoint else { return nil }
                    seenPoint = true
                } else {
                    guard intDigits + fracDigits < 15 else { return nil }
                    digits = digits * 10 + Int(c - 0x30)
                    if seenPoint { fracDigits += 1 } else { intDigits += 1 }
                }
                chars = chars.dropFirst()
            }
            guard intDigits > 0, intDigits <= 8 else { return nil }
            var divisor = 1.0
            for _ in 0..<fracDigits { divisor *= 10 }
            let value = Double(digits) / divisor
            parts.append((intDigits, sign == 0x2D ? -value : value))
        }
        guard parts.count >= 2 else { return nil }
        func degrees(_ p: (integerDigits: Int, value: Double), degreeDigits: Int) -> Double? {
            let m = abs(p.value), s: Double = p.value < 0 ? -1 : 1
            switch p.integerDigits - degreeDigits {
            case 0: return p.value
            case 2: let d = Double(Int(m / 100)); return s * (d + (m - d * 100) / 60)
            case 4:
                let d = Double(Int(m / 10_000)), mm = Double(Int((m - d * 10_000) / 100))
                return s * (d + mm / 60 + (m - d * 10_000 - mm * 100) / 3600)
            default: return nil
            }
        }
        guard let lat = degrees(parts[0], degreeDigits: 2), let lon = degrees(parts[1], degreeDigits: 3),
              abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return GPSPosition(latitude: lat, longitude: lon, altitude: parts.count > 2 ? parts[2].value : nil)
    }
}
