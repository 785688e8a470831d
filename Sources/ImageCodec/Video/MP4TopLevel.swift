/// The top level of an MP4 / QuickTime file (ISO/IEC 14496-12 §4.2, QuickTime File Format
/// "Atoms"), walked with positioned reads: only each box's 8- or 16-byte header is read, so
/// an `mdat` of gigabytes is stepped over without touching its bytes, and the `moov` is found
/// whether the muxer put it first (`+faststart`) or last.

/// Where the parts of a movie file lie, from its top-level headers.
struct MP4TopLevel {
    /// `ftyp` major and compatible brands; empty for old QuickTime files without one.
    var brands: [FourCC] = []
    /// File range of the `moov` box (header included).
    var moov: Range<Int>
    /// Bytes read to find it (headers and `ftyp`): what the walk cost.
    var bytesRead: Int

    /// Largest `moov` read into memory: 64 MiB. A two-hour phone video's sample tables take
    /// 2-4 MB (about 12 bytes per frame); anything far beyond is hostile or not a camera file.
    static let maxMovieBytes = 64 << 20
    /// Most top-level boxes walked before giving up: real files have a handful (`ftyp`,
    /// `wide`, `free`, `mdat`, `moov`, `uuid`, `meta`); thousands are a file made to waste reads.
    static let maxTopLevelBoxes = 4_096

    /// Brands of movie files: ISO base media (`isom`, `iso2`-`iso9`, `mp41`, `mp42`, `avc1`,
    /// `dash`), QuickTime (`qt  `), 3GPP (`3gp4`-`3gp9`, `3g2a`), Apple's `M4V `/`M4VH`/`M4VP`.
    static let movieBrands: Set<FourCC> = {
        var s: Set<FourCC> = [FourCC("isom"), FourCC("mp41"), FourCC("mp42"), FourCC("avc1"), FourCC("qt  "), FourCC("M4V "),
                              FourCC("M4VH"), FourCC("M4VP"), FourCC("dash"), FourCC("3g2a"), FourCC("3g2b"), FourCC("3g2c"), FourCC("mmp4")]
        for d in UInt8(ascii: "2")...UInt8(ascii: "9") {
            s.insert(FourCC(0x6973_6F00 | UInt32(d)))          // iso2...iso9
            s.insert(FourCC(0x3367_7000 | UInt32(d)))          // 3gp2...3gp9
            s.insert(FourCC(0x3367_7300 | UInt32(d)))          // 3gs...
        }
        return s
    }()

    /// Top-level box types an old QuickTime movie (no `ftyp`) may start with.
    static let quickTimeFirstBoxes: Set<FourCC> = [FourCC("moov"), FourCC("mdat"), FourCC("wide"), FourCC("free"), FourCC("skip"), FourCC("pnot")]

