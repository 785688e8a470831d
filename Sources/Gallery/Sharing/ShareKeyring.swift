import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The keys share links may be signed with: the current key (`share.key`), which signs new
/// links, and after a rotation the previous one (`share.key.previous`), which keeps opening
/// the links it signed until its grace period ends.
///
/// `share.key.previous` is a text file of two lines: `expires <unix seconds>` and the key in
/// hex. Both files are replaced by rename, so a reader sees the old file or the new one whole.
struct ShareKeyring: Equatable {
    var current: [UInt8]
    var previous: (key: [UInt8], expires: Int)?

    static func == (a: ShareKeyring, b: ShareKeyring) -> Bool {
        a.current == b.current && a.previous?.key == b.previous?.key && a.previous?.expires == b.previous?.expires
    }

    /// The keys that may open a link at `now`: the current one first.
    func liveKeys(now: Int) -> [[UInt8]] {
        guard let previous, previous.expires > now else { return [current] }
        return [current, previous.key]
    }

    static func previousPath(_ keyPath: String) -> String { keyPath + ".previous" }

    /// The keys in `keyPath` (and its `.previous` beside it); nil when there is no current
    /// key. A damaged previous file counts as none (its links stop opening: the safe side).
    static func load(_ keyPath: String) throws(ShareKey.Problem) -> ShareKeyring? {
        guard let current = try ShareKey.read(keyPath) else { return nil }
        return ShareKeyring(current: current, previous: readPrevious(previousPath(keyPath)))
    }

    static func readPrevious(_ path: String) -> (key: [UInt8], expires: Int)? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096,
              let text = String(data: data, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n")
        guard lines.count == 2, lines[0].hasPrefix("expires "), let expires = Int(lines[0].dropFirst(8)),
              let key = Hex.decode(lines[1], maxBytes: 1024), key.count >= ShareKey.minimumLength else { return nil }
        return (key, expires)
    }

    /// Starts a new current key; the old one keeps opening its links until `now + grace`
    /// seconds (a grace of 0 ends them now, like `revokeAll`). A previous key still in its
    /// grace period is dropped: only one rotation is in flight at a time.
    static func rotate(_ keyPath: String, grace: Int, now: Int) throws(ShareKey.Problem) {
        let old = try ShareKey.loadOrCreate(keyPath)
        if grace > 0 {
            let text = "expires \(now + grace)\n\(Hex.encode(old))\n"
            try ShareKey.replace(previousPath(keyPath), with: Array(text.utf8))
        } else {
            unlink(previousPath(keyPath))
        }
        try ShareKey.replace(keyPath, with: ShareKey.random())
    }

    /// A new current key and no previous one: every link made so far stops opening.
    static func revokeAll(_ keyPath: String) throws(ShareKey.Problem) {
        unlink(previousPath(keyPath))
        try ShareKey.replace(keyPath, with: ShareKey.random())
    }
}
