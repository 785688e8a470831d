/// Motion photos: stills that carry a short movie in the same file. Found without decoding
/// anything, in the order below; every candidate must start with an `ftyp` box and is cut at
/// the end of its last whole top-level box, so a wrong offset never yields a range of garbage.
///
/// - Google (Pixel "Motion Photo" and the older "MicroVideo"): XMP in the JPEG's APP1 names
///   `GCamera:MotionPhoto="1"` or `GCamera:MicroVideo="1"`; the movie is the item with
///   `Item:Semantic="MotionPhoto"` in the `Container:Directory` (its `Item:Length` counted back
///   from the end, after any items listed behind it), else the last `GCamera:MicroVideoOffset`
///   bytes of the file.
/// - Samsung: the ASCII marker `MotionPhoto_Data` after the JPEG's EOI, the movie right after it.
/// - Any JPEG whose EOI is directly followed by an `ftyp` box (older Samsung and Huawei files).
/// - HEIC: a top-level `mpvd` box holds the movie (Samsung and Google HEIC motion photos).
public enum MotionPhoto {
    /// Where the embedded movie lies in `source` and how it was found ("google-container",
    /// "google-microvideo", "samsung", "after-eoi", "heic-mpvd"); nil for a still without one.
    /// Reads the whole still (refused over `limits.maxInputBytes`); throws only for read errors.
    public static func embeddedMovie(source: ByteSource, limits: DecodeLimits = .default) throws -> (range: Range<Int>, kind: String)? {
        let bytes = try ImageCodec.wholeSource(source, limits: limits)
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return jpegMovie(bytes)
        case .heif: return heicMovie(bytes)
        default: return nil
        }
    }

    static func jpegMovie(_ bytes: [UInt8]) -> (range: Range<Int>, kind: String)? {
        guard let (xmp, eoi) = jpegLayout(bytes) else { return nil }
        if let xmp, xmp.contains("GCamera:MotionPhoto=\"1\"") || xmp.contains("GCamera:MicroVideo=\"1\"") {
            if let end = containerMovieEnd(xmp, fileSize: bytes.count), let length = containerMovieLength(xmp),
               length <= end, let range = movieRange(bytes, from: end - length, to: end) {
                return (range, "google-container")
            }
            if let offset = attribute(xmp, "GCamera:MicroVideoOffset").flatMap(Int.init), offset > 0, offset <= bytes.count,
               let range = movieRange(bytes, from: bytes.count - offset, to: bytes.count) {
                return (range, "google-microvideo")
            }
        }
        if let eoi {
            let marker = Array("MotionPhoto_Data".utf8)
            if let at = find(marker, in: bytes, from: eoi), let range = movieRange(bytes, from: at + marker.count, to: bytes.count) {
                return (range, "samsung")
            }
            if let range = movieRange(bytes, from: eoi, to: bytes.count) { return (range, "after-eoi") }
        }
        return nil
    }

    /// The first XMP packet (APP1 with the XMP namespace) and the offset just past the first
    /// EOI: markers are walked to the first SOS, then the entropy-coded data is scanned for
    /// FF D9 (FF 00 stuffing and RSTn markers are data). nil when the marker walk breaks.
    static func jpegLayout(_ bytes: [UInt8]) -> (xmp: String?, eoi: Int?)? {
        var xmp: String?
        var at = 2
        let xmpID = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { at += 2; continue }
            if marker == 0xD9 { return (xmp, at + 2) }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2, at + 2 + length <= bytes.count else { return nil }
            let body = (at + 4)..<(at + 2 + length)
            if marker == 0xE1, xmp == nil, body.count > xmpID.count, bytes[body.prefix(xmpID.count)].elementsEqual(xmpID) {
                xmp = String(decoding: bytes[(body.lowerBound + xmpID.count)..<body.upperBound], as: UTF8.self)
            }
            at = body.upperBound
            if marker == 0xDA {
                var i = at
                while i + 1 < bytes.count {
                    if bytes[i] == 0xFF, bytes[i + 1] == 0xD9 { return (xmp, i + 2) }
                    i += 1
                }
                return (xmp, nil)
            }
        }
        return (xmp, nil)
    }

    /// `Item:Length` of the directory item whose semantic is `MotionPhoto`.
    static func containerMovieLength(_ xmp: String) -> Int? {
        items(xmp).first { attribute($0, "Item:Semantic") == "MotionPhoto" }.flatMap { attribute($0, "Item:Length").flatMap(Int.init) }
    }

    /// Where the motion photo item ends: the file end less the lengths of the items after it.
    static func containerMovieEnd(_ xmp: String, fileSize: Int) -> Int? {
        let list = items(xmp)
        guard let index = list.firstIndex(where: { attribute($0, "Item:Semantic") == "MotionPhoto" }) else { return nil }
        var end = fileSize
        for item in list[(index + 1)...] {
            guard let length = attribute(item, "Item:Length").flatMap(Int.init), length >= 0, length <= end else { return nil }
            end -= length
        }
        return end
    }

    /// The `Container:Item` elements of the directory, as text.
    private static func items(_ xmp: String) -> [Substring] {
        xmp.split(separator: "<Container:Item").dropFirst().map { $0.prefix { $0 != ">" } }
    }

    /// The value of `name="..."` in `text`.
    static func attribute<S: StringProtocol>(_ text: S, _ name: String) -> String? {
        guard let start = text.firstRange(of: name + "=\"") else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    static func heicMovie(_ bytes: [UInt8]) -> (range: Range<Int>, kind: String)? {
        guard let top = try? HEIFBoxReader.children(bytes, from: 0, to: bytes.count, truncatedAtEnd: true),
              let box = top.first(where: { $0.type == FourCC("mpvd") }),
              let range = movieRange(bytes, from: box.bodyStart, to: box.end) else { return nil }
        return (range, "heic-mpvd")
    }

    /// `start..<end` cut to its whole top-level boxes, when it starts with `ftyp` and holds a
    /// `moov`; nil otherwise.
    static func movieRange(_ bytes: [UInt8], from start: Int, to end: Int) -> Range<Int>? {
        guard start >= 0, start + 8 <= end, end <= bytes.count,
              bytes[(start + 4)..<(start + 8)].elementsEqual("ftyp".utf8) else { return nil }
        let boxes = MP4SampleEntry.lenientChildren(bytes, from: start, to: end)
        guard boxes.contains(where: { $0.type == FourCC("moov") }), let last = boxes.last else { return nil }
        return start..<last.end
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var i = start
        while i + needle.count <= bytes.count {
            if bytes[i] == first, bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
