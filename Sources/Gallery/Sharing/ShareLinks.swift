import Foundation
import ImagePipeline
import Synchronization

/// Share links: `/s/<token>/` opens one album (and the albums below it that share its
/// privacy) for whoever holds the link.
///
/// A token is the album's id (12 hex digits, which says which album to check), the id of the
/// key that signed it (4 base64url characters: a MAC of a fixed text under the key, so it
/// names the key without revealing it) and the first 128 bits of HMAC-SHA256 over the album's
/// identity (its path in the library) under that key, in base64url: 38 characters. Without a
/// key no one can make a token for any album, a token names exactly one album, and a changed
/// key (or a moved album) invalidates it. Tokens are checked by recomputing the MAC and
/// comparing in constant time.
///
/// Two keys may be live (`ShareKeyring`): after `gallery share --rotate` the previous key keeps
/// opening its links for a grace period. Tokens of the first format (34 characters, no key id,
/// made before rotation existed) are checked against every live key.
final class ShareLinks: Sendable {
    /// MAC bytes in a token: 128 bits, beyond any guessing.
    static let macBytes = 16
    /// Characters of a key id.
    static let keyIDLength = 4
    /// Characters of a token: the 12-digit album id, the key id and 22 base64url characters.
    static let tokenLength = 12 + keyIDLength + 22
    /// Characters of a first-format token (no key id).
    static let legacyTokenLength = 12 + 22

    let keyPath: String
    /// The keyring as last read, with the stamps of both key files it was read at.
    private let keys = Mutex<(stamps: [[Int]?]?, keyring: ShareKeyring?)>((nil, nil))
    private let now: @Sendable () -> Int
    private let log: @Sendable (String) -> Void

    /// `now`: the time in Unix seconds (injected so tests can end a grace period).
    init(keyPath: String, now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) },
         log: @escaping @Sendable (String) -> Void) {
        self.keyPath = keyPath
        self.now = now
        self.log = log
    }

    /// The link path of `album` under `key`: "/s/<token>/".
    static func path(for album: CatalogAlbum, key: [UInt8]) -> String {
        "/s/" + token(for: album, key: key) + "/"
    }

    static func token(for album: CatalogAlbum, key: [UInt8]) -> String {
        album.id + keyID(key) + base64url(Array(mac(for: album.relativePath, key: key).prefix(macBytes)))
    }

    /// The 4-character name of `key` in its tokens.
    static func keyID(_ key: [UInt8]) -> String {
        String(base64url(Array(HMACSHA256.mac(key: key, message: Array("gallery-share-key-id".utf8)).prefix(3))))
    }

    private static func mac(for relativePath: String, key: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: key, message: Array(("gallery-share-v1\n" + relativePath).utf8))
    }

    /// The album `token` opens in `catalog`, or nil: wrong length or shape, unknown album or
    /// key, no key at all, or a MAC that does not match.
    func album(forToken token: String, in catalog: Catalog) -> CatalogAlbum? {
        let length = token.utf8.count
        guard length == ShareLinks.tokenLength || length == ShareLinks.legacyTokenLength,
              let keyring = currentKeyring() else { return nil }
        let id = String(token.prefix(12))
        guard StableID.isWellFormed(id) else { return nil }
        // An unknown id or key id still costs the MACs a known one would, so timing does not
        // tell which ids exist.
        let album = catalog.albums[id]
        let path = album?.relativePath ?? "\u{0}"
        let live = keyring.liveKeys(now: now())
        var matches = false
        if length == ShareLinks.tokenLength {
            let named = token.dropFirst(12).prefix(ShareLinks.keyIDLength)
            let key = live.first { ShareLinks.keyID($0) == named } ?? live[0]
            matches = check(token, id: id, keyID: ShareLinks.keyID(key), path: path, key: key)
        } else {
            for key in live where check(token, id: id, keyID: "", path: path, key: key) { matches = true }
        }
        return matches ? album : nil
    }

    private func check(_ token: String, id: String, keyID: String, path: String, key: [UInt8]) -> Bool {
        let expected = id + keyID + ShareLinks.base64url(Array(ShareLinks.mac(for: path, key: key).prefix(ShareLinks.macBytes)))
        return HMACSHA256.constantTimeEqual(Array(token.utf8), Array(expected.utf8))
    }

    /// The key new links are signed with; nil when there is none.
    func currentKey() -> [UInt8]? { currentKeyring()?.current }

    /// The keys, read again when either file was replaced; nil when the current key is
    /// missing or unreadable (then no link opens anything).
    func currentKeyring() -> ShareKeyring? {
        let stamps = [ShareKey.stamp(keyPath), ShareKey.stamp(ShareKeyring.previousPath(keyPath))]
        return keys.withLock { state -> ShareKeyring? in
            if let known = state.stamps, known == stamps, stamps[0] != nil { return state.keyring }
            state.stamps = stamps
            do {
                state.keyring = try ShareKeyring.load(keyPath)
            } catch {
                log("share: \(error)")
                state.keyring = nil
            }
            return state.keyring
        }
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
