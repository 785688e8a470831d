/// What people wrote about an image, as read from the file: XMP, IPTC-IIM and the EXIF text
/// tags, merged (XMP wins over IPTC, IPTC over EXIF, field by field). Every field is empty when
/// the file says nothing. Values are untrusted text: the web layer escapes them.
public struct ImageText: Sendable, Equatable {
    /// `dc:title`, IPTC ObjectName (2:05), Windows XPTitle.
    public var title: String?
    /// `dc:description` (x-default first), IPTC Caption-Abstract (2:120), EXIF ImageDescription,
    /// UserComment, XPComment (camera placeholders such as "OLYMPUS DIGITAL CAMERA" left out).
    public var caption: String?
    /// `dc:subject` then `lr:hierarchicalSubject` ("A|B|C"), IPTC Keywords (2:25), XPKeywords;
    /// each once, in file order.
    public var keywords: [String]
    /// `xmp:Rating`, -1 (rejected) ... 5.
    public var rating: Int?
    /// `xmp:Label`, the colour label.
    public var label: String?
    /// Names of the people shown: MWG-RS face regions, Microsoft Photo regions,
    /// `Iptc4xmpExt:PersonInImage`.
    public var people: [String]
    /// Place names, most specific first: sublocation, city, state, country.
    public var places: [String]
    /// `dc:creator` (joined with ", "), IPTC By-line (2:80), EXIF Artist, XPAuthor.
    public var creator: String?
    /// `dc:rights`, IPTC CopyrightNotice (2:116), EXIF Copyright.
    public var copyright: String?

    public init(title: String? = nil, caption: String? = nil, keywords: [String] = [], rating: Int? = nil,
                label: String? = nil, people: [String] = [], places: [String] = [], creator: String? = nil,
                copyright: String? = nil) {
        self.title = title
        self.caption = caption
        self.keywords = keywords
        self.rating = rating
        self.label = label
        self.people = people
        self.places = places
        self.creator = creator
        self.copyright = copyright
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == ImageText() }

    /// This text with every field it lacks taken from `lower` (a field, list or not, is taken
    /// whole from the first source that has it: a sidecar's keywords replace the file's).
    public func filling(from lower: ImageText) -> ImageText {
        ImageText(title: title ?? lower.title, caption: caption ?? lower.caption,
                  keywords: keywords.isEmpty ? lower.keywords : keywords, rating: rating ?? lower.rating,
                  label: label ?? lower.label, people: people.isEmpty ? lower.people : people,
                  places: places.isEmpty ? lower.places : places, creator: creator ?? lower.creator,
                  copyright: copyright ?? lower.copyright)
    }
}

/// Text cleaning shared by the readers.
enum MetadataText {
    /// At most this many bytes of one value are kept (a caption is a paragraph, not a book).
    static let maxValueBytes = 16 << 10
    /// At most this many entries of one list are kept.
    static let maxListCount = 1000

    /// `text` with control characters turned into spaces and runs of white space at both ends
    /// trimmed, cut to `maxValueBytes` on a character boundary; nil when nothing is left.
    static func clean(_ text: String) -> String? {
        var view = Substring(text)
        // Most values need no rewrite: only trimming, which costs no copy.
        if text.utf8.count > maxValueBytes || text.unicodeScalars.contains(where: isControl) {
            var out = String.UnicodeScalarView()
            var bytes = 0
            for scalar in text.unicodeScalars {
                let s: Unicode.Scalar = isControl(scalar) ? " " : scalar
                bytes += UTF8.width(s)
                if bytes > maxValueBytes { break }
                out.append(s)
            }
            view = Substring(String(out))
        }
        while let f = view.first, f.isWhitespace { view = view.dropFirst() }
        while let l = view.last, l.isWhitespace { view = view.dropLast() }
        return view.isEmpty ? nil : String(view)
    }

    private static func isControl(_ s: Unicode.Scalar) -> Bool { s.value < 0x20 || (0x7F...0x9F).contains(s.value) }

    /// Cleaned, non-empty, each once, order kept, at most `maxListCount`.
    static func list(_ values: [String]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for v in values {
            guard out.count < maxListCount, let c = clean(v), seen.insert(c).inserted else { continue }
            out.append(c)
        }
        return out
    }

    /// Latin-1 bytes as text (every byte is the code point of the same value).
    static func latin1(_ bytes: some Collection<UInt8>) -> String {
        var s = String.UnicodeScalarView()
        for b in bytes { s.append(Unicode.Scalar(b)) }
        return String(s)
    }

    /// Text whose encoding is not declared: UTF-8 when the bytes are valid UTF-8 and not all
    /// ASCII, else Windows-1252.
    static func undeclared(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.contains(where: { $0 >= 0x80 }), let text = String(validating: bytes, as: UTF8.self) { return text }
        return windows1252(bytes)
    }

    /// Windows-1252 bytes as text: Latin-1, except that 0x80-0x9F hold the euro sign, curly
    /// quotes, dashes and the rest (the five codes it leaves undefined keep their Latin-1 value).
    static func windows1252(_ bytes: some Collection<UInt8>) -> String {
        var s = String.UnicodeScalarView()
        for b in bytes {
            let mapped = b >= 0x80 && b <= 0x9F ? windows1252High[Int(b) - 0x80] : 0
            s.append(mapped == 0 ? Unicode.Scalar(b) : Unicode.Scalar(mapped) ?? Unicode.Scalar(b))
        }
        return String(s)
    }

    /// Code points of 0x80-0x9F in Windows-1252; 0 where it defines none.
    private static let windows1252High: [UInt16] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]

    /// UTF-16 code units as text (unpaired surrogates become U+FFFD), up to the first NUL.
    static func utf16(_ bytes: ArraySlice<UInt8>, little: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            let u = little ? a | b << 8 : a << 8 | b
            if u == 0 { break }
            units.append(u)
            i += 2
        }
        return String(decoding: units, as: UTF16.self)
    }
}
