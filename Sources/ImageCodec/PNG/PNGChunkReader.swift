import CZlib

/// Everything the chunk walk learns before pixels are inflated: the header, the palette and
/// transparency, where the IDAT data lies, the reported (never applied) colour metadata, and
/// warnings for the ancillary problems that were skipped.
struct PNGStructure {
    var header: PNGHeader
    /// PLTE as RGB triples, already cut to at most 2^depth entries.
    var palette: [UInt8] = []
    /// tRNS data as stored, when it applies to this colour type.
    var transparency: [UInt8]?
    /// Byte ranges of the IDAT data (not the chunk framing), in file order.
    var imageData: [Range<Int>] = []
    var gamma: Double?
    var srgbIntent: Int?
    var iccProfile: [UInt8]?
    var chromaticities: Chromaticities?
    var codePoints: ColourCodePoints?
    var exif = ExifMetadata()
    /// The XMP packet of an `iTXt` chunk with keyword `XML:com.adobe.xmp`.
    var embedded = EmbeddedMetadata()
    var warnings: [String] = []

    var paletteCount: Int { palette.count / 3 }

    func info() -> ImageInfo {
        let layout = header.outputLayout(hasTransparencyChunk: transparency != nil)
        var info = ImageInfo(format: .png, width: header.width, height: header.height,
                         components: layout.channels, hasAlpha: layout.hasAlpha,
                         bitDepth: header.bitDepth, progressive: header.interlaced,
                         colorSpace: header.colorType.name, exif: exif, iccProfile: iccProfile,
                         codePoints: codePoints, gamma: gamma, srgbIntent: srgbIntent, chromaticities: chromaticities)
        info.text = embedded.text(exif: exif.text)
        return info
    }
}

