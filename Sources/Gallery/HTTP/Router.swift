import ImagePipeline

/// What a request asks for. Ids come only from URL segments of exactly 12 hex digits and are
/// looked up in the catalog; no part of a URL ever becomes a file path.
public enum Route: Equatable, Sendable {
    case index(page: Int)
    case album(id: String, page: Int)
    case photo(id: String)
    /// `/album/<id>/photos?page=N`: one album page of photos as JSON, for the viewer.
    case albumPhotos(id: String, page: Int)
    /// `/album/<id>/download` (`?sub=1`: with the albums below it): the originals as a ZIP.
    case albumDownload(id: String, subalbums: Bool)
    case original(id: String)
    /// `/original/<id>/live` or `/original/<id>/raw`: an item's companion file.
    case companionOriginal(id: String, role: Companion.Role)
    /// `/original/<id>/motion`: the movie inside a motion photo (bytes of the still's file).
    case motionOriginal(id: String)
    /// `spec` parsed from "480" or "240x240", `format` from the extension after it ("480.webp");
    /// `version` from `?v=`, nil when absent or malformed.
    case image(id: String, spec: SizeSpec, format: RenderFormat, version: String?)
    /// An image URL whose size segment is no size at all ("0240", "1x2x3"): 400 for a known id.
    case badImageSize(id: String)
    /// `/search?q=…&page=N`: `query` is the decoded text ("" when absent or undecodable).
    case search(query: String, page: Int)
    /// `/search/photos?q=…&page=N`: a page of results as the viewer's JSON.
    case searchPhotos(query: String, page: Int)
    /// `/on-this-day`: photos taken on today's month and day in earlier years.
    case onThisDay
    /// `/map` (album nil) or `/album/<id>/map`.
    case map(albumID: String?)
    /// `/map/points?bbox=w,s,e,n&zoom=z[&album=<id>]`: the positions inside the box, as JSON.
    case mapPoints(box: MapBox, zoom: Int, albumID: String?)
    case healthz
    case metrics
    case notFound
}

/// A longitude/latitude box in degrees (west may exceed east across the antimeridian is not
/// supported: the map asks for boxes within -180...180).
public struct MapBox: Equatable, Sendable {
    public var west: Double, south: Double, east: Double, north: Double

    /// "w,s,e,n": four finite numbers, latitudes within ±90 and south ≤ north, longitudes
    /// clamped to ±180 (a map zoomed out asks for more than the world) and west ≤ east.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4, text.utf8.count <= 100 else { return nil }
        let numbers = parts.compactMap { Double($0) }
        guard numbers.count == 4, numbers.allSatisfy(\.isFinite) else { return nil }
        west = max(-180, min(180, numbers[0]))
        east = max(-180, min(180, numbers[2]))
        south = max(-90, min(90, numbers[1]))
        north = max(-90, min(90, numbers[3]))
        guard west <= east, south <= north else { return nil }
    }
}

/// Maps a raw (still percent-encoded) path and query to a `Route`.
public enum Router {
    /// Largest page number accepted in `?page=`.
    public static let maxPage = 100_000

    public static func route(path: String, query: String) -> Route {
        // Valid URLs use only these bytes, so anything encoded (%2e, %2f, %00), a backslash
        // or other oddity cannot name a page: refuse it before looking at the segments.
        guard path.utf8.first == UInt8(ascii: "/"), path.utf8.count <= 256,
              path.utf8.allSatisfy(isPathByte) else { return .notFound }
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .dropFirst().map { String(decoding: $0, as: UTF8.self) }
        let params = QueryString.parse(query)
        switch segments.count {
        case 1 where segments[0].isEmpty:
            guard let page = pageNumber(params) else { return .notFound }
            return .index(page: page)
        case 1 where segments[0] == "search":
            guard let page = pageNumber(params) else { return .notFound }
            return .search(query: params["q"] ?? "", page: page)
        case 2 where segments[0] == "search" && segments[1] == "photos":
            guard let page = pageNumber(params) else { return .notFound }
            return .searchPhotos(query: params["q"] ?? "", page: page)
        case 1 where segments[0] == "on-this-day": return .onThisDay
        case 1 where segments[0] == "map": return .map(albumID: nil)
        case 2 where segments[0] == "map" && segments[1] == "points":
            return mapPoints(params)
        case 1 where segments[0] == "healthz": return .healthz
        case 1 where segments[0] == "metrics": return .metrics
        case 2 where StableID.isWellFormed(segments[1]):
            switch segments[0] {
            case "album":
                guard let page = pageNumber(params) else { return .notFound }
                return .album(id: segments[1], page: page)
            case "photo": return .photo(id: segments[1])
            case "original": return .original(id: segments[1])
            default: return .notFound
            }
        case 3 where segments[0] == "album" && StableID.isWellFormed(segments[1]) && segments[2] == "photos":
            guard let page = pageNumber(params) else { return .notFound }
            return .albumPhotos(id: segments[1], page: page)
        case 3 where segments[0] == "album" && StableID.isWellFormed(segments[1]) && segments[2] == "download":
            return .albumDownload(id: segments[1], subalbums: params["sub"] == "1")
        case 3 where segments[0] == "album" && StableID.isWellFormed(segments[1]) && segments[2] == "map":
            return .map(albumID: segments[1])
        case 3 where segments[0] == "original" && StableID.isWellFormed(segments[1]) && segments[2] == "motion":
            return .motionOriginal(id: segments[1])
        case 3 where segments[0] == "original" && StableID.isWellFormed(segments[1]):
            guard let role = Companion.Role(rawValue: segments[2]) else { return .notFound }
            return .companionOriginal(id: segments[1], role: role)
        case 3 where segments[0] == "img" && StableID.isWellFormed(segments[1]):
            // An extension other than the formats' own names no resource: 404, not 400.
            guard let (size, format) = RenderFormat.split(segments[2]) else { return .notFound }
            guard let spec = SizeSpec(parsing: size) else { return .badImageSize(id: segments[1]) }
            let v = params["v"].flatMap { isVersionShape($0) ? $0 : nil }
            return .image(id: segments[1], spec: spec, format: format, version: v)
        default:
            return .notFound
        }
    }

