/// Canon CR3: an ISO base media file (brand "crx "). Its JPEGs (after Laurent Clévy's
/// description of the format and ExifTool's Canon tag tables):
/// - `moov`/`uuid` 85c0b687-820f-11e0-8111-f4ce462b6a48 holds `THMB` (a 160×120 JPEG at
///   byte 24 of the box, its length at byte 16) and `CMT1`, `CMT2`, `CMT4`: TIFF blobs whose
///   first IFD is IFD0, the EXIF IFD and the GPS IFD;
/// - a top-level `uuid` eaf42b5e-1c98-4b88-b9fb-b7dc406e4d16 holds, after 8 bytes, `PRVW`
///   (a 1620×1080 JPEG at byte 24 of the box, its length at byte 20);
/// - track 1's first sample (its `stco`/`co64` offset and `stsz` size) is the full-size JPEG;
/// - a top-level `uuid` be7acfcb-97a9-42e8-9c71-999491e3afac holds the XMP packet (what
///   Lightroom or the camera wrote: rating, keywords...), right after its UUID.
/// Only box headers, `moov` (at most 16 MB), the XMP packet and the chosen JPEG are read.
enum CR3Preview {
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
    static let previewUUID: [UInt8] = [0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16]
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]

    /// One box: type, payload range (absolute offsets).
    struct Box {
        let type: String
        let start: Int
        let end: Int
    }

    static func open(_ source: ByteSource, limits: DecodeLimits) throws -> RawPreviewFile {
        var previews: [RawPreviewFile.Preview] = []
        var exif = ExifMetadata()
        var embedded = EmbeddedMetadata(maxBytes: limits.maxMetadataBytes)
        func add(_ offset: Int, _ length: Int) {
            if let p = RawPreviewFile.jpeg(source, offset: offset, length: length), !previews.contains(p) { previews.append(p) }
        }
        let top = try boxes(in: source, from: 0, to: source.size)
        guard top.first?.type == "ftyp" else { throw ImageCodecError(.notAnImage, "not a CR3 file") }
        for box in top where box.type == "uuid" && box.end - box.start >= 16 {
            let uuid = try source.read(offset: box.start, count: 16)
            if uuid == xmpUUID, box.end - box.start - 16 <= limits.maxMetadataBytes {
                embedded.addXMP(try source.read(offset: box.start + 16, count: box.end - box.start - 16))
            }
            guard box.end - box.start >= 24, uuid == previewUUID else { continue }
            for inner in try boxes(in: source, from: box.start + 24, to: box.end) where inner.type == "PRVW" && inner.end - inner.start >= 16 {
                let h = try source.read(offset: inner.start, count: 16)
                add(inner.start + 16, be32(h, 12))
            }
        }
        if let moov = top.first(where: { $0.type == "moov" }) {
            guard moov.end - moov.start <= 16 << 20 else { throw ImageCodecError(.limitExceeded, "CR3 moov box over 16 MB") }
            let bytes = MemoryByteSource(try source.read(offset: moov.start, count: moov.end - moov.start))
            let children = try boxes(in: bytes, from: 0, to: bytes.size)
            for box in children where box.type == "uuid" && box.end - box.start >= 16 {
                guard try bytes.read(offset: box.start, count: 16) == canonUUID else { continue }
                var blobs: [String: TIFFContainer] = [:]
                for inner in try boxes(in: bytes, from: box.start + 16, to: box.end) {
                    switch inner.type {
                    case "THMB" where inner.end - inner.start >= 16:
                        let h = try bytes.read(offset: inner.start, count: 16)
                        add(moov.start + inner.start + 16, be32(h, 8))
                    case "CMT1", "CMT2", "CMT4":
                        let blob = try bytes.read(offset: inner.start, count: inner.end - inner.start)
                        blobs[inner.type] = try? TIFFContainer(MemoryByteSource(blob))
                    default: break
                    }
                }
                func first(_ key: String) -> (TIFFContainer, TIFFDirectory)? {
                    guard let c = blobs[key], let d = try? c.directory(at: c.firstIFD) else { return nil }
                    return (c, d)
                }
                exif = TIFFExifSubset.metadata(ifd0: first("CMT1"), exif: first("CMT2"), gps: first("CMT4"))
            }
            if let trak = children.first(where: { $0.type == "trak" }), let (offset, size) = try firstSample(bytes, trak) {
                add(offset, size)
            }
        }
        var file = RawPreviewFile(name: "Canon CR3", previews: previews, exif: exif)
        file.text = embedded.text(exif: exif.text)
        return file
    }

    /// Offset and size of the first sample of a track (`mdia/minf/stbl`).
    static func firstSample(_ s: ByteSource, _ trak: Box) throws -> (Int, Int)? {
        var box = trak
        for name in ["mdia", "minf", "stbl"] {
            guard let inner = try boxes(in: s, from: box.start, to: box.end).first(where: { $0.type == name }) else { return nil }
            box = inner
        }
        let table = try boxes(in: s, from: box.start, to: box.end)
        guard let stsz = table.first(where: { $0.type == "stsz" }), stsz.end - stsz.start >= 16 else { return nil }
        let sz = try s.read(offset: stsz.start, count: 16)
        let size = be32(sz, 4) != 0 ? be32(sz, 4) : be32(sz, 12)
        if let co64 = table.first(where: { $0.type == "co64" }), co64.end - co64.start >= 16 {
            let c = try s.read(offset: co64.start, count: 16)
            return (be32(c, 8) << 32 | be32(c, 12), size)
        }
        if let stco = table.first(where: { $0.type == "stco" }), stco.end - stco.start >= 12 {
            let c = try s.read(offset: stco.start, count: 12)
            return (be32(c, 8), size)
        }
        return nil
    }

    /// The boxes between `from` and `to` (at most 1,024), each checked to lie inside that range.
    static func boxes(in s: ByteSource, from: Int, to: Int) throws -> [Box] {
        var result: [Box] = []
        var pos = from
        while pos + 8 <= to, result.count < 1_024 {
            let h = try s.read(offset: pos, count: 8)
            var size = be32(h, 0)
            var header = 8
            if size == 1 {
                guard pos + 16 <= to else { break }
                let large = try s.read(offset: pos + 8, count: 8)
                size = be32(large, 0) << 32 | be32(large, 4)
                header = 16
            } else if size == 0 {
                size = to - pos
            }
            guard size >= header, size <= to - pos else { break }
            result.append(Box(type: String(decoding: h[4..<8], as: UTF8.self), start: pos + header, end: pos + size))
            pos += size
        }
        return result
    }

    static func be32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }
}
