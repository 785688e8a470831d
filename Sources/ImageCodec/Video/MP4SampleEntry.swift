/// `stsd` (ISO/IEC 14496-12 §8.5.2): the coding of a track's samples. For video the entry is a
/// VisualSampleEntry (78 bytes of fixed fields, the same in QuickTime's layout) followed by
/// boxes: the decoder configuration (`hvcC` for `hvc1`/`hev1`, ISO/IEC 14496-15 §8.3.3;
/// `avcC` for `avc1`/`avc3`, §5.3.3), `colr` (`nclx`, or QuickTime's `nclc` without a range
/// flag) and `pasp`.

/// `avcC`: the H.264 decoder configuration of a track.
struct AVCConfiguration: Equatable {
    /// SPS then PPS NAL units (SPS extensions too), without length prefixes.
    var parameterSets: [[UInt8]]
    /// Bytes of the big-endian length before each NAL unit of a sample: 1, 2 or 4.
    var lengthSize: Int
    var profile: Int
    var level: Int
}

/// How a track's samples are coded.
enum MP4Coding: Equatable {
    case hevc(HEVCConfiguration)
    case avc(AVCConfiguration)
    /// A format we do not decode (`mp4v`, `av01`, `vp09`, `apcn`, ...).
    case other
}

struct MP4SampleEntry: Equatable {
    /// The entry's format: `hvc1`, `hev1`, `avc1`, `avc3`, `mp4a`, ...
    var format: FourCC
    var coding: MP4Coding
    /// Coded size as the entry states it (the SPS is authoritative when decoding).
    var width = 0
    var height = 0
    /// `colr` as H.273 code points.
    var colour: ColourCodePoints?
    /// `pasp` horizontal and vertical spacing: the pixel aspect ratio.
    var pixelAspect: (h: Int, v: Int)?

    static func == (l: MP4SampleEntry, r: MP4SampleEntry) -> Bool {
        l.format == r.format && l.coding == r.coding && l.width == r.width && l.height == r.height && l.colour == r.colour
            && l.pixelAspect?.h == r.pixelAspect?.h && l.pixelAspect?.v == r.pixelAspect?.v
    }

    /// Most entries read from one `stsd`: cameras write one; several occur after edits.
    static let maxEntries = 16

    static let videoFormats: Set<FourCC> = [FourCC("hvc1"), FourCC("hev1"), FourCC("avc1"), FourCC("avc3")]

    static func parseDescriptions(_ bytes: [UInt8], _ stsd: HEIFBox) throws -> [MP4SampleEntry] {
        var r = HEIFByteReader(bytes, box: stsd)
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        let boxes = try HEIFBoxReader.children(bytes, from: r.position, to: stsd.end)
        guard boxes.count >= min(count, maxEntries) else {
            throw ImageCodecError(.corrupt, "'stsd' announces \(count) entries but holds \(boxes.count)")
        }
        return try boxes.prefix(min(count, maxEntries)).map { try parse(bytes, $0) }
    }

    private static func parse(_ bytes: [UInt8], _ box: HEIFBox) throws -> MP4SampleEntry {
        var entry = MP4SampleEntry(format: box.type, coding: .other)
        guard videoFormats.contains(box.type) else { return entry }
        var r = HEIFByteReader(bytes, box: box)
        try r.skip(24)
        entry.width = try r.u16()
        entry.height = try r.u16()
        try r.skip(50)
        for child in lenientChildren(bytes, from: r.position, to: box.end) {
            var c = HEIFByteReader(bytes, box: child)
            switch child.type {
            case FourCC("hvcC"):
                let property = try HEIFProperty.parse(bytes, box: child)
                if case .hvcC(let config) = property { entry.coding = .hevc(config) }
            case FourCC("avcC"):
                entry.coding = .avc(try parseAVCC(&c))
            case FourCC("colr"):
                let kind = try c.fourCC()
                if kind == FourCC("nclx") || kind == FourCC("nclc") {
                    let p = try c.u16(), t = try c.u16(), m = try c.u16()
                    let full = kind == FourCC("nclx") ? try c.u8() & 0x80 != 0 : false
                    entry.colour = ColourCodePoints(primaries: p, transfer: t, matrix: m, fullRange: full)
                }
            case FourCC("pasp"):
                let h = try c.u32(), v = try c.u32()
                if h > 0, v > 0 { entry.pixelAspect = (h, v) }
            default: break
            }
        }
        return entry
    }

    /// The child boxes in `start..<end`, stopping quietly at the first header that does not
    /// fit: QuickTime writers end sample entries with a 4-byte zero terminator or other stray
    /// bytes, which libavformat skips too. Nothing outside `start..<end` is ever read.
    static func lenientChildren(_ bytes: [UInt8], from start: Int, to end: Int) -> [HEIFBox] {
        var boxes: [HEIFBox] = []
        var at = start
        while end - at >= 8 {
            let size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = FourCC(bytes[(at + 4)..<(at + 8)].reduce(0) { $0 << 8 | UInt32($1) })
            guard size >= 8, size <= end - at else { break }
            boxes.append(HEIFBox(type: type, start: at, bodyStart: at + 8, end: at + size))
            at += size
        }
        return boxes
    }

    /// ISO/IEC 14496-15 §5.3.3.1 AVCDecoderConfigurationRecord (the high-profile extension
    /// after the PPS list is not needed to decode and is skipped).
    static func parseAVCC(_ r: inout HEIFByteReader) throws -> AVCConfiguration {
        let version = try r.u8()
        guard version == 1 else { throw ImageCodecError(.corrupt, "'avcC' version \(version)") }
        let profile = try r.u8()
        _ = try r.u8()
        let level = try r.u8()
        let lengthSize = (try r.u8() & 3) + 1
        guard lengthSize != 3 else { throw ImageCodecError(.corrupt, "'avcC' gives a NAL length size of 3 bytes") }
        var sets: [[UInt8]] = []
        let spsCount = try r.u8() & 0x1F
        for _ in 0..<spsCount { sets.append(Array(try r.slice(try r.u16()))) }
        let ppsCount = try r.u8()
        for _ in 0..<ppsCount { sets.append(Array(try r.slice(try r.u16()))) }
        return AVCConfiguration(parameterSets: sets, lengthSize: lengthSize, profile: profile, level: level)
    }
}
