#if canImport(Glibc)
import Glibc
#endif

/// One file of a ZIP download: where its bytes are and what the archive calls it.
struct ZipEntry: Sendable, Equatable {
    /// UTF-8 path inside the archive, "/"-separated ("Trips/2024/IMG_1.jpg").
    var name: [UInt8]
    /// Bytes of the file, as the catalog (or the disk cache's metadata) knows them.
    var size: Int
    /// Modification time, seconds since 1970 (written as a UTC DOS date and time).
    var modified: Int
    /// The file to read: a library file or a disk-cached remote original.
    var path: String
    /// The library folder `path` must lie in when it is opened (`LibraryFile`); nil for a
    /// disk-cached original, whose path the cache made.
    var root: String? = nil
}

/// The byte layout of a ZIP archive of stored (uncompressed) entries, decided from names,
/// sizes and times alone, so it is known before any file is read.
///
/// Why this shape: photos are already compressed, so entries are stored; every local header
/// has flag bit 3 (sizes and CRC in a data descriptor after the data), so the CRC-32 can be
/// computed while the data streams and the archive is written in one pass in constant memory.
/// Because nothing in the layout depends on the bytes, the total length is known up front
/// (`Content-Length`, so browsers show progress) and any byte range can be produced on its
/// own (`Range`, so downloads resume): a ranged answer needs only the CRCs of the entries
/// whose descriptor or central record falls inside the range (see `ZipStreamer`).
///
/// ZIP64 (APPNOTE 4.5): an entry of 4 GiB or more gets a ZIP64 extra field in its local
/// header and 8-byte sizes in its descriptor; a central record gets one for such sizes or a
/// local header offset past 4 GiB; the archive gets the ZIP64 end records when it has 65,535
/// entries or more or its central directory starts or ends past 4 GiB. Names are UTF-8 (flag
/// bit 11); times are UTC (no time zone in the archive, so the bytes do not depend on the host's).
struct ZipLayout: Sendable {
    let entries: [ZipEntry]
    /// Offset of each entry's local header.
    let offsets: [Int]
    let centralStart: Int
    let centralSize: Int
    /// Whether the ZIP64 end of central directory record and locator are written.
    let zip64End: Bool
    /// Bytes of the whole archive.
    let totalLength: Int

    /// Fields at or above this value do not fit the 32-bit format and move to ZIP64 fields.
    static let max32 = 0xFFFF_FFFF
    /// Entry counts at or above this value need the ZIP64 end record.
    static let max16 = 0xFFFF

    init(entries: [ZipEntry]) {
        self.entries = entries
        var offsets: [Int] = []
        offsets.reserveCapacity(entries.count)
        var offset = 0
        for entry in entries {
            offsets.append(offset)
            offset += ZipLayout.localHeaderLength(entry) + entry.size + ZipLayout.descriptorLength(entry)
        }
        self.offsets = offsets
        centralStart = offset
        var central = 0
        for (entry, at) in zip(entries, offsets) { central += ZipLayout.centralLength(entry, offset: at) }
        centralSize = central
        zip64End = entries.count >= ZipLayout.max16 || centralStart >= ZipLayout.max32 || centralStart + central >= ZipLayout.max32
        totalLength = centralStart + central + (zip64End ? 56 + 20 : 0) + 22
    }

    // MARK: Lengths

    static func isZip64(_ entry: ZipEntry) -> Bool { entry.size >= max32 }

    static func localHeaderLength(_ entry: ZipEntry) -> Int { 30 + entry.name.count + (isZip64(entry) ? 20 : 0) }

    static func descriptorLength(_ entry: ZipEntry) -> Int { isZip64(entry) ? 24 : 16 }

    static func centralExtraLength(_ entry: ZipEntry, offset: Int) -> Int {
        let fields = (isZip64(entry) ? 16 : 0) + (offset >= max32 ? 8 : 0)
        return fields == 0 ? 0 : 4 + fields
    }

    static func centralLength(_ entry: ZipEntry, offset: Int) -> Int {
        46 + entry.name.count + centralExtraLength(entry, offset: offset)
    }

    // MARK: Records

    /// Local file header: CRC and sizes zero (they follow in the descriptor).
    func localHeader(_ i: Int) -> [UInt8] {
        let entry = entries[i]
        let zip64 = ZipLayout.isZip64(entry)
        var out = ZipBytes(capacity: ZipLayout.localHeaderLength(entry))
        out.u32(0x0403_4b50)
        out.u16(zip64 ? 45 : 20)
        out.u16(ZipLayout.flags)
        out.u16(0)  // stored
        let (time, date) = ZipLayout.dosTime(entry.modified)
        out.u16(time); out.u16(date)
        out.u32(0); out.u32(0); out.u32(0)
        out.u16(entry.name.count)
        out.u16(zip64 ? 20 : 0)
        out.append(entry.name)
        if zip64 {
            out.u16(0x0001); out.u16(16)
            out.u64(0); out.u64(0)
        }
        return out.bytes
    }

