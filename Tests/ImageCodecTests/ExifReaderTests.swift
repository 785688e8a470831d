import Foundation
import Testing
@testable import ImageCodec

// TIFF structures are built here byte by byte (docs/jpeg-decoding.md "EXIF orientation") so
// that each test states exactly which field is broken; one real APP1 (cut from a fixture JPEG)
// checks the common case.

/// One IFD entry value as the builder lays it out.
private enum Value {
    case short(Int)
    case long(Int)
    case byte(Int)
    case ascii(String)
    /// Any type, count and bytes (already in the file's byte order); ≤ 4 bytes sit inline.
    case raw(type: Int, count: Int, bytes: [UInt8])
    /// A value field holding this offset verbatim (for pointing outside the buffer).
    case offset(type: Int, count: Int, to: Int)
}

private struct TIFFBuilder {
    var little: Bool

    func u16(_ v: Int) -> [UInt8] {
        let b = [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
        return little ? b : b.reversed()
    }

    func u32(_ v: Int) -> [UInt8] {
        let b = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        return little ? b : b.reversed()
    }

    /// Header, IFD0 (with an 0x8769 pointer appended when `sub` is given), IFD0's data, then the
    /// sub-IFD and its data. `next` is IFD0's next-IFD offset; `subOffset` overrides the pointer.
    func build(_ ifd0: [(Int, Value)], sub: [(Int, Value)]? = nil, next: Int = 0, subOffset: Int? = nil, ifd0Offset: Int = 8) -> [UInt8] {
        var entries0 = ifd0
        if sub != nil { entries0.append((0x8769, .long(0))) }
        let ifd0Size = 2 + 12 * entries0.count + 4
        let data0Start = ifd0Offset + ifd0Size
        let data0 = dataSize(entries0)
        let subStart = data0Start + data0
        if let sub, let i = entries0.firstIndex(where: { $0.0 == 0x8769 }) {
            _ = sub
            entries0[i] = (0x8769, .long(subOffset ?? subStart))
        }
        var out = (little ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]) + u32(ifd0Offset)
        while out.count < ifd0Offset { out.append(0) }
        out += ifd(entries0, at: ifd0Offset, next: next)
        if let sub { out += ifd(sub, at: subStart, next: 0) }
        return out
    }

    private func encoded(_ v: Value) -> (type: Int, count: Int, bytes: [UInt8])? {
        switch v {
        case .short(let x): return (3, 1, u16(x))
        case .long(let x): return (4, 1, u32(x))
        case .byte(let x): return (1, 1, [UInt8(truncatingIfNeeded: x)])
        case .ascii(let s): let b = Array(s.utf8) + [0]; return (2, b.count, b)
        case .raw(let t, let c, let b): return (t, c, b)
        case .offset: return nil
        }
    }

    private func dataSize(_ entries: [(Int, Value)]) -> Int {
        entries.reduce(0) { sum, e in
            guard let enc = encoded(e.1), enc.bytes.count > 4 else { return sum }
            return sum + enc.bytes.count
        }
    }

    /// The IFD at `at` followed by its out-of-line data.
    private func ifd(_ entries: [(Int, Value)], at: Int, next: Int) -> [UInt8] {
        var table = u16(entries.count)
        var data: [UInt8] = []
        let dataStart = at + 2 + 12 * entries.count + 4
        for (tag, value) in entries {
            table += u16(tag)
            if case .offset(let type, let count, let to) = value {
                table += u16(type) + u32(count) + u32(to)
                continue
            }
            guard let enc = encoded(value) else { continue }
            table += u16(enc.type) + u32(enc.count)
            if enc.bytes.count <= 4 {
                table += enc.bytes + [UInt8](repeating: 0, count: 4 - enc.bytes.count)
            } else {
                table += u32(dataStart + data.count)
                data += enc.bytes
            }
        }
        return table + u32(next) + data
    }
}

private let exifMagic: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

@Suite("ExifReader")
struct ExifReaderTests {
    @Test("II and MM: orientation, make, model and DateTimeOriginal from the Exif sub-IFD", arguments: [true, false])
    func fullRecord(little: Bool) {
        let tiff = TIFFBuilder(little: little).build(
            [(0x010F, .ascii("Canon")), (0x0110, .ascii("EOS 5D Mark IV")), (0x0112, .short(6)),
             (0x0132, .ascii("2021:07:04 12:34:56"))],
            sub: [(0x9003, .ascii("2020:01:02 03:04:05"))])
        let meta = ExifReader.parse(tiff: tiff[...])
        #expect(meta == ExifMetadata(orientation: .rotatedClockwise, dateTimeOriginal: "2020:01:02 03:04:05", make: "Canon", model: "EOS 5D Mark IV"))
    }

    @Test("every orientation 1...8, both byte orders, SHORT inline left-justified")
    func orientations() {
        for little in [true, false] {
            for value in 1...8 {
                let tiff = TIFFBuilder(little: little).build([(0x0112, .short(value))])
                #expect(ExifReader.parse(tiff: tiff[...]).orientation.rawValue == value, "value \(value) little \(little)")
            }
        }
        // MM stores SHORT 6 as 00 06 00 00 (docs/jpeg-decoding.md): check the exact bytes we read.
        let mm = TIFFBuilder(little: false).build([(0x0112, .short(6))])
        #expect(Array(mm[18..<22]) == [0, 6, 0, 0])
    }

