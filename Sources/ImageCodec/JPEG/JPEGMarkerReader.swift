/// Walks the marker segments of a JPEG file the way libjpeg's `jdmarker.c` does and turns each
/// header segment into a validated value. Entropy-coded data is left to the scan decoders;
/// this reader resumes where they stop.
struct JPEGMarkerReader {
    let data: UnsafeBufferPointer<UInt8>
    /// Next unread byte.
    var pos = 0

    init(_ data: UnsafeBufferPointer<UInt8>) {
        self.data = data
    }

    /// The first two bytes must be SOI, as libjpeg's `first_marker` requires.
    mutating func readSOI() throws {
        guard data.count >= 2, data[0] == 0xFF, data[1] == 0xD8 else {
            throw ImageCodecError(.notAnImage, "not a JPEG file (no SOI marker)")
        }
        pos = 2
    }

    /// libjpeg `next_marker`: skips anything that is not a marker (counted in `skipped`) and
    /// fill bytes, and returns the marker code, or nil at the end of the input.
    mutating func nextMarker(skipped: inout Int) -> UInt8? {
        while true {
            while pos < data.count && data[pos] != 0xFF {
                pos += 1
                skipped += 1
            }
            while pos < data.count && data[pos] == 0xFF { pos += 1 }
            guard pos < data.count else { return nil }
            let code = data[pos]
            pos += 1
            if code != 0 { return code }
            skipped += 2
        }
    }

    /// Reads the 2-byte length of the segment that follows a marker and returns its payload.
    mutating func segment() throws -> ArraySlice<UInt8> {
        guard pos + 2 <= data.count else { throw ImageCodecError(.truncated, "JPEG header ends inside a marker") }
        let length = Int(data[pos]) << 8 | Int(data[pos + 1])
        guard length >= 2 else { throw ImageCodecError(.corrupt, "marker segment length \(length) is too short") }
        guard pos + length <= data.count else { throw ImageCodecError(.truncated, "JPEG header ends inside a marker segment") }
        let payload = ArraySlice(UnsafeBufferPointer(rebasing: data[(pos + 2)..<(pos + length)]))
        pos += length
        return payload
    }
}

/// One component of the frame (SOF).
struct JPEGComponent: Equatable {
    let id: UInt8
    /// Horizontal and vertical sampling factors, 1...4.
    let h: Int
    let v: Int
    /// Quantisation table slot, 0...3.
    let quantSlot: Int
}

/// The frame header (SOF0, SOF1 or SOF2, 8-bit).
struct JPEGFrame {
    let width: Int
    let height: Int
    let progressive: Bool
    let components: [JPEGComponent]
    let hMax: Int
    let vMax: Int
    /// MCUs of an interleaved scan: ceil(W / 8·Hmax) × ceil(H / 8·Vmax).
    let mcusPerLine: Int
    let mcuRows: Int

    /// Parses an SOF payload. Only 8-bit Huffman DCT frames decode; the others are
    /// `.unsupported`. Every field is checked, then the size against `limits`.
    init(marker: UInt8, payload p: ArraySlice<UInt8>, limits: DecodeLimits) throws {
        switch marker {
        case 0xC0, 0xC1: progressive = false
        case 0xC2: progressive = true
        case 0xC3, 0xC7, 0xCB, 0xCF: throw ImageCodecError(.unsupported, "lossless JPEG (SOF\(marker & 15)) is not supported")
        case 0xC9, 0xCA, 0xCD, 0xCE: throw ImageCodecError(.unsupported, "arithmetic-coded JPEG (SOF\(marker & 15)) is not supported")
        default: throw ImageCodecError(.unsupported, "JPEG process SOF\(marker & 15) is not supported")
        }
        let b = Array(p)
        guard b.count >= 6 else { throw ImageCodecError(.corrupt, "SOF segment too short") }
        let precision = Int(b[0])
        height = Int(b[1]) << 8 | Int(b[2])
        width = Int(b[3]) << 8 | Int(b[4])
        let n = Int(b[5])
        guard precision == 8 else { throw ImageCodecError(.unsupported, "\(precision)-bit JPEG is not supported") }
        guard b.count == 6 + 3 * n else { throw ImageCodecError(.corrupt, "SOF segment length does not match \(n) components") }
        guard [1, 3, 4].contains(n) else { throw ImageCodecError(.unsupported, "JPEG with \(n) components is not supported") }
        guard width > 0, height > 0 else { throw ImageCodecError(.corrupt, "empty JPEG image (\(width)x\(height); DNL is not supported)") }
        guard width <= 65500, height <= 65500 else {
            throw ImageCodecError(.limitExceeded, "JPEG size \(width)x\(height) exceeds 65500 px")
        }
        try limits.check(width: width, height: height)
        var comps: [JPEGComponent] = []
        for i in 0..<n {
            let id = b[6 + 3 * i], hv = b[7 + 3 * i], tq = Int(b[8 + 3 * i])
            let h = Int(hv >> 4), v = Int(hv & 15)
            guard (1...4).contains(h), (1...4).contains(v) else { throw ImageCodecError(.corrupt, "bogus sampling factors \(h)x\(v)") }
            guard tq <= 3 else { throw ImageCodecError(.corrupt, "bogus quantisation table slot \(tq)") }
            comps.append(JPEGComponent(id: id, h: h, v: v, quantSlot: tq))
        }
        components = comps
        hMax = comps.map(\.h).max() ?? 1
        vMax = comps.map(\.v).max() ?? 1
        mcusPerLine = (width + 8 * hMax - 1) / (8 * hMax)
        mcuRows = (height + 8 * vMax - 1) / (8 * vMax)
    }