    /// Data descriptor after the data: signature, CRC-32, then both sizes (8 bytes each for
    /// an entry whose local header carries a ZIP64 field).
    func descriptor(_ i: Int, crc: UInt32) -> [UInt8] {
        let entry = entries[i]
        var out = ZipBytes(capacity: ZipLayout.descriptorLength(entry))
        out.u32(0x0807_4b50)
        out.u32(crc)
        if ZipLayout.isZip64(entry) {
            out.u64(UInt64(entry.size)); out.u64(UInt64(entry.size))
        } else {
            out.u32(UInt32(entry.size)); out.u32(UInt32(entry.size))
        }
        return out.bytes
    }

    /// Central directory record of entry `i`.
    func central(_ i: Int, crc: UInt32) -> [UInt8] {
        let entry = entries[i], offset = offsets[i]
        let zip64Size = ZipLayout.isZip64(entry), zip64Offset = offset >= ZipLayout.max32
        let extra = ZipLayout.centralExtraLength(entry, offset: offset)
        var out = ZipBytes(capacity: ZipLayout.centralLength(entry, offset: offset))
        out.u32(0x0201_4b50)
        out.u16(3 << 8 | 45)  // made by: Unix, APPNOTE 4.5
        out.u16(zip64Size || zip64Offset ? 45 : 20)
        out.u16(ZipLayout.flags)
        out.u16(0)
        let (time, date) = ZipLayout.dosTime(entry.modified)
        out.u16(time); out.u16(date)
        out.u32(crc)
        let size32 = zip64Size ? UInt32.max : UInt32(entry.size)
        out.u32(size32); out.u32(size32)
        out.u16(entry.name.count)
        out.u16(extra)
        out.u16(0)  // comment
        out.u16(0)  // disk
        out.u16(0)  // internal attributes
        out.u32(UInt32(0o100644) << 16)  // a regular file, rw-r--r--
        out.u32(zip64Offset ? UInt32.max : UInt32(offset))
        out.append(entry.name)
        if extra > 0 {
            out.u16(0x0001); out.u16(extra - 4)
            if zip64Size { out.u64(UInt64(entry.size)); out.u64(UInt64(entry.size)) }
            if zip64Offset { out.u64(UInt64(offset)) }
        }
        return out.bytes
    }

    /// The end records: ZIP64 end of central directory and its locator when needed, then the
    /// classic end record (with 0xFFFF/0xFFFFFFFF in the fields that moved to ZIP64).
    func end() -> [UInt8] {
        var out = ZipBytes(capacity: 22 + (zip64End ? 76 : 0))
        let count = entries.count
        if zip64End {
            let recordAt = centralStart + centralSize
            out.u32(0x0606_4b50)
            out.u64(44)  // size of the rest of this record
            out.u16(3 << 8 | 45); out.u16(45)
            out.u32(0); out.u32(0)
            out.u64(UInt64(count)); out.u64(UInt64(count))
            out.u64(UInt64(centralSize)); out.u64(UInt64(centralStart))
            out.u32(0x0706_4b50)
            out.u32(0)
            out.u64(UInt64(recordAt))
            out.u32(1)
        }
        out.u32(0x0605_4b50)
        out.u16(0); out.u16(0)
        let count16 = count >= ZipLayout.max16 ? UInt16.max : UInt16(count)
        out.u16(Int(count16)); out.u16(Int(count16))
        out.u32(centralSize >= ZipLayout.max32 || zip64End ? UInt32.max : UInt32(centralSize))
        out.u32(centralStart >= ZipLayout.max32 || zip64End ? UInt32.max : UInt32(centralStart))
        out.u16(0)
        return out.bytes
    }

    /// Data descriptor follows (bit 3), names are UTF-8 (bit 11).
    static let flags = 1 << 3 | 1 << 11

    /// MS-DOS time and date of `seconds` since 1970 in UTC, clamped to 1980...2107 (the range
    /// the format holds), with its two-second resolution.
    static func dosTime(_ seconds: Int) -> (time: Int, date: Int) {
        var t = time_t(max(315_532_800, min(seconds, 4_354_819_198)))
        var parts = tm()
        guard gmtime_r(&t, &parts) != nil else { return (0, 1 << 5 | 1) }
        let time = Int(parts.tm_hour) << 11 | Int(parts.tm_min) << 5 | Int(parts.tm_sec) / 2
        let date = (Int(parts.tm_year) + 1900 - 1980) << 9 | (Int(parts.tm_mon) + 1) << 5 | Int(parts.tm_mday)
        return (time, date)
    }
}

/// Little-endian record writer.
struct ZipBytes {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func u16(_ v: Int) {
        bytes.append(UInt8(truncatingIfNeeded: v)); bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    mutating func u32(_ v: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    mutating func u64(_ v: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    mutating func append(_ more: [UInt8]) { bytes += more }
}
