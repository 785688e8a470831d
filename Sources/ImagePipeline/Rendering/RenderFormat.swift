// The encodings a rendered image is offered in, and how each is spelled in a URL.
//
// The format is part of the URL (an extension on the size segment), never negotiated from the
// Accept header: every cache on the way (the render cache, nginx's fastcgi_cache keyed on the
// request URI, browsers, a CDN) then keys on the URL alone and needs no `Vary`.

/// The encoding of a rendered image, as its URL names it.
public enum RenderFormat: String, Sendable, CaseIterable, Hashable {
    /// JPEG, or PNG when the render has transparency: what every browser shows. Its URLs have
    /// no extension (`/img/<id>/480x480?v=…`), as they had before other formats were served,
    /// so those URLs and their cached copies stay valid. Named "jpeg" in `--formats`.
    case standard = "jpeg"
    /// Lossy WebP, with lossless alpha when the render has transparency (or PNG when that is
    /// smaller, see `Renderer`). URLs end in `.webp` (`/img/<id>/480x480.webp?v=…`).
    case webp

    /// What follows the size in URLs, dot included: "" or ".webp".
    public var urlSuffix: String {
        switch self {
        case .standard: return ""
        case .webp: return ".webp"
        }
    }

    /// Splits a URL size segment into its size text and format: "480x480" → ("480x480",
    /// .standard), "480x480.webp" → ("480x480", .webp). nil for any other extension, so each
    /// format has exactly one spelling (".jpg" or ".WEBP" name nothing).
    public static func split(_ segment: String) -> (size: String, format: RenderFormat)? {
        guard let dot = segment.utf8.firstIndex(of: UInt8(ascii: ".")) else { return (segment, .standard) }
        let size = String(segment[..<dot])
        switch segment[segment.index(after: dot)...] {
        case "webp": return (size, .webp)
        default: return nil
        }
    }
}