/// Walks the chunks of a PNG file: signature, then length/type/data/CRC records up to IEND.
///
/// Policy: a bad CRC or malformed critical chunk is an error, and so are IDAT chunks that do
/// not form one consecutive run; a bad ancillary chunk is skipped with a warning. The whole
/// file is walked even for a probe (an eXIf may follow the IDATs): that only reads chunk
/// headers, and the IDAT CRCs and the IDAT order are left to the decode.
enum PNGChunkReader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// CRC-32 (zlib's, polynomial 0xEDB88320) of `count` bytes.
    static func crc(_ base: UnsafePointer<UInt8>, count: Int, seed: UInt32 = 0) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32(UInt(seed), base, UInt32(count)))
    }

    /// Reads the structure of `bytes`. With `verifyImageData` false (probe) IDAT CRCs are not
    /// computed and a missing IDAT is not an error.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limits: DecodeLimits, verifyImageData: Bool) throws -> PNGStructure {
        guard bytes.count >= 8, let base = bytes.baseAddress else {
            throw ImageCodecError(.truncated, "PNG file of \(bytes.count) bytes is too short")
        }
        for i in 0..<8 where bytes[i] != signature[i] {
            throw ImageCodecError(.notAnImage, "PNG signature is damaged at byte \(i)")
        }
        var structure: PNGStructure?
        var pos = 8
        var idatState = 0  // 0 none yet, 1 in the IDAT run, 2 after it
        var seenPLTE = false, seenGAMA = false, seenSRGB = false, seenICCP = false, seenEXIF = false
        var seenCHRM = false, seenCICP = false
        var ended = false
        walk: while !ended {
            do {
                guard bytes.count - pos >= 12 else {
                    try endedEarly(structure, inImageData: idatState == 0, at: pos)
                    break walk
                }
                let length = PNGHeader.u32(bytes, pos)
                guard length <= 0x7FFF_FFFF else {
                    throw ImageCodecError(.corrupt, "PNG chunk length \(length) at byte \(pos) exceeds 2^31-1")
                }
                let typeStart = pos + 4
                let dataStart = pos + 8
                let type = (bytes[typeStart], bytes[typeStart + 1], bytes[typeStart + 2], bytes[typeStart + 3])
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[typeStart..<dataStart]), as: UTF8.self)
                guard [type.0, type.1, type.2, type.3].allSatisfy(isLetter) else {
                    throw ImageCodecError(.corrupt, "PNG chunk type at byte \(typeStart) is not four letters")
                }
                let critical = type.0 & 0x20 == 0
                guard bytes.count - dataStart - 4 >= length else {
                    try endedEarly(structure, inImageData: idatState == 0 || name == "IDAT", at: pos)
                    break walk
                }
                let dataEnd = dataStart + length
                pos = dataEnd + 4
                let isIDAT = name == "IDAT"
                if !isIDAT || verifyImageData {
                    let stored = UInt32(truncatingIfNeeded: PNGHeader.u32(bytes, dataEnd))
                    if crc(base + typeStart, count: length + 4) != stored {
                        guard !critical else { throw ImageCodecError(.corrupt, "PNG \(name) chunk has a bad CRC") }
                        structure?.warnings.append("skipped \(name) chunk with a bad CRC")
                        continue walk
                    }
                }
                let data = UnsafeBufferPointer(rebasing: bytes[dataStart..<dataEnd])
                guard var s = structure else {
                    guard name == "IHDR" else { throw ImageCodecError(.corrupt, "PNG does not start with IHDR but \(name)") }
                    structure = PNGStructure(header: try PNGHeader(data, limits: limits))
                    continue walk
                }
                if idatState == 1 && !isIDAT { idatState = 2 }
                switch name {
                case "IHDR":
                    throw ImageCodecError(.corrupt, "PNG has a second IHDR")
                case "IDAT":
                    // The spec requires one unbroken run of IDATs, and libpng refuses a file
                    // that resumes its image data after another chunk.
                    if idatState == 2 {
                        throw ImageCodecError(.corrupt, "PNG IDAT at byte \(typeStart - 4) follows another chunk: IDATs must be consecutive")
                    }
                    idatState = 1
                    if length > 0 { s.imageData.append(dataStart..<dataEnd) }
                case "IEND":
                    ended = true
                case "PLTE":
                    if seenPLTE || idatState != 0 {
                        if s.header.colorType == .palette && !seenPLTE {
                            throw ImageCodecError(.corrupt, "PNG PLTE comes after the image data")
                        }
                        s.warnings.append("ignored an extra or late PLTE chunk")
                        break
                    }
                    seenPLTE = true
                    try readPalette(data, into: &s)
                case "tRNS":
                    readTransparency(data, beforeImage: idatState == 0, hasPalette: seenPLTE, into: &s)
                case "gAMA":
                    guard !seenGAMA, idatState == 0, length == 4, PNGHeader.u32(data, 0) > 0 else {
                        s.warnings.append("ignored an invalid gAMA chunk"); break
                    }
                    seenGAMA = true
                    s.gamma = Double(PNGHeader.u32(data, 0)) / 100_000
                case "sRGB":
                    guard !seenSRGB, idatState == 0, length == 1, data[0] <= 3 else {
                        s.warnings.append("ignored an invalid sRGB chunk"); break
                    }
                    seenSRGB = true
                    s.srgbIntent = Int(data[0])
                case "iCCP":
                    guard !seenICCP, idatState == 0 else { s.warnings.append("ignored an extra or late iCCP chunk"); break }
                    seenICCP = true
                    try readICCProfile(data, cap: limits.maxMetadataBytes, into: &s)
                case "cHRM":
                    guard !seenCHRM, idatState == 0, length == 32 else { s.warnings.append("ignored an invalid cHRM chunk"); break }
                    seenCHRM = true
                    let v = (0..<8).map { Double(PNGHeader.u32(data, 4 * $0)) / 100_000 }
                    let c = Chromaticities(whiteX: v[0], whiteY: v[1], redX: v[2], redY: v[3],
                                           greenX: v[4], greenY: v[5], blueX: v[6], blueY: v[7])
                    if c.isValid { s.chromaticities = c } else { s.warnings.append("ignored a cHRM chunk with impossible values") }
                case "cICP":
                    guard !seenCICP, idatState == 0, length == 4, data[3] <= 1 else { s.warnings.append("ignored an invalid cICP chunk"); break }
                    seenCICP = true
                    s.codePoints = ColourCodePoints(primaries: Int(data[0]), transfer: Int(data[1]), matrix: Int(data[2]), fullRange: data[3] == 1)
                case "eXIf":
                    guard !seenEXIF else { s.warnings.append("ignored a second eXIf chunk"); break }
                    seenEXIF = true
                    s.exif = ExifReader.parse(tiff: ArraySlice(data))
                case "iTXt":
                    try readXMP(data, cap: limits.maxMetadataBytes, into: &s)
                default:
                    if critical { throw ImageCodecError(.unsupported, "PNG critical chunk \(name) is unknown") }
                }
                structure = s
            } catch let error as ImageCodecError {
                // A probe reads the header and what precedes the image data; damage after
                // the first IDAT is the decoder's business.
                if !verifyImageData && idatState != 0 { break walk }
                throw error
            }
        }
        guard var s = structure else {
            throw ImageCodecError(.truncated, "PNG ends before its IHDR chunk")
        }
        if s.header.colorType == .palette && s.palette.isEmpty {
            throw ImageCodecError(.corrupt, "PNG palette image has no PLTE chunk")
        }
        if verifyImageData && s.imageData.isEmpty {
            throw ImageCodecError(.corrupt, "PNG has no image data")
        }
        if !ended { s.warnings.append("PNG ends without IEND") }
        return s
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    /// The file stops mid-chunk or between chunks. Inside or before the image data that is
    /// fatal (we do not produce partial images); after a complete IDAT chunk it is only a
    /// missing IEND, and the inflater still finds out whether the pixels are all there.
    private static func endedEarly(_ structure: PNGStructure?, inImageData: Bool, at pos: Int) throws {
        guard structure != nil, !inImageData else {
            throw ImageCodecError(.truncated, "PNG data ends at byte \(pos) before the image data is complete")
        }
    }

    private static func readPalette(_ data: UnsafeBufferPointer<UInt8>, into s: inout PNGStructure) throws {
        let isPalette = s.header.colorType == .palette
        guard data.count % 3 == 0, data.count >= 3, data.count <= 768 else {
            if isPalette { throw ImageCodecError(.corrupt, "PNG PLTE length \(data.count) is invalid") }
            s.warnings.append("ignored an invalid PLTE chunk")
            return
        }
        switch s.header.colorType {
        case .palette:
            let maxEntries = 1 << s.header.bitDepth
            var entries = data.count / 3
            if entries > maxEntries {
                s.warnings.append("PLTE has \(entries) entries, more than \(maxEntries); extra entries ignored")
                entries = maxEntries
            }
            s.palette = Array(data[0..<(entries * 3)])
        case .gray, .grayAlpha:
            s.warnings.append("ignored a PLTE chunk in a grayscale image")
        case .rgb, .rgba:
            break  // a suggested palette for display on limited screens; not needed
        }
    }

    private static func readTransparency(_ data: UnsafeBufferPointer<UInt8>, beforeImage: Bool, hasPalette: Bool,
                                         into s: inout PNGStructure) {
        guard s.transparency == nil, beforeImage else { s.warnings.append("ignored an extra or late tRNS chunk"); return }
        let valid: Bool
        switch s.header.colorType {
        case .palette: valid = hasPalette && data.count >= 1 && data.count <= s.paletteCount
        case .gray: valid = data.count == 2
        case .rgb: valid = data.count == 6
        case .grayAlpha, .rgba: valid = false
        }
        guard valid else { s.warnings.append("ignored an invalid tRNS chunk"); return }
        s.transparency = Array(data)
    }

    /// iTXt with keyword `XML:com.adobe.xmp`: flag, method, language tag and translated keyword
    /// (each NUL-ended), then the packet, inflated up to `cap` bytes when the flag says so.
    /// Other iTXt chunks are not read.
    private static func readXMP(_ data: UnsafeBufferPointer<UInt8>, cap: Int, into s: inout PNGStructure) throws {
        let keyword: [UInt8] = Array("XML:com.adobe.xmp".utf8) + [0]
        guard data.starts(with: keyword) else { return }
        var at = keyword.count
        guard data.count >= at + 2, data[at + 1] == 0 else { s.warnings.append("ignored an invalid XMP iTXt chunk"); return }
        let compressed = data[at] == 1
        at += 2
        for _ in 0..<2 {
            guard let nul = data[at...].firstIndex(of: 0) else { s.warnings.append("ignored an invalid XMP iTXt chunk"); return }
            at = nul + 1
        }
        let body = UnsafeBufferPointer(rebasing: data[at...])
        if compressed {
            guard let packet = try ZlibStream.inflateCapped(body, cap: cap) else {
                s.warnings.append("dropped the XMP packet: broken or larger than \(cap) bytes"); return
            }
            s.embedded.addXMP(packet)
        } else {
            s.embedded.addXMP(body)
        }
    }

    /// iCCP: a 1-79 byte Latin-1 name, NUL, compression method 0, then a zlib stream,
    /// inflated up to `cap` bytes; a larger or broken profile is dropped with a warning.
    private static func readICCProfile(_ data: UnsafeBufferPointer<UInt8>, cap: Int, into s: inout PNGStructure) throws {
        guard let nul = data.prefix(80).firstIndex(of: 0), nul >= 1, data.count >= nul + 3, data[nul + 1] == 0 else {
            s.warnings.append("ignored an invalid iCCP chunk"); return
        }
        let compressed = UnsafeBufferPointer(rebasing: data[(nul + 2)...])
        guard let profile = try ZlibStream.inflateCapped(compressed, cap: cap) else {
            s.warnings.append("dropped the iCCP profile: broken or larger than \(cap) bytes"); return
        }
        s.iccProfile = profile
    }
}
