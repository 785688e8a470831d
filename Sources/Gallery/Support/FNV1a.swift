/// 64-bit FNV-1a: a fast, stable, non-cryptographic hash for ids, change fingerprints and
/// asset versions (never for anything an attacker could exploit by colliding).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ v: UInt64) { value = (value ^ v) &* 0x100_0000_01b3 }

    mutating func add<S: Sequence>(bytes: S) where S.Element == UInt8 {
        for b in bytes { add(UInt64(b)) }
    }

    /// Over the string's UTF-8 buffer at once (a catalog build hashes a key per photo).
    mutating func add(_ text: String) {
        var text = text
        var value = self.value
        text.withUTF8 { bytes in
            for b in bytes { value = (value ^ UInt64(b)) &* 0x100_0000_01b3 }
        }
        self.value = value
    }
}