    /// Blocks of component `c` that hold image data: ceil(ceil(W·h/Hmax) / 8) across.
    func componentBlocksWide(_ c: Int) -> Int {
        ((width * components[c].h + hMax - 1) / hMax + 7) / 8
    }

    func componentBlocksHigh(_ c: Int) -> Int {
        ((height * components[c].v + vMax - 1) / vMax + 7) / 8
    }
}

/// A scan header (SOS).
struct JPEGScanHeader {
    /// Frame component indices, in scan order.
    let components: [Int]
    let dcSlots: [Int]
    let acSlots: [Int]
    let ss: Int
    let se: Int
    let ah: Int
    let al: Int

    init(payload p: ArraySlice<UInt8>, frame: JPEGFrame) throws {
        let b = Array(p)
        guard let first = b.first, (1...4).contains(Int(first)), b.count == 4 + 2 * Int(first) else {
            throw ImageCodecError(.corrupt, "bogus SOS segment")
        }
        let n = Int(first)
        var comps: [Int] = [], dc: [Int] = [], ac: [Int] = []
        for i in 0..<n {
            let id = b[1 + 2 * i], t = b[2 + 2 * i]
            guard let c = frame.components.firstIndex(where: { $0.id == id }), !comps.contains(c) else {
                throw ImageCodecError(.corrupt, "bogus component id \(id) in SOS")
            }
            comps.append(c)
            dc.append(Int(t >> 4))
            ac.append(Int(t & 15))
        }
        components = comps
        dcSlots = dc
        acSlots = ac
        ss = Int(b[1 + 2 * n])
        se = Int(b[2 + 2 * n])
        ah = Int(b[3 + 2 * n] >> 4)
        al = Int(b[3 + 2 * n] & 15)
        if n > 1 {
            let blocks = comps.reduce(0) { $0 + frame.components[$1].h * frame.components[$1].v }
            guard blocks <= 10 else { throw ImageCodecError(.corrupt, "MCU of \(blocks) blocks exceeds 10") }
        }
        if frame.progressive {
            // jdphuff.c start_pass_phuff_decoder
            var ok = true
            if ss == 0 {
                if se != 0 { ok = false }
            } else {
                if se < ss || se > 63 || n != 1 { ok = false }
            }
            if ah != 0 && al != ah - 1 { ok = false }
            if al > 13 { ok = false }
            guard ok else { throw ImageCodecError(.corrupt, "invalid progressive parameters Ss=\(ss) Se=\(se) Ah=\(ah) Al=\(al)") }
        }
    }
}

/// The tables a scan uses, as current when its SOS is read.
struct JPEGTables {
    /// Quantisation tables in natural order.
    var quant: [[UInt16]?] = [nil, nil, nil, nil]
    var dc: [HuffmanTable?] = [HuffmanTable.standard(dc: true, index: 0), HuffmanTable.standard(dc: true, index: 1), nil, nil]
    var ac: [HuffmanTable?] = [HuffmanTable.standard(dc: false, index: 0), HuffmanTable.standard(dc: false, index: 1), nil, nil]
    /// MCUs per restart interval, 0 = none.
    var restartInterval = 0

