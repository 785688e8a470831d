/// Short ids for albums and items: 12 lowercase hex digits (48 bits) of a 64-bit FNV-1a hash
/// of a key such as "item:Summer/IMG_1.jpg". Stable across runs and hosts, never a path.
/// The catalog resolves the rare collision by re-hashing with a suffix.
public enum StableID {
    /// The id text for `key`.
    public static func make(_ key: String) -> String {
        var fnv = FNV1a()
        fnv.add(key)
        return text(folded(fnv))
    }

    /// The number of `make("item:" + path)` for the photo `name` in `folder` (relative, ""
    /// for the root), hashed piece by piece: a catalog build makes one per photo, and the path
    /// (a heap string past 15 bytes), the key and the id's text were made and freed for each.
    static func itemNumber(folder: String, name: String) -> UInt64 {
        var fnv = FNV1a()
        fnv.add("item:")
        if !folder.isEmpty {
            fnv.add(folder)
            fnv.add("/")
        }
        fnv.add(name)
        return folded(fnv)
    }

    /// The 48 bits an id keeps, with the high half folded in so that they depend on every
    /// input bit.
    private static func folded(_ fnv: FNV1a) -> UInt64 {
        var hash = fnv.value
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 32
        return hash & 0xffff_ffff_ffff
    }

    /// Whether `text` has the shape of an id (exactly 12 lowercase hex digits).
    public static func isWellFormed<S: StringProtocol>(_ text: S) -> Bool {
        var count = 0
        for byte in text.utf8 {
            count += 1
            guard count <= 12, (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
        }
        return count == 12
    }
}