    @Test("orientation written as LONG or BYTE is read too")
    func orientationOtherTypes() {
        for little in [true, false] {
            let b = TIFFBuilder(little: little)
            #expect(ExifReader.parse(tiff: b.build([(0x0112, .long(8))])[...]).orientation == .rotatedCounterClockwise)
            #expect(ExifReader.parse(tiff: b.build([(0x0112, .byte(3))])[...]).orientation == .rotated180)
        }
    }

    @Test("invalid or missing orientation reads as .up", arguments: [0, 9, 255, 256, 65535])
    func invalidOrientation(value: Int) {
        for little in [true, false] {
            let tiff = TIFFBuilder(little: little).build([(0x0112, .short(value)), (0x010F, .ascii("Make"))])
            let meta = ExifReader.parse(tiff: tiff[...])
            #expect(meta.orientation == .up)
            #expect(meta.make == "Make")
        }
        let none = TIFFBuilder(little: true).build([(0x010F, .ascii("Make"))])
        #expect(ExifReader.parse(tiff: none[...]).orientation == .up)
        // Wrong types (ASCII, RATIONAL) and a zero count are ignored, not guessed at.
        let b = TIFFBuilder(little: true)
        #expect(ExifReader.parse(tiff: b.build([(0x0112, .raw(type: 2, count: 2, bytes: [0x36, 0]))])[...]).orientation == .up)
        #expect(ExifReader.parse(tiff: b.build([(0x0112, .raw(type: 3, count: 0, bytes: b.u16(6)))])[...]).orientation == .up)
    }

    @Test("DateTime in IFD0 is the fallback when there is no DateTimeOriginal")
    func dateFallback() {
        let b = TIFFBuilder(little: true)
        let onlyIFD0 = b.build([(0x0132, .ascii("2019:12:31 23:59:59"))])
        #expect(ExifReader.parse(tiff: onlyIFD0[...]).dateTimeOriginal == "2019:12:31 23:59:59")
        let both = b.build([(0x0132, .ascii("2019:12:31 23:59:59"))], sub: [(0x9003, .ascii("2018:01:01 00:00:00"))])
        #expect(ExifReader.parse(tiff: both[...]).dateTimeOriginal == "2018:01:01 00:00:00")
        let none = b.build([(0x0112, .short(1))])
        #expect(ExifReader.parse(tiff: none[...]).dateTimeOriginal == nil)
    }

    @Test("short ASCII sits inline; text is trimmed, cut at NUL, control bytes blanked, capped at 256")
    func asciiHandling() {
        let b = TIFFBuilder(little: false)
        #expect(ExifReader.parse(tiff: b.build([(0x010F, .ascii("LG"))])[...]).make == "LG")
        #expect(ExifReader.parse(tiff: b.build([(0x010F, .ascii("  NIKON CORPORATION  "))])[...]).make == "NIKON CORPORATION")
        let withNul = Array("Sony".utf8) + [0] + Array("junk".utf8) + [0]
        #expect(ExifReader.parse(tiff: b.build([(0x010F, .raw(type: 2, count: withNul.count, bytes: withNul))])[...]).make == "Sony")
        let control = Array("A\u{1}B\u{7F}C".utf8) + [0]
        #expect(ExifReader.parse(tiff: b.build([(0x0110, .raw(type: 2, count: control.count, bytes: control))])[...]).model == "A B C")
        #expect(ExifReader.parse(tiff: b.build([(0x010F, .ascii("   "))])[...]).make == nil)
        let long = String(repeating: "x", count: 1000)
        let capped = ExifReader.parse(tiff: b.build([(0x010F, .ascii(long))])[...]).make
        #expect(capped?.count == 256)
    }

    @Test("offsets outside the buffer give missing fields, never a trap")
    func offsetsOutOfRange() {
        for little in [true, false] {
            let b = TIFFBuilder(little: little)
            // IFD0 beyond the end.
            var tiff = b.build([(0x0112, .short(6))])
            tiff.replaceSubrange(4..<8, with: b.u32(0xFFFF_FFF0))
            #expect(ExifReader.parse(tiff: tiff[...]) == ExifMetadata())
            // IFD0 inside the header.
            tiff.replaceSubrange(4..<8, with: b.u32(2))
            #expect(ExifReader.parse(tiff: tiff[...]) == ExifMetadata())
            // Strings pointing past the end, or straddling it.
            let strings = b.build([(0x010F, .offset(type: 2, count: 20, to: 0x7FFF_FFFF)),
                                   (0x0110, .offset(type: 2, count: 0xFFFF_FFFF, to: 0xFFFF_FFFF)),
                                   (0x0112, .short(3))])
            let meta = ExifReader.parse(tiff: strings[...])
            #expect(meta.make == nil && meta.model == nil)
            #expect(meta.orientation == .rotated180)
            let straddle = b.build([(0x010F, .offset(type: 2, count: 40, to: 30))])
            #expect(ExifReader.parse(tiff: straddle[...]).make == nil)
            // Sub-IFD pointer out of range: IFD0 fields survive, the date falls back.
            let sub = b.build([(0x0112, .short(8)), (0x0132, .ascii("2001:01:01 01:01:01"))],
                              sub: [(0x9003, .ascii("1999:09:09 09:09:09"))], subOffset: 0x1000_0000)
            let subMeta = ExifReader.parse(tiff: sub[...])
            #expect(subMeta.orientation == .rotatedCounterClockwise)
            #expect(subMeta.dateTimeOriginal == "2001:01:01 01:01:01")
        }
    }

