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
        let keyPath = keyFile ?? cacheDirectory + "/" + ShareKey.defaultFileName
        let key: [UInt8]
        do { key = try ShareKey.loadOrCreate(keyPath) } catch { throw Problem(description: error.description) }
        return Link(path: ShareLinks.path(for: target, key: key), title: target.title, isPrivate: target.privateRoot != nil)
    }
}
