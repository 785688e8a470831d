/// EXIF for TIFF-shaped files read through a `ByteSource`: the few entries `ExifReader` uses
/// (IFD0's orientation, make, model and date; the EXIF IFD's exposure and lens; the GPS IFD)
/// are copied into a small classic little-endian TIFF and handed to `ExifReader`, so there is
/// one place that maps tags to fields, while the file itself may be big-endian, BigTIFF, or a
/// 60 MB raw whose IFD0 sits after the image data.
enum TIFFExifSubset {
    static let ifd0Tags: Set<Int> = Set([0x0112, 0x010F, 0x0110, 0x0132]).union(ExifTextFields.ifd0Tags)
    static let exifTags: Set<Int> = Set([0x9003, 0xA433, 0xA434, 0x829A, 0x829D, 0x920A, 0x8827, 0x8833, 0xA405])
        .union(ExifTextFields.exifTags)
    static let gpsTags: Set<Int> = [1, 2, 3, 4, 5, 6]

    /// EXIF facts of the file whose first IFD is `ifd0`; damage drops fields, never throws.
    static func metadata(_ c: TIFFContainer, ifd0: TIFFDirectory) -> ExifMetadata {
        let exif = (try? c.integer(ifd0, 0x8769)).flatMap { $0 }.flatMap { try? c.directory(at: $0) }
        let gps = (try? c.integer(ifd0, 0x8825)).flatMap { $0 }.flatMap { try? c.directory(at: $0) }
        return metadata(ifd0: (c, ifd0), exif: exif.map { (c, $0) }, gps: gps.map { (c, $0) })
    }

    /// EXIF facts from three IFDs that may live in different containers (a CR3 keeps each in
    /// its own TIFF blob).
    static func metadata(ifd0: (TIFFContainer, TIFFDirectory)?, exif: (TIFFContainer, TIFFDirectory)?,
                         gps: (TIFFContainer, TIFFDirectory)?) -> ExifMetadata {
        let lists = [entries(ifd0, ifd0Tags), entries(exif, exifTags), entries(gps, gpsTags)]
        var main = lists[0]
        let sizes = lists.map { 2 + ($0.count + 2) * 12 + 4 }
        let exifAt = 8 + sizes[0], gpsAt = exifAt + sizes[1]
        if exif != nil { main.append((0x8769, 4, 1, u32(exifAt))) }
        if gps != nil { main.append((0x8825, 4, 1, u32(gpsAt))) }
        var out: [UInt8] = [0x49, 0x49, 42, 0] + u32(8)
        var data: [UInt8] = []
        let dataAt = gpsAt + sizes[2]
        for (i, list) in [main, lists[1], lists[2]].enumerated() {
            let start = out.count
            out += u16(list.count)
            for (tag, type, count, value) in list.sorted(by: { $0.0 < $1.0 }) {
                out += u16(tag) + u16(type) + u32(count)
                if value.count <= 4 {
                    out += value + [UInt8](repeating: 0, count: 4 - value.count)
                } else {
                    out += u32(dataAt + data.count)
                    data += value
                }
            }
            out += u32(0)
            out += [UInt8](repeating: 0, count: start + sizes[i] - out.count)
        }
        return ExifReader.parse(tiff: (out + data)[...])
    }

    /// The wanted entries of one IFD with their values in little-endian order.
    private static func entries(_ source: (TIFFContainer, TIFFDirectory)?, _ tags: Set<Int>) -> [(Int, Int, Int, [UInt8])] {
        guard let (c, dir) = source else { return [] }
        var list: [(Int, Int, Int, [UInt8])] = []
        for (tag, e) in dir.entries where tags.contains(tag) {
            let count: Int
            let swap: Int
            switch e.type {
            case 1, 2, 7: count = min(e.count, ExifTextFields.ifd0Tags.union(ExifTextFields.exifTags).contains(tag) ? ExifTextFields.maxBytes : 256); swap = 1
            case 3: count = min(e.count, 4); swap = 2
            case 4: count = min(e.count, 4); swap = 4
            case 5: count = min(e.count, 3); swap = 4
            default: continue
            }
            guard count > 0, var bytes = (try? c.leadingValueBytes(e, count: count)) ?? nil else { continue }
            if !c.little && swap > 1 {
                for i in stride(from: 0, to: bytes.count, by: swap) { bytes[i..<(i + swap)].reverse() }
            }
            list.append((tag, e.type, count, bytes))
        }
        return list
    }

    private static func u16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    private static func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
}
