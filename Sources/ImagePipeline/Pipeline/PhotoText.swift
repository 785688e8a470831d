import ImageCodec

/// What people wrote about a photo (XMP, IPTC-IIM, EXIF descriptions, sidecar files), in the
/// web layer's terms. Every field is empty when the file and its sidecar say nothing.
public struct PhotoText: Sendable, Equatable {
    /// A short title (`dc:title`, IPTC ObjectName).
    public var title: String?
    /// The caption (`dc:description`, IPTC Caption-Abstract, EXIF ImageDescription/UserComment).
    public var caption: String?
    /// Keywords as written (`dc:subject`, IPTC Keywords), each once; hierarchical keywords
    /// (`lr:hierarchicalSubject`) as "Places|France|Paris".
    public var keywords: [String]
    /// 0...5 stars (`xmp:Rating`); -1 means rejected; nil when unrated.
    public var rating: Int?
    /// The colour label (`xmp:Label`), e.g. "Red".
    public var label: String?
    /// Names of the people shown (MWG-RS and Microsoft region names): names only.
    public var people: [String]
    /// Place names, most specific first (sublocation, city, state, country), each once.
    public var places: [String]
    /// Who made it (`dc:creator`, IPTC By-line, EXIF Artist).
    public var creator: String?
    /// The copyright notice (`dc:rights`, IPTC CopyrightNotice, EXIF Copyright).
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

    /// Whether the photo carries no text at all.
    public var isEmpty: Bool { self == PhotoText() }
}

extension PhotoText {
    /// The web layer's view of the text a codec read.
    public init(_ text: ImageText) {
        self.init(title: text.title, caption: text.caption, keywords: text.keywords, rating: text.rating, label: text.label,
                  people: text.people, places: text.places, creator: text.creator, copyright: text.copyright)
    }

    /// This text (a sidecar's) with every field it lacks taken from `embedded` (the file's
    /// own): a sidecar wins field by field, a list whole.
    public func filling(from embedded: PhotoText) -> PhotoText {
        PhotoText(title: title ?? embedded.title, caption: caption ?? embedded.caption,
                  keywords: keywords.isEmpty ? embedded.keywords : keywords, rating: rating ?? embedded.rating,
                  label: label ?? embedded.label, people: people.isEmpty ? embedded.people : people,
                  places: places.isEmpty ? embedded.places : places, creator: creator ?? embedded.creator,
                  copyright: copyright ?? embedded.copyright)
    }
}