    @Test("an entry count larger than the data keeps the entries before the damage")
    func entryCountTooLarge() {
        let b = TIFFBuilder(little: true)
        var tiff = b.build([(0x0112, .short(6)), (0x010F, .ascii("LG"))])
        tiff.replaceSubrange(8..<10, with: b.u16(0xFFFF))
        let meta = ExifReader.parse(tiff: tiff[...])
        #expect(meta.orientation == .rotatedClockwise)
        #expect(meta.make == "LG")
    }

    @Test("IFD loops end: sub-IFD pointing at IFD0 or itself, next-IFD pointing back")
    func loops() {
        for little in [true, false] {
            let b = TIFFBuilder(little: little)
            let toIFD0 = b.build([(0x0112, .short(5)), (0x010F, .ascii("Loop"))], sub: [(0x9003, .ascii("x"))], subOffset: 8)
            let meta = ExifReader.parse(tiff: toIFD0[...])
            #expect(meta.orientation == .transposed)
            #expect(meta.make == "Loop")
            #expect(meta.dateTimeOriginal == nil)

            let selfLoop = b.build([(0x0112, .short(2))], sub: [(0x8769, .long(0)), (0x9003, .ascii("2000:01:01 00:00:00"))])
            #expect(ExifReader.parse(tiff: selfLoop[...]).orientation == .mirrored)

            let nextLoop = b.build([(0x0112, .short(7))], next: 8)
            #expect(ExifReader.parse(tiff: nextLoop[...]).orientation == .transversed)
        }
    }

    @Test("bad headers give empty metadata")
    func badHeaders() {
        let good = TIFFBuilder(little: true).build([(0x0112, .short(6))])
        #expect(ExifReader.parse(tiff: [][...]) == ExifMetadata())
        #expect(ExifReader.parse(tiff: good.prefix(7)) == ExifMetadata())
        var badMagic = good
        badMagic[0] = 0x4D
        #expect(ExifReader.parse(tiff: badMagic[...]) == ExifMetadata())
        var bad42 = good
        bad42[2] = 43
        #expect(ExifReader.parse(tiff: bad42[...]) == ExifMetadata())
    }

    @Test("every truncation of a full record parses without trapping and never invents values")
    func truncations() {
        for little in [true, false] {
            let full = TIFFBuilder(little: little).build(
                [(0x010F, .ascii("Canon")), (0x0110, .ascii("EOS R5")), (0x0112, .short(6)), (0x0132, .ascii("2021:07:04 12:34:56"))],
                sub: [(0x9003, .ascii("2020:01:02 03:04:05"))])
            let expected = ExifReader.parse(tiff: full[...])
            for n in 0...full.count {
                let meta = ExifReader.parse(tiff: full.prefix(n))
                #expect(meta.make == nil || meta.make == expected.make)
                #expect(meta.model == nil || meta.model == expected.model)
                #expect(meta.orientation == .up || meta.orientation == expected.orientation)
                #expect(meta.dateTimeOriginal == nil || meta.dateTimeOriginal == "2021:07:04 12:34:56" || meta.dateTimeOriginal == expected.dateTimeOriginal)
            }
        }
    }

    @Test("APP1 payloads: the Exif magic is required, slices with any start index work")
    func app1() {
        let tiff = TIFFBuilder(little: false).build([(0x0112, .short(6))])
        #expect(ExifReader.parse(app1: (exifMagic + tiff)[...])?.orientation == .rotatedClockwise)
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8)
        #expect(ExifReader.parse(app1: xmp[...]) == nil)
        #expect(ExifReader.parse(app1: exifMagic.prefix(5)) == nil)
        #expect(ExifReader.parse(app1: exifMagic[...]) == ExifMetadata())
        let padded = [0xFF, 0xE1, 0x00, 0x10] + exifMagic + tiff
        #expect(ExifReader.parse(app1: padded[4...])?.orientation == .rotatedClockwise)
        #expect(ExifReader.parse(tiff: (padded + [1, 2, 3])[10...]).orientation == .rotatedClockwise)
    }

    @Test("a real camera-style APP1 cut from a JPEG (exiftool-written, MM)")
    func realAPP1() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzSeeds/fuzz-exif/app1_from_jpeg.bin")
        let payload = try [UInt8](Data(contentsOf: url))
        let meta = try #require(ExifReader.parse(app1: payload[...]))
        #expect(meta.orientation == .rotatedClockwise)
    }
}
