import Foundation
import ImagePipeline
import Synchronization

/// Share links: `/s/<token>/` opens one album (and the albums below it that share its
/// privacy) for whoever holds the link.
///
/// A token is the album's id (12 hex digits, which says which album to check) followed by the
/// first 128 bits of HMAC-SHA256 over the album's identity (its path in the library) under the
/// secret `ShareKey`, in base64url: 34 characters. Without the key no one can make a token
/// for any album, a token names exactly one album, and a changed key (or a moved album)
/// invalidates it. Tokens are checked by recomputing the MAC and comparing in constant time.
final class ShareLinks: Sendable {
    /// MAC bytes in a token: 128 bits, beyond any guessing.
    static let macBytes = 16
    /// Characters of a token: the 12-digit album id and 22 base64url characters.
    static let tokenLength = 12 + 22

    let keyPath: String
    private let key = Mutex<(stamp: [Int]?, bytes: [UInt8]?)>((nil, nil))
    private let log: @Sendable (String) -> Void

    init(keyPath: String, log: @escaping @Sendable (String) -> Void) {
        self.keyPath = keyPath
        self.log = log
    }

    /// The link path of `album` under `key`: "/s/<token>/".
    static func path(for album: CatalogAlbum, key: [UInt8]) -> String {
        "/s/" + token(for: album, key: key) + "/"
    }

    static func token(for album: CatalogAlbum, key: [UInt8]) -> String {
        album.id + base64url(Array(mac(for: album, key: key).prefix(macBytes)))
    }

    private static func mac(for album: CatalogAlbum, key: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: key, message: Array(("gallery-share-v1\n" + album.relativePath).utf8))
    }

    /// The album `token` opens in `catalog`, or nil: wrong length or shape, unknown album, no
    /// key, or a MAC that does not match.
    func album(forToken token: String, in catalog: Catalog) -> CatalogAlbum? {
        guard token.utf8.count == ShareLinks.tokenLength, let key = currentKey() else { return nil }
        let id = String(token.prefix(12))
        guard StableID.isWellFormed(id) else { return nil }
        // An unknown id still costs one MAC, so timing does not tell which ids exist.
        let album = catalog.albums[id]
        let candidate = album ?? CatalogAlbum(id: id, parentID: nil, relativePath: "\u{0}", title: "", caption: nil, albumIDs: [], itemIDs: [])
        let expected = ShareLinks.token(for: candidate, key: key)
        let matches = HMACSHA256.constantTimeEqual(Array(token.utf8), Array(expected.utf8))
        return matches ? album : nil
    }

    /// The key, read again when the file was replaced; nil when it is missing or unreadable
    /// (then no link opens anything).
    func currentKey() -> [UInt8]? {
        let stamp = ShareKey.stamp(keyPath)
        return key.withLock { state -> [UInt8]? in
            if state.stamp == stamp, stamp != nil { return state.bytes }
            state.stamp = stamp
            do {
                state.bytes = try ShareKey.read(keyPath)
            } catch {
                log("share: \(error)")
                state.bytes = nil
            }
            return state.bytes
        }
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