    mutating func readDQT(_ p: ArraySlice<UInt8>) throws {
        var i = p.startIndex
        while i < p.endIndex {
            let pq = Int(p[i] >> 4), tq = Int(p[i] & 15)
            guard pq <= 1, tq <= 3 else { throw ImageCodecError(.corrupt, "bogus DQT table \(pq)/\(tq)") }
            let size = pq == 0 ? 64 : 128
            guard p.endIndex - (i + 1) >= size else { throw ImageCodecError(.corrupt, "DQT segment too short") }
            var table = [UInt16](repeating: 0, count: 64)
            for k in 0..<64 {
                let v = pq == 0 ? UInt16(p[i + 1 + k]) : UInt16(p[i + 1 + 2 * k]) << 8 | UInt16(p[i + 2 + 2 * k])
                table[JPEGStandardTables.naturalOrder[k]] = v
            }
            quant[tq] = table
            i += 1 + size
        }
    }

    mutating func readDHT(_ p: ArraySlice<UInt8>) throws {
        var i = p.startIndex
        while i < p.endIndex {
            let tc = Int(p[i] >> 4), th = Int(p[i] & 15)
            guard tc <= 1, th <= 3 else { throw ImageCodecError(.corrupt, "bogus DHT index \(p[i])") }
            guard p.endIndex - (i + 1) >= 16 else { throw ImageCodecError(.corrupt, "DHT segment too short") }
            let counts = p[(i + 1)..<(i + 17)]
            let total = counts.reduce(0) { $0 + Int($1) }
            guard total <= 256, p.endIndex - (i + 17) >= total else { throw ImageCodecError(.corrupt, "bogus DHT counts") }
            let table = try HuffmanTable(counts: counts, symbols: p[(i + 17)..<(i + 17 + total)], isDC: tc == 0)
            if tc == 0 { dc[th] = table } else { ac[th] = table }
            i += 17 + total
        }
    }

    mutating func readDRI(_ p: ArraySlice<UInt8>) throws {
        guard p.count == 2 else { throw ImageCodecError(.corrupt, "bogus DRI length") }
        restartInterval = Int(p[p.startIndex]) << 8 | Int(p[p.startIndex + 1])
    }
}

/// What the APPn segments say: JFIF, Adobe transform, EXIF, XMP, IPTC and the ICC profile.
struct JPEGMetadata {
    var sawJFIF = false
    var adobeTransform: Int?
    var exif: ExifMetadata?
    /// XMP (APP1, extended XMP included) and IPTC (APP13) for `ImageInfo.text`.
    var embedded = EmbeddedMetadata()
    private var iccChunks: [(seq: Int, total: Int, data: ArraySlice<UInt8>)] = []

    mutating func readAPP(_ marker: UInt8, _ p: ArraySlice<UInt8>) {
        switch marker {
        case 0xE0:
            if p.count >= 14, p.prefix(5).elementsEqual([0x4A, 0x46, 0x49, 0x46, 0]) { sawJFIF = true }
        case 0xE1:
            if exif == nil, let e = ExifReader.parse(app1: p) { exif = e } else { embedded.addAPP1(p) }
        case 0xED:
            embedded.addAPP13(p)
        case 0xE2:
            let magic: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
            if p.count >= 14, p.prefix(12).elementsEqual(magic) {
                let s = p.startIndex
                iccChunks.append((Int(p[s + 12]), Int(p[s + 13]), p.dropFirst(14)))
            }
        case 0xEE:
            if p.count >= 12, p.prefix(5).elementsEqual([0x41, 0x64, 0x6F, 0x62, 0x65]) {
                adobeTransform = Int(p[p.startIndex + 11])
            }
        default:
            break
        }
    }

    /// The ICC chunks joined in sequence order; nil when absent or inconsistent (libjpeg
    /// `jpeg_read_icc_profile` rules: numbering 1...N, each once, the same N everywhere).
    var iccProfile: [UInt8]? {
        guard let total = iccChunks.first?.total, total > 0, iccChunks.count == total else { return nil }
        var ordered = [ArraySlice<UInt8>?](repeating: nil, count: total)
        for c in iccChunks {
            guard c.total == total, (1...total).contains(c.seq), ordered[c.seq - 1] == nil else { return nil }
            ordered[c.seq - 1] = c.data
        }
        var out: [UInt8] = []
        for c in ordered { out.append(contentsOf: c ?? []) }
        return out
    }
}
