import Foundation

/// The optional `gallery.json` in the library root:
/// ```json
/// { "title": "Our photos", "sort": "date",
///   "albums": { "Summer/Beach": { "title": "At the beach", "caption": "July 2024", "sort": "name" },
///               "Family": { "private": true } },
///   "items":  { "Summer/Beach/IMG_0001.jpg": { "title": "Sunset", "caption": "..." } },
///   "remote": [ { "url": "https://example.org/a.jpg", "title": "A", "caption": "...", "album": "Remote" } ] }
/// ```
/// Album and item keys are paths relative to the root. Remote items go to the album named by
/// `album` (default "Remote"), created at the top level when no such folder exists.
/// `sort` ("date" or "name") orders the photos of every album, or of one album when given in
/// its entry; the album's own word wins, then the site's, then `--sort`.
/// `"show_location": true` lets detail pages show where a photo was taken (its EXIF GPS
/// position, with a map link); without it (the default) pages never show coordinates.
/// `"captions": true` (site-wide, or in an album's entry) shows captions under thumbnails.
public struct Manifest: Sendable, Decodable, Equatable {
    public struct Text: Sendable, Decodable, Equatable {
        public var title: String?
        public var caption: String?
        /// "date" or "name" (albums only); anything else is ignored.
        public var sort: String?
        /// On an album: it and everything below it are private, reachable only by share links.
        public var `private`: Bool?
        /// On an album: whether captions show under its thumbnails (overrides the site's).
        public var captions: Bool?
    }

    public struct RemoteItem: Sendable, Decodable, Equatable {
        public var url: String
        public var title: String?
        public var caption: String?
        public var album: String?
    }

    public var title: String?
    /// "date" or "name": the order of every album's photos; anything else is ignored.
    public var sort: String?
    public var albums: [String: Text]?
    public var items: [String: Text]?
    public var remote: [RemoteItem]?
    /// Whether pages may show a photo's GPS position. Default false: a position is private
    /// data (where someone lives), so it is shown only when the owner says so.
    public var showLocation: Bool?
    /// Whether album pages show each photo's caption under its thumbnail (the album's own
    /// `captions` wins). Default false.
    public var captions: Bool?

    enum CodingKeys: String, CodingKey {
        case title, sort, albums, items, remote, captions
        case showLocation = "show_location"
    }

    /// The manifest file name looked for in the root.
    public static let fileName = "gallery.json"
    /// Larger manifests are refused (bytes).
    public static let maxBytes = 4 << 20

    /// Parses manifest bytes; throws with a readable message on bad JSON.
    public static func parse(_ data: Data) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: data)
    }

    /// The topmost folder marked `"private": true` among `path` and the folders above it
    /// ("Family" for "Family/2024/Summer" when "Family" is marked), or nil when none is.
    /// Privacy belongs to folders, whatever path reaches them: the scanner asks this of an
    /// album's real path as well as of the path it was reached by.
    func privateMark(of path: String) -> String? {
        guard let albums, !albums.isEmpty else { return nil }
        if albums[""]?.private == true { return "" }
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            if albums[prefix]?.private == true { return prefix }
        }
        return nil
    }

    /// Whether a remote URL is acceptable: http or https with a host, no spaces or control characters.
    static func isAcceptableRemoteURL(_ text: String) -> Bool {
        guard text.count <= 2048, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }),
              let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }
}

/// The order of an album's photos.
public enum AlbumSort: String, Sendable {
    /// Natural file-name order ("IMG_2" before "IMG_10").
    case name
    /// Date taken (EXIF), oldest first; photos without a date follow, by name.
    case date
}
