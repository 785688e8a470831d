/// The marker segments of a baseline JFIF file, in the order and form cjpeg writes them
/// (`jcmarker.c`): SOI, APP0 (JFIF 1.01, 1:1 aspect, no thumbnail), one DQT per table, SOF0,
/// one DHT per table, SOS, then the entropy-coded data and EOI.
enum JPEGMarkerWriter {
    static let startOfImage: [UInt8] = [0xFF, 0xD8]
    static let endOfImage: [UInt8] = [0xFF, 0xD9]

    /// JFIF APP0: version 1.01, density unit 0 (aspect ratio only) 1:1, no thumbnail.
    static let jfif: [UInt8] = [
        0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
    ]

    /// Profile bytes per APP2 segment: 65,535 − 2 (length) − 14 ("ICC_PROFILE\0", sequence, count).
    static let iccChunkBytes = 65_519

    /// APP2 ICC_PROFILE segments carrying `profile` (ICC.1 Annex B.4): numbered from 1, each
    /// with the total count; at most 255 segments (16 MB). Empty for an empty profile.
    static func iccProfile(_ profile: [UInt8]) throws -> [UInt8] {
        guard !profile.isEmpty else { return [] }
        let chunks = (profile.count + iccChunkBytes - 1) / iccChunkBytes
        guard chunks <= 255 else {
            throw ImageCodecError(.invalidArgument, "ICC profile of \(profile.count) bytes does not fit 255 APP2 segments")
        }
        var out: [UInt8] = []
        out.reserveCapacity(profile.count + chunks * 18)
        for i in 0..<chunks {
            let start = i * iccChunkBytes, end = min(profile.count, start + iccChunkBytes)
            out += [0xFF, 0xE2] + be16(2 + 14 + end - start) + Array("ICC_PROFILE".utf8) + [0, UInt8(i + 1), UInt8(chunks)]
            out += profile[start..<end]
        }
        return out
    }

    /// DQT with 8-bit precision; `table` is in natural order and goes out in zigzag order.
    static func quantTable(id: Int, _ table: [UInt16]) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xDB, 0x00, 67, UInt8(id)]
        for k in 0..<64 { out.append(UInt8(truncatingIfNeeded: table[QuantTables.zigzag[k]])) }
        return out
    }

    /// SOF0 (baseline, 8-bit samples). Width and height are at most 65,500.
    static func frameHeader(_ layout: FrameLayout) -> [UInt8] {
        let length = 8 + 3 * layout.components.count
        var out: [UInt8] = [0xFF, 0xC0] + be16(length) + [8] + be16(layout.height) + be16(layout.width)
        out.append(UInt8(layout.components.count))
        for c in layout.components {
            out += [c.id, UInt8(c.h << 4 | c.v), UInt8(c.table)]
        }
        return out
    }

    /// DHT for one table: class 0 = DC, 1 = AC.
    static func huffmanTable(tableClass: Int, id: Int, _ spec: HuffmanSpec) -> [UInt8] {
        let length = 2 + 1 + 16 + spec.values.count
        return [0xFF, 0xC4] + be16(length) + [UInt8(tableClass << 4 | id)] + spec.bits + spec.values
    }

    /// SOS for a single sequential scan over every component (Ss 0, Se 63, Ah = Al = 0).
    static func scanHeader(_ layout: FrameLayout) -> [UInt8] {
        let length = 6 + 2 * layout.components.count
        var out: [UInt8] = [0xFF, 0xDA] + be16(length) + [UInt8(layout.components.count)]
        for c in layout.components {
            out += [c.id, UInt8(c.table << 4 | c.table)]
        }
        out += [0, 63, 0]
        return out
    }

    private static func be16(_ v: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }
}
