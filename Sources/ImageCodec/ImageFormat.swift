/// The formats we decode, recognised from their first bytes (never from a file name).
public enum ImageFormat: String, Sendable, Equatable {
    case jpeg
    case png
    /// HEIF still images with HEVC-coded items (HEIC, and `.hif` from cameras).
    case heif
    /// WebP (RIFF with a VP8, VP8L or VP8X chunk).
    case webp
    /// A movie (MP4, QuickTime `.mov`, `.m4v`, 3GPP): decoded as its poster, the first sync
    /// picture (docs/video.md).
    case video
    /// GIF87a / GIF89a; the first frame is decoded, the others counted.
    case gif
    /// TIFF and BigTIFF. Plain-TIFF-shaped raws (DNG, NEF, ARW, PEF, ...) sniff as TIFF and
    /// are told apart by their IFDs (`ImageCodec.probe` reports them as `.raw`).
    case tiff
    /// A camera raw, read through its largest embedded JPEG preview (never demosaiced).
    case raw

    /// The MIME type an HTTP response should carry.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .heif: return "image/heic"
        case .webp: return "image/webp"
        case .video: return "video/mp4"
        case .gif: return "image/gif"
        case .tiff: return "image/tiff"
        case .raw: return "application/octet-stream"
        }
    }

    /// `ftyp` major brands of HEIF files whose primary image is HEVC-coded (or may be: `mif1`
    /// and `msf1` are generic and are checked item by item when decoding).
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]

    /// The format whose signature starts `bytes`, or nil.
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        var it = bytes.makeIterator()
        var head = [UInt8]()
        head.reserveCapacity(sniffBytes)
        while head.count < sniffBytes, let b = it.next() { head.append(b) }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count >= 12, head[0...3].elementsEqual("RIFF".utf8), head[8...11].elementsEqual("WEBP".utf8) { return .webp }
        if head.count >= 12, head[4...7].elementsEqual("ftyp".utf8), heifBrands.contains(String(decoding: head[8...11], as: UTF8.self)) {
            return .heif
        }
        if head.count >= 12, head[4...7].elementsEqual("ftyp".utf8), head[8...11].elementsEqual("crx ".utf8) { return .raw }
        if head.starts(with: "GIF87a".utf8) || head.starts(with: "GIF89a".utf8) { return .gif }
        if head.starts(with: "FUJIFILMCCD-RAW".utf8) { return .raw }
        if MP4TopLevel.sniff(head) { return .video }
        if head.count >= 8 {
            let little = head[0] == 0x49 && head[1] == 0x49, big = head[0] == 0x4D && head[1] == 0x4D
            let magic = little ? Int(head[2]) | Int(head[3]) << 8 : Int(head[2]) << 8 | Int(head[3])
            guard little || big else { return nil }
            // Olympus ORF ("IIRO", "IIRS", "MMOR") and Panasonic RW2 (0x55) change TIFF's 42.
            if magic == 0x4F52 || magic == 0x5352 || magic == 0x55 { return .raw }
            // Canon CR2: TIFF with "CR" and a version after the first IFD offset.
            if magic == 42, head.count >= 10, head[8] == 0x43, head[9] == 0x52 { return .raw }
            if magic == 42 || magic == 43 { return .tiff }
        }
        return nil
    }

    /// Bytes `sniff` looks at: enough for an `ftyp` with its first compatible brands.
    public static let sniffBytes = 64
}
