/// The EXIF tags that carry people's words: ImageDescription, Artist and Copyright (ASCII, read
/// as UTF-8 as exiftool does), UserComment (an 8-byte character code, then ASCII, UTF-16 in the
/// file's byte order, or undefined bytes) and the Windows XP tags (UTF-16LE in BYTE entries).
struct ExifTextFields {
    static let ifd0Tags: Set<Int> = [0x010E, 0x013B, 0x8298, 0x9C9B, 0x9C9C, 0x9C9D, 0x9C9E, 0x9C9F]
    static let exifTags: Set<Int> = [0x9286]
    /// Bytes read of one tag.
    static let maxBytes = 16 << 10
    /// What cameras write into ImageDescription when nobody wrote anything.
    static let placeholders: Set<String> = [
        "olympus digital camera", "sony dsc", "default", "digital camera", "minolta digital camera",
        "konica minolta digital camera", "samsung digital camera", "kodak digital still camera",
        "image", "exif_jpeg_picture", "untitled", "description",
    ]

    private var values: [Int: String] = [:]

    mutating func read(_ tag: Int, _ bytes: ArraySlice<UInt8>?, little: Bool) {
        guard values[tag] == nil, let bytes else { return }
        let text: String
        switch tag {
        case 0x9C9B...0x9C9F:
            text = MetadataText.utf16(bytes, little: true)
        case 0x9286:
            guard bytes.count > 8 else { return }
            let code = bytes.prefix(8), body = bytes.dropFirst(8)
            if code.elementsEqual("UNICODE\0".utf8) {
                text = MetadataText.utf16(body, little: little)
            } else if code.elementsEqual("ASCII\0\0\0".utf8) || code.allSatisfy({ $0 == 0 }) {
                text = ExifTextFields.utf8(body)
            } else {
                return
            }
        default:
            text = ExifTextFields.utf8(bytes)
        }
        guard let clean = MetadataText.clean(text) else { return }
        values[tag] = clean
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private func caption(_ tag: Int) -> String? {
        guard let v = values[tag], !ExifTextFields.placeholders.contains(v.lowercased()) else { return nil }
        return v
    }

    var text: ImageText {
        var t = ImageText()
        t.title = values[0x9C9B]
        t.caption = caption(0x010E) ?? caption(0x9286) ?? caption(0x9C9C) ?? caption(0x9C9F)
        t.keywords = MetadataText.list((values[0x9C9E] ?? "").split(separator: ";").map(String.init))
        t.creator = values[0x013B] ?? values[0x9C9D]
        t.copyright = values[0x8298]
        return t
    }
}
