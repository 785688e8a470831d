/// Raws built on TIFF (DNG, CR2, NEF/NRW, ARW/SR2, PEF, ORF, RW2, SRW, 3FR, ERF): which TIFF
/// files are raws, and where their JPEG previews are.
///
/// A file is a raw when its header says so (CR2's "CR", ORF's and RW2's own magic numbers),
/// when IFD0 has DNGVersion (50706), or when any image IFD holds sensor data: photometric
/// CFA (32803) or LinearRaw (34892). Plain TIFF scans have none of these.
///
/// Previews are looked for in every IFD reachable from IFD0 (its chain and SubIFDs) and the
/// EXIF IFD: JPEGInterchangeFormat/Length (513/514, the EXIF-style thumbnail and most vendor
/// previews), single-strip IFDs compressed as JPEG (6 or 7) that are not sensor data (CR2's
/// IFD0, DNG and NEF full-size previews), and RW2's JpgFromRaw (0x2E). Each candidate's own
/// SOF gives its size; lossless JPEG (sensor data in CR2 and DNG) never qualifies.
enum TIFFRawPreviews {
    static func isRaw(_ c: TIFFContainer, _ dirs: [TIFFDirectory]) throws -> Bool {
        if c.magic != 42 && c.magic != 43 { return true }
        if let head = try? c.source.read(offset: 8, count: 2), head == [0x43, 0x52] { return true }
        if dirs.first?.entries[50706] != nil { return true }
        return try dirs.contains { [32803, 34892].contains(try c.integer($0, 262) ?? 0) }
    }

    static func open(_ c: TIFFContainer) throws -> RawPreviewFile? {
        let dirs = try c.imageDirectories()
        guard try isRaw(c, dirs) else { return nil }
        let ifd0 = dirs[0]
        var searched = dirs
        if let exifAt = try c.integer(ifd0, 0x8769), let exif = try? c.directory(at: exifAt) { searched.append(exif) }
        var previews: [RawPreviewFile.Preview] = []
        func add(_ offset: Int?, _ length: Int?) {
            guard let offset, let length, let p = RawPreviewFile.jpeg(c.source, offset: offset, length: length),
                  !previews.contains(p) else { return }
            previews.append(p)
        }
        for dir in searched {
            add(try c.integer(dir, 513), try c.integer(dir, 514))
            let compression = try c.integer(dir, 259) ?? 0
            let photometric = try c.integer(dir, 262) ?? 0
            if compression == 6 || compression == 7, photometric != 32803, photometric != 34892,
               let offsets = try c.integers(dir, 273, maxCount: 1), let counts = try c.integers(dir, 279, maxCount: 1) {
                add(offsets.first, counts.first)
            }
            if c.magic == 0x55, let e = dir.entries[0x2E] { add(c.valueOffset(e), e.count) }
        }
        let make = (try c.text(ifd0, 0x010F)) ?? ""
        let exif = TIFFExifSubset.metadata(c, ifd0: ifd0)
        var file = RawPreviewFile(name: name(c, ifd0, make: make), previews: previews, exif: exif)
        file.text = TIFFDecoder.embeddedText(c, ifd0, exif: exif, limits: DecodeLimits())
        return file
    }

    /// The raw format's usual name, from the header and the camera maker.
    static func name(_ c: TIFFContainer, _ ifd0: TIFFDirectory, make: String) -> String {
        if ifd0.entries[50706] != nil { return "Adobe DNG" }
        switch c.magic {
        case 0x4F52, 0x5352: return "Olympus ORF"
        case 0x55: return "Panasonic RW2"
        default: break
        }
        if let head = try? c.source.read(offset: 8, count: 2), head == [0x43, 0x52] { return "Canon CR2" }
        let maker = make.uppercased()
        let names: [(String, String)] = [("NIKON", "Nikon NEF"), ("SONY", "Sony ARW"), ("PENTAX", "Pentax PEF"),
                                         ("RICOH", "Pentax PEF"), ("SAMSUNG", "Samsung SRW"), ("HASSELBLAD", "Hasselblad 3FR"),
                                         ("EPSON", "Epson ERF"), ("OLYMPUS", "Olympus ORF"), ("CANON", "Canon raw")]
        return names.first { maker.contains($0.0) }?.1 ?? "camera raw"
    }
}
