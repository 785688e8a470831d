/// Reads IPTC-IIM (the IPTC Information Interchange Model) datasets: from a Photoshop image
/// resource block (JPEG APP13 `Photoshop 3.0\0`, resource 0x0404) or from raw IIM (TIFF tag
/// 33723). Text is UTF-8 when record 1:90 names it (`ESC % G`). Without it, a value that is
/// valid UTF-8 with non-ASCII in it is read as UTF-8 (many tools write UTF-8 and leave 1:90
/// out; Windows-1252 text is almost never valid UTF-8), anything else as Windows-1252, which is
/// what "Latin" means to ExifTool and to the Windows tools that wrote it. Every length
/// is checked against the bytes; damage ends the walk and keeps what was read.
public enum IPTCReader {
    /// The payload of a JPEG APP13 segment begins with this.
    static let photoshopMagic: [UInt8] = Array("Photoshop 3.0".utf8) + [0]

    /// The IIM data of resource 0x0404 in an image resource block (APP13 payloads with their
    /// `Photoshop 3.0\0` prefix removed and joined); nil when there is none.
    public static func iimData(resources: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var i = resources.startIndex
        let end = resources.endIndex
        while end - i >= 12, resources[i..<(i + 4)].elementsEqual("8BIM".utf8) {
            let id = Int(resources[i + 4]) << 8 | Int(resources[i + 5])
            // Pascal name, padded so that length byte and name take an even count.
            let nameLength = Int(resources[i + 6])
            var at = i + 6 + 1 + nameLength
            if (1 + nameLength) & 1 == 1 { at += 1 }
            guard end - at >= 4 else { return nil }
            let size = resources[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            at += 4
            guard size <= end - at else { return nil }
            if id == 0x0404 { return resources[at..<(at + size)] }
            i = at + size + (size & 1)
        }
        return nil
    }

    /// The text fields of IIM `data`.
    public static func read(iim data: ArraySlice<UInt8>) -> ImageText {
        var utf8 = false
        var values: [Int: [ArraySlice<UInt8>]] = [:]
        var i = data.startIndex
        let end = data.endIndex
        while end - i >= 5, data[i] == 0x1C {
            let record = Int(data[i + 1]), dataset = Int(data[i + 2])
            var length = Int(data[i + 3]) << 8 | Int(data[i + 4])
            i += 5
            if length & 0x8000 != 0 {
                // Extended dataset: the low bits count the length bytes that follow.
                let n = length & 0x7FFF
                guard n >= 1, n <= 4, end - i >= n else { break }
                length = data[i..<(i + n)].reduce(0) { $0 << 8 | Int($1) }
                i += n
            }
            guard length <= end - i else { break }
            let value = data[i..<(i + length)]
            i += length
            if record == 1 && dataset == 90 {
                utf8 = value.elementsEqual([0x1B, 0x25, 0x47])
            } else if record == 2, (values[dataset]?.count ?? 0) < MetadataText.maxListCount {
                values[dataset, default: []].append(value)
            }
        }
        func strings(_ dataset: Int) -> [String] {
            (values[dataset] ?? []).map { utf8 ? String(decoding: $0, as: UTF8.self) : MetadataText.undeclared($0) }
        }
        func string(_ dataset: Int) -> String? { strings(dataset).lazy.compactMap(MetadataText.clean).first }
        var text = ImageText()
        text.title = string(5)
        text.caption = string(120)
        text.keywords = MetadataText.list(strings(25))
        let bylines = MetadataText.list(strings(80))
        text.creator = bylines.isEmpty ? nil : bylines.joined(separator: ", ")
        text.copyright = string(116)
        text.places = MetadataText.list(strings(92) + strings(90) + strings(95) + strings(101))
        return text
    }
}
