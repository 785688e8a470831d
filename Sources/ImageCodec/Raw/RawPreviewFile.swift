/// A camera raw as this codec sees it: the container's name, the JPEG previews it embeds and
/// its EXIF facts. Raw sensor data is never decoded (no demosaicing): cameras store a
/// full-size or near full-size JPEG of the photo as they rendered it, which is what a
/// gallery wants to show, and reading it costs the IFDs and one JPEG instead of 25-100 MB.
struct RawPreviewFile {
    /// One embedded JPEG, its range in the file and its size from its own SOF.
    struct Preview: Equatable {
        let offset: Int
        let length: Int
        let width: Int
        let height: Int
    }

    /// "Canon CR3", "Nikon NEF", "Adobe DNG", ...
    let name: String
    let previews: [Preview]
    let exif: ExifMetadata
    /// XMP (tag 700, or CR3's XMP box), IPTC (33723) and EXIF text of IFD0.
    var text = ImageText()

    /// Shortest long edge a preview must have to stand in for the photo: 640 px. Smaller
    /// ones (the 160×120 EXIF thumbnails every raw has) would make blurry renders at every
    /// size the gallery serves beyond its smallest thumbnails, so such a raw is refused.
    static let minimumLongEdge = 640

    /// The largest preview by pixel count (the first of equals).
    var largest: Preview? {
        previews.reduce(nil) { best, p in
            guard let best else { return p }
            return p.width * p.height > best.width * best.height ? p : best
        }
    }

    /// The preview `decode` uses, or `.unsupported` saying why there is none.
    func chosen() throws -> Preview {
        guard let p = largest, max(p.width, p.height) >= RawPreviewFile.minimumLongEdge else {
            let best = largest.map { "its largest embedded preview is \($0.width)x\($0.height)" } ?? "it embeds no JPEG preview"
            throw ImageCodecError(.unsupported, "\(name): \(best), under the \(RawPreviewFile.minimumLongEdge) px this codec needs (raw sensor data is not demosaiced)")
        }
        return p
    }

    /// The preview at `offset`/`length` when it is a baseline, extended or progressive
    /// Huffman JPEG inside the file (lossless JPEG raw data and damaged ranges are skipped).
    /// Walks its marker segments to the SOF with small reads.
    static func jpeg(_ source: ByteSource, offset: Int, length: Int) -> Preview? {
        guard offset > 0, length >= 128, offset <= source.size, length <= source.size - offset else { return nil }
        guard let soi = try? source.read(offset: offset, count: 2), soi == [0xFF, 0xD8] else { return nil }
        var pos = offset + 2
        let end = offset + length
        for _ in 0..<256 {
            guard pos + 4 <= end, let head = try? source.read(offset: pos, count: 4), head[0] == 0xFF else { return nil }
            let marker = head[1]
            if marker == 0xFF { pos += 1; continue }
            let size = Int(head[2]) << 8 | Int(head[3])
            guard size >= 2 else { return nil }
            switch marker {
            case 0xC0, 0xC1, 0xC2:
                guard pos + 9 <= end, let sof = try? source.read(offset: pos + 4, count: 5) else { return nil }
                let h = Int(sof[1]) << 8 | Int(sof[2]), w = Int(sof[3]) << 8 | Int(sof[4])
                return w > 0 && h > 0 ? Preview(offset: offset, length: length, width: w, height: h) : nil
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF, 0xDA, 0xD9:
                return nil
            default:
                pos += 2 + size
            }
        }
        return nil
    }
}
