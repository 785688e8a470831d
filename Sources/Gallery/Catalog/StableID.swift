/// Short ids for albums and items: 12 lowercase hex digits (48 bits) of a 64-bit FNV-1a hash
/// of a key such as "item:Summer/IMG_1.jpg". Stable across runs and hosts, never a path.
/// The catalog resolves the rare collision by re-hashing with a suffix.
public enum StableID {
    /// The id text for `key`.
    public static func make(_ key: String) -> String {
        var fnv = FNV1a()
        fnv.add(key)
        var hash = fnv.value
        // Fold the high half in so the 48 kept bits depend on every input bit.
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 32
        // Written in place: a catalog build makes one per photo, and two arrays a call were
        // a noticeable part of it.
        return String(unsafeUninitializedCapacity: 12) { out in
            for i in 0..<12 {
                let nibble = UInt8(truncatingIfNeeded: hash >> (UInt64(i) * 4)) & 0xf
                out[11 - i] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
            }
            return 12
        }
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