    /// Walks the top-level box headers of `source` until `moov`. Throws `.notAnImage` when the
    /// file does not start like a movie, `.corrupt` / `.truncated` for boxes that overrun the
    /// file or are shorter than their header, `.limitExceeded` for a `moov` over `maxMovieBytes`.
    init(_ source: ByteSource) throws {
        let size = source.size
        var at = 0
        var read = 0
        var found: Range<Int>?
        var index = 0
        while at < size {
            guard index < Self.maxTopLevelBoxes else { throw ImageCodecError(.corrupt, "more than \(Self.maxTopLevelBoxes) top-level boxes") }
            guard size - at >= 8 else {
                throw ImageCodecError(.truncated, "\(size - at) stray bytes where a box header should be at offset \(at)")
            }
            let head = try source.read(offset: at, count: min(16, size - at))
            read += head.count
            var r = HEIFByteReader(head, from: 0, to: head.count, context: "top-level box header")
            let size32 = try r.u32()
            let type = try r.fourCC()
            var boxSize = size32
            if size32 == 1 {
                guard head.count >= 16 else { throw ImageCodecError(.truncated, "'\(type)' 64-bit size cut off at offset \(at)") }
                boxSize = try r.uint(8)
            } else if size32 == 0 {
                boxSize = size - at
            }
            let header = r.position
            guard boxSize >= header else {
                throw ImageCodecError(.corrupt, "'\(type)' box at offset \(at) has size \(boxSize), less than its header")
            }
            if index == 0 {
                if type == FourCC("ftyp") {
                    guard boxSize <= 4096 else { throw ImageCodecError(.corrupt, "'ftyp' of \(boxSize) bytes") }
                    guard boxSize <= size - at else { throw ImageCodecError(.truncated, "'ftyp' runs past the end of the file") }
                    let body = try source.read(offset: at + header, count: boxSize - header)
                    read += body.count
                    brands = Self.brands(body)
                    guard brands.contains(where: Self.movieBrands.contains), !brands.contains(where: Self.stillBrands.contains) else {
                        throw ImageCodecError(.notAnImage, "no movie brand among \(brands)")
                    }
                } else if !Self.quickTimeFirstBoxes.contains(type) {
                    throw ImageCodecError(.notAnImage, "not an MP4 or QuickTime file (first box '\(type)')")
                }
            }
            if type == FourCC("moov") {
                guard boxSize <= size - at else {
                    throw ImageCodecError(.truncated, "'moov' at offset \(at) (\(boxSize) bytes) runs past the end of the file (\(size) bytes)")
                }
                guard boxSize <= Self.maxMovieBytes else {
                    throw ImageCodecError(.limitExceeded, "'moov' of \(boxSize) bytes exceeds the \(Self.maxMovieBytes) byte limit")
                }
                found = at..<(at + boxSize)
                break
            }
            // A box past the end is a file cut short (a recording that never finished writing
            // its `moov` looks like this): nothing after it can be the movie.
            guard boxSize <= size - at else {
                throw ImageCodecError(.truncated, "'\(type)' box at offset \(at) (\(boxSize) bytes) runs past the end of the file; no 'moov' before it")
            }
            at += boxSize
            index += 1
        }
        guard let found else { throw ImageCodecError(.truncated, "no 'moov' box (an unfinished recording?)") }
        moov = found
        bytesRead = read
    }

    /// Major brand, then compatible brands (the minor version is skipped).
    static func brands(_ body: [UInt8]) -> [FourCC] {
        var out: [FourCC] = []
        var i = 0
        while i + 4 <= body.count {
            if i != 4 {
                out.append(FourCC(body[i..<(i + 4)].reduce(0) { $0 << 8 | UInt32($1) }))
            }
            i += 4
        }
        return out
    }

    /// Brands of still-image files that also list ISO brands (HEIF, AVIF): never a movie.
    static let stillBrands: Set<FourCC> = [FourCC("mif1"), FourCC("mif2"), FourCC("avif"), FourCC("avis"), FourCC("heic"),
                                           FourCC("heix"), FourCC("heim"), FourCC("heis"), FourCC("msf1"), FourCC("avci")]

    /// Whether `head` (the first bytes of a file) starts like a movie: an `ftyp` naming a movie
    /// brand (major or among the compatible ones that fit in `head`) and no still-image brand,
    /// or an old QuickTime file's first box.
    static func sniff(_ head: [UInt8]) -> Bool {
        guard head.count >= 12 else { return false }
        let type = FourCC(head[4..<8].reduce(0) { $0 << 8 | UInt32($1) })
        if type == FourCC("ftyp") {
            let size = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let end = min(head.count, max(12, size))
            let listed = brands(Array(head[8..<end]))
            return listed.contains(where: movieBrands.contains) && !listed.contains(where: stillBrands.contains)
        }
        guard quickTimeFirstBoxes.contains(type) else { return false }
        // The size must be a plausible box size (0, 1 or at least 8) for these generic names.
        let size = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        return size == 0 || size == 1 || size >= 8
    }
}
