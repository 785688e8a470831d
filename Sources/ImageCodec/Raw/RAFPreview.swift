/// Fujifilm RAF: a fixed big-endian header ("FUJIFILMCCD-RAW ", format version, camera ID,
/// model name) whose bytes 84-91 give the offset and length of a complete EXIF JPEG, the
/// camera's own rendering of the photo. That JPEG carries the EXIF facts too, so they are
/// read from its APP1 segment.
enum RAFPreview {
    static func open(_ source: ByteSource, limits: DecodeLimits) throws -> RawPreviewFile {
        guard source.size >= 92 else { throw ImageCodecError(.truncated, "RAF header is shorter than 92 bytes") }
        let head = try source.read(offset: 0, count: 92)
        guard head.starts(with: Array("FUJIFILMCCD-RAW".utf8)) else { throw ImageCodecError(.notAnImage, "not a Fujifilm RAF file") }
        func u32(_ at: Int) -> Int { head[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let offset = u32(84), length = u32(88)
        var previews: [RawPreviewFile.Preview] = []
        var exif = ExifMetadata()
        if let preview = RawPreviewFile.jpeg(source, offset: offset, length: length) {
            previews.append(preview)
            // The APP1 segment comes first in Fujifilm's JPEG: its header is enough.
            let headBytes = try source.read(offset: offset, count: min(length, 256 << 10))
            if let info = try? JPEGDecoder.probe(headBytes, limits: limits) { exif = info.exif }
        }
        return RawPreviewFile(name: "Fujifilm RAF", previews: previews, exif: exif)
    }
}
