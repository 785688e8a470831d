/// What `gallery share` prints: the link of one album, made with the same key and catalog
/// rules as the server.
public enum ShareLinkMaker {
    public struct Link: Sendable {
        /// "/s/<token>/", to append to the site's address.
        public var path: String
        public var title: String
        /// Whether the album is private (else it is public anyway and the link only frames it).
        public var isPrivate: Bool
    }

    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// The link of `album` (a folder path relative to the root, or an album id) in the library
    /// at `root`, signed with the key in `keyFile` (default `share.key` in `cacheDirectory`,
    /// created 0600 when missing).
    public static func link(album: String, root: String, cacheDirectory: String, keyFile: String?) throws(Problem) -> Link {
        let catalog = CatalogScanner(root: root, siteTitle: "Gallery").scan().catalog
        let path = album.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        guard let target = catalog.albums[album] ?? catalog.albums.values.first(where: { $0.relativePath == path }) else {
            throw Problem(description: "no album '\(album)' in \(root) (give its folder path, e.g. Family/2024, or its id)")
        }
        let key: [UInt8]
        do { key = try ShareKey.loadOrCreate(keyPath(cacheDirectory: cacheDirectory, keyFile: keyFile)) } catch { throw Problem(description: error.description) }
        return Link(path: ShareLinks.path(for: target, key: key), title: target.title, isPrivate: target.privateRoot != nil)
    }

    /// The grace period of `rotate` when none is given: a week, time to hand out new links.
    public static let defaultGrace = 7 * 86_400

    /// Starts a new share key; links made with the old one keep opening for `grace` seconds.
    public static func rotate(cacheDirectory: String, keyFile: String?, grace: Int, now: Int) throws(Problem) {
        do { try ShareKeyring.rotate(keyPath(cacheDirectory: cacheDirectory, keyFile: keyFile), grace: grace, now: now) } catch {
            throw Problem(description: error.description)
        }
    }

    /// Starts a new share key and drops the previous one: every link made so far stops
    /// opening at the server's next share request.
    public static func revokeAll(cacheDirectory: String, keyFile: String?) throws(Problem) {
        do { try ShareKeyring.revokeAll(keyPath(cacheDirectory: cacheDirectory, keyFile: keyFile)) } catch {
            throw Problem(description: error.description)
        }
    }

    /// A duration as `gallery share --grace` takes it: seconds, or a number with `m`, `h` or
    /// `d` ("90m", "12h", "7d"); nil for anything else or more than a year.
    public static func parseDuration(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let scale = units[last] {
            digits = text.dropLast()
            unit = scale
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), let n = Int(digits), n >= 0 else { return nil }
        let seconds = n * unit
        return seconds <= 366 * 86_400 ? seconds : nil
    }

    static func keyPath(cacheDirectory: String, keyFile: String?) -> String {
        keyFile ?? cacheDirectory + "/" + ShareKey.defaultFileName
    }
}
