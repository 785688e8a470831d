/// The directory structure of a TIFF-shaped file (TIFF, BigTIFF, and the camera raws built
/// on it), read through a `ByteSource` so that a 60 MB raw costs only its IFDs and the parts
/// asked for. Byte order and offset width come from the header; every IFD is read in one
/// positioned read, and every value array is checked against the file size before it is read.
struct TIFFContainer {
    let source: ByteSource
    let little: Bool
    /// BigTIFF (43): 8-byte counts and offsets, 20-byte entries.
    let big: Bool
    /// The header's second field: 42 (TIFF), 43 (BigTIFF), 0x4F52/0x5352 (Olympus ORF),
    /// 0x55 (Panasonic RW2).
    let magic: Int
    let firstIFD: Int

    /// Most entries one IFD may hold (real files use a few dozen; maker notes a few hundred).
    static let maxEntries = 4_096
    /// Most IFDs one walk visits (chains, SubIFDs and EXIF together).
    static let maxDirectories = 256

    init(_ source: ByteSource) throws {
        self.source = source
        guard source.size >= 8 else { throw ImageCodecError(.truncated, "TIFF header is shorter than 8 bytes") }
        let head = try source.read(offset: 0, count: min(16, source.size))
        switch (head[0], head[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw ImageCodecError(.notAnImage, "not a TIFF file (byte order mark)")
        }
        magic = TIFFContainer.int(head, 2, 2, little)
        switch magic {
        case 42, 0x4F52, 0x5352, 0x55:
            big = false
            firstIFD = TIFFContainer.int(head, 4, 4, little)
        case 43:
            guard head.count >= 16, TIFFContainer.int(head, 4, 2, little) == 8, TIFFContainer.int(head, 6, 2, little) == 0 else {
                throw ImageCodecError(.corrupt, "BigTIFF header with an offset size other than 8")
            }
            big = true
            firstIFD = TIFFContainer.int(head, 8, 8, little)
        default:
            throw ImageCodecError(.notAnImage, "not a TIFF file (version \(magic))")
        }
    }

    /// An unsigned integer of `size` (1, 2, 4 or 8) bytes at `at` in `bytes`, which the caller
    /// has checked holds it. Values above Int.max (8-byte fields) come out negative and are
    /// refused by every range check that follows.
    static func int(_ bytes: [UInt8], _ at: Int, _ size: Int, _ little: Bool) -> Int {
        var v: UInt64 = 0
        for i in 0..<size {
            let b = UInt64(bytes[at + (little ? size - 1 - i : i)])
            v = v << 8 | b
        }
        return Int(truncatingIfNeeded: v)
    }

    /// Bytes of one value of TIFF field type `type`; nil for unknown types.
    static func typeSize(_ type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12, 16, 17, 18: return 8
        default: return nil
        }
    }

    /// The IFD at `offset`: its entries (first occurrence of each tag) and the next IFD's offset.
    func directory(at offset: Int) throws -> TIFFDirectory {
        let countSize = big ? 8 : 2, entrySize = big ? 20 : 12, nextSize = big ? 8 : 4
        guard offset >= 8, offset < source.size else {
            throw ImageCodecError(.corrupt, "IFD offset \(offset) is outside the file")
        }
        let countBytes = try source.read(offset: offset, count: countSize)
        let count = TIFFContainer.int(countBytes, 0, countSize, little)
        guard count > 0, count <= TIFFContainer.maxEntries else {
            throw ImageCodecError(.corrupt, "IFD at \(offset) claims \(count) entries")
        }
        let body = count * entrySize
        let available = source.size - offset - countSize
        guard body <= available else { throw ImageCodecError(.truncated, "IFD at \(offset) runs past the end") }
        let raw = try source.read(offset: offset + countSize, count: min(body + nextSize, available))
        var entries: [Int: TIFFEntry] = [:]
        for i in 0..<count {
            let at = i * entrySize
            let tag = TIFFContainer.int(raw, at, 2, little)
            guard entries[tag] == nil else { continue }
            let type = TIFFContainer.int(raw, at + 2, 2, little)
            let n = TIFFContainer.int(raw, at + 4, big ? 8 : 4, little)
            let field = big ? at + 12 : at + 8
            entries[tag] = TIFFEntry(type: type, count: n, field: Array(raw[field..<(field + (big ? 8 : 4))]))
        }
        let next = raw.count >= body + nextSize ? TIFFContainer.int(raw, body, nextSize, little) : 0
        return TIFFDirectory(offset: offset, entries: entries, next: next)
    }