    /// A share link's path, "/s/<token>/<rest>", split into the token and the path it opens
    /// ("/" for the link itself); nil for any other path. The token is only checked for shape
    /// here (1-64 base64url characters); `ShareLinks` decides what it opens.
    public static func shareScope(path: String) -> (token: String, rest: String)? {
        guard path.hasPrefix("/s/") else { return nil }
        let after = path.dropFirst(3)
        let slash = after.firstIndex(of: "/")
        let token = after[..<(slash ?? after.endIndex)]
        guard !token.isEmpty, token.utf8.count <= 64, token.utf8.allSatisfy(isTokenByte) else { return nil }
        return (String(token), slash.map { String(after[$0...]) } ?? "/")
    }

    /// The points request: a valid box and zoom 0-22, and an album id when one is named.
    private static func mapPoints(_ params: [String: String]) -> Route {
        guard let box = params["bbox"].flatMap(MapBox.init(parsing:)),
              let zoomText = params["zoom"], zoomText.utf8.count <= 2, let zoom = Int(zoomText), (0...22).contains(zoom) else { return .notFound }
        let album = params["album"]
        if let album, !StableID.isWellFormed(album) { return .notFound }
        return .mapPoints(box: box, zoom: zoom, albumID: album)
    }

    /// 1 when absent; nil (not found) when malformed or out of range.
    private static func pageNumber(_ params: [String: String]) -> Int? {
        guard let text = params["page"] else { return 1 }
        guard !text.isEmpty, text.utf8.count <= 6, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let n = Int(text), n >= 1, n <= maxPage else { return nil }
        return n
    }

    /// Letters, digits, `/`, `-`, `_`, and `.` for image formats ("480.webp"): a segment of
    /// dots alone ("..") is no id, size or name, so it still reaches nothing.
    /// base64url and hex: letters, digits, "-" and "_" (not "." or "/", which path bytes allow).
    private static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
    }

    private static func isPathByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2F || b == 0x2D || b == 0x5F
            || b == 0x2E
    }

    /// Versions are a short lowercase hex content version, optionally followed by a render
    /// mode's tag of 1-8 lowercase letters and digits ("3f2a9c01b7de-p3": wide colour).
    static func isVersionShape(_ s: String) -> Bool {
        let parts = s.utf8.split(separator: UInt8(ascii: "-"), maxSplits: 1, omittingEmptySubsequences: false)
        guard let hex = parts.first, !hex.isEmpty, hex.count <= 64,
              hex.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return false }
        guard parts.count == 2 else { return true }
        let tag = parts[1]
        return !tag.isEmpty && tag.count <= 8 && tag.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }
    }
}

/// `a=1&b=2` into a dictionary, values percent-decoded ("+" is a space); the first of repeated keys wins.
public enum QueryString {
    public static func parse(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        guard !query.isEmpty, query.utf8.count <= 4096 else { return result }
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = percentDecode(kv[0]), !key.isEmpty, result[key] == nil else { continue }
            result[key] = kv.count > 1 ? percentDecode(kv[1]) ?? "" : ""
        }
        return result
    }

    /// Percent-decodes; nil on a malformed escape or bytes that are not UTF-8.
    public static func percentDecode<S: StringProtocol>(_ text: S) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(Hex.value), let l = it.next().flatMap(Hex.value) else { return nil }
                bytes.append(h << 4 | l)
            } else {
                bytes.append(b == UInt8(ascii: "+") ? 0x20 : b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
