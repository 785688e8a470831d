/// The maker note iPhones and iPads write into the Exif IFD (tag 0x927C): "Apple iOS\0", a
/// two-byte version, the byte order "MM", then an IFD at byte 14 whose offsets count from the
/// note's first byte (ExifTool's Apple tag table describes it). Only the media group UUID
/// (0x0011) is read: a Live Photo's still and movie carry the same one, which pairs them when
/// their file names differ (an export renamed one, or two shots share a name).
enum AppleMakerNote {
    /// Notes longer than this are not read (real ones are 1-3 kB).
    static let maxBytes = 64 << 10

    /// The UUID text, nil when `note` is not an Apple maker note or has no well-formed one.
    static func contentIdentifier(_ note: ArraySlice<UInt8>) -> String? {
        let magic: [UInt8] = Array("Apple iOS".utf8) + [0]
        guard note.count >= 16, note.prefix(10).elementsEqual(magic) else { return nil }
        let bytes = Array(note)
        guard bytes[12] == 0x4D, bytes[13] == 0x4D else { return nil }
        let reader = TIFFReader(bytes: bytes, little: false)
        var visited = Set<Int>()
        var identifier: String?
        reader.forEachEntry(ifd: 14, visited: &visited) { tag, entry in
            if tag == 0x0011, identifier == nil { identifier = reader.asciiValue(entry) }
        }
        guard let identifier, isUUID(identifier) else { return nil }
        return identifier
    }

    /// 8-4-4-4-12 hexadecimal digits: anything else is not what the movie's metadata holds.
    static func isUUID(_ text: String) -> Bool {
        let groups = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) } }
    }
}