    /// The raw bytes of an entry's values (file byte order), at most `maxCount` values;
    /// nil for an unknown type, a count over `maxCount` or values outside the file.
    func valueBytes(_ e: TIFFEntry, maxCount: Int) throws -> [UInt8]? {
        guard e.count >= 0, e.count <= maxCount else { return nil }
        return try leadingValueBytes(e, count: e.count)
    }

    /// The first `count` values' bytes of an entry (which may hold more), read from wherever
    /// the whole entry is stored: inline only when all its values fit in the field.
    func leadingValueBytes(_ e: TIFFEntry, count: Int) throws -> [UInt8]? {
        guard let size = TIFFContainer.typeSize(e.type), count >= 0, count <= e.count else { return nil }
        let (full, overflow) = e.count.multipliedReportingOverflow(by: size)
        let total = count * size
        guard !overflow, total <= source.size else { return nil }
        if full <= e.field.count { return Array(e.field[0..<total]) }
        let offset = TIFFContainer.int(e.field, 0, e.field.count, little)
        guard offset >= 0, offset <= source.size, total <= source.size - offset else { return nil }
        return try source.read(offset: offset, count: total)
    }

    /// Where an entry's out-of-line values start (nil when they are inline or outside the file).
    func valueOffset(_ e: TIFFEntry) -> Int? {
        guard let size = TIFFContainer.typeSize(e.type), e.count >= 0, e.count <= source.size / size,
              e.count * size > e.field.count else { return nil }
        let offset = TIFFContainer.int(e.field, 0, e.field.count, little)
        return offset >= 0 && offset <= source.size - e.count * size ? offset : nil
    }

    /// Unsigned integer values (BYTE, SHORT, LONG, IFD, LONG8, IFD8; UNDEFINED read as bytes),
    /// at most `maxCount`; nil when absent, of another type or out of range.
    func integers(_ dir: TIFFDirectory, _ tag: Int, maxCount: Int) throws -> [Int]? {
        guard let e = dir.entries[tag], [1, 3, 4, 7, 13, 16, 18].contains(e.type),
              let bytes = try valueBytes(e, maxCount: maxCount), let size = TIFFContainer.typeSize(e.type) else { return nil }
        return (0..<e.count).map { TIFFContainer.int(bytes, $0 * size, size, little) }
    }

    /// The first integer value of `tag`, or nil.
    func integer(_ dir: TIFFDirectory, _ tag: Int) throws -> Int? {
        guard let e = dir.entries[tag], e.count >= 1, [1, 3, 4, 13, 16, 18].contains(e.type),
              let size = TIFFContainer.typeSize(e.type), let bytes = try leadingValueBytes(e, count: 1) else { return nil }
        return TIFFContainer.int(bytes, 0, size, little)
    }

    /// ASCII text of `tag` up to its first NUL (at most 256 bytes).
    func text(_ dir: TIFFDirectory, _ tag: Int) throws -> String? {
        guard let e = dir.entries[tag], e.type == 2, e.count > 0,
              let bytes = try leadingValueBytes(e, count: min(e.count, 256)) else { return nil }
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[0..<end], as: UTF8.self)
    }

    /// Every IFD reachable from the first one through next links and SubIFDs (330), in
    /// file order of discovery, each once; EXIF (34665) and GPS are not images and are left out.
    /// Damage past the first IFD ends the walk quietly: the images found so far still count.
    func imageDirectories() throws -> [TIFFDirectory] {
        var found: [TIFFDirectory] = []
        var visited = Set<Int>()
        var queue = [firstIFD]
        while let offset = queue.first, found.count < TIFFContainer.maxDirectories {
            queue.removeFirst()
            guard !visited.contains(offset) else { continue }
            visited.insert(offset)
            let dir: TIFFDirectory
            do { dir = try directory(at: offset) } catch {
                if found.isEmpty { throw error }
                continue
            }
            found.append(dir)
            if dir.next != 0 { queue.append(dir.next) }
            if let subs = try? integers(dir, 330, maxCount: 64) { queue.append(contentsOf: subs.filter { $0 > 0 }) }
        }
        return found
    }
}

/// One IFD entry: field type, value count and the raw value-or-offset field (4 or 8 bytes).
struct TIFFEntry {
    let type: Int
    let count: Int
    let field: [UInt8]
}

/// One image file directory.
struct TIFFDirectory {
    let offset: Int
    let entries: [Int: TIFFEntry]
    let next: Int
}
