/// Reads single ICC tags from their byte range: XYZ numbers, `sf32` matrices, text, `curv` /
/// `para` curves and the `mft1` / `mft2` / `mAB ` LUTs. Every read is bounded by the tag's range
/// from the tag table; sizes are checked before anything is allocated.
struct ICCTagReader {
    let reader: ICCReader

    private func type(_ r: Range<Int>) throws -> String { try reader.signature(r.lowerBound) }

    private func need(_ r: Range<Int>, _ offset: Int, _ count: Int) throws {
        let (end, o1) = offset.addingReportingOverflow(count)
        guard !o1, offset >= r.lowerBound, end <= r.upperBound else {
            throw ImageCodecError(.corrupt, "ICC tag data runs past its \(r.count) byte tag")
        }
    }

    /// 'XYZ ' with one XYZNumber.
    func xyz(_ r: Range<Int>) throws -> XYZ {
        guard try type(r) == "XYZ " else { throw ImageCodecError(.corrupt, "ICC XYZ tag has type '\(try type(r))'") }
        try need(r, r.lowerBound + 8, 12)
        let o = r.lowerBound + 8
        return XYZ(try reader.s15f16(o), try reader.s15f16(o + 4), try reader.s15f16(o + 8))
    }

    /// 'sf32' with nine numbers, row-major (the `chad` tag).
    func matrix(_ r: Range<Int>) throws -> Matrix3 {
        guard try type(r) == "sf32" else { throw ImageCodecError(.corrupt, "ICC chad tag has type '\(try type(r))'") }
        try need(r, r.lowerBound + 8, 36)
        var v: [Double] = []
        for i in 0..<9 { v.append(try reader.s15f16(r.lowerBound + 8 + 4 * i)) }
        let m = Matrix3(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8])
        guard m.inverse != nil else { throw ImageCodecError(.corrupt, "ICC chad matrix is singular") }
        return m
    }

    /// v2 'desc' (ASCII part), v4 'mluc' (first record, UTF-16BE) or 'text'; at most 200 characters.
    func text(_ r: Range<Int>) throws -> String {
        let base = r.lowerBound
        var units: [UInt16] = []
        switch try type(r) {
        case "desc":
            try need(r, base + 8, 4)
            let n = min(try reader.u32(base + 8), 200)
            try need(r, base + 12, n)
            units = reader.bytes[(base + 12)..<(base + 12 + n)].map { UInt16($0) }
        case "text":
            let n = min(r.count - 8, 200)
            units = reader.bytes[(base + 8)..<(base + 8 + n)].map { UInt16($0) }
        case "mluc":
            try need(r, base + 8, 8)
            guard try reader.u32(base + 8) >= 1, try reader.u32(base + 12) >= 12 else { return "" }
            try need(r, base + 16, 12)
            let length = min(try reader.u32(base + 20), 400), offset = try reader.u32(base + 24)
            try need(r, base + offset, length)
            for i in stride(from: 0, to: length - 1, by: 2) { units.append(UInt16(try reader.u16(base + offset + i))) }
        default:
            throw ImageCodecError(.unsupported, "ICC text tag type '\(try type(r))'")
        }
        if let nul = units.firstIndex(of: 0) { units.removeSubrange(nul...) }
        return String(decoding: units, as: UTF16.self).trimmingSpaces
    }

    /// A 'curv' or 'para' tag (or element) at the start of `r`; also returns its padded size
    /// (so `mAB ` can walk a sequence of curves).
    func curve(_ r: Range<Int>) throws -> ToneCurve { try curveElement(r).curve }

    func curveElement(_ r: Range<Int>) throws -> (curve: ToneCurve, size: Int) {
        let base = r.lowerBound
        switch try type(r) {
        case "curv":
            try need(r, base + 8, 4)
            let n = try reader.u32(base + 8)
            guard n <= ToneCurve.maxTableEntries else { throw ImageCodecError(.limitExceeded, "ICC curve with \(n) entries") }
            try need(r, base + 12, 2 * n)
            let size = 12 + 2 * n
            switch n {
            case 0: return (.identity, size)
            case 1: return (try ToneCurve.gamma(Double(try reader.u16(base + 12)) / 256).validated(), size)
            default:
                var t = [Double](repeating: 0, count: n)
                for i in 0..<n { t[i] = Double(try reader.u16(base + 12 + 2 * i)) / 65535 }
                return (.table(t), size)
            }
        case "para":
            try need(r, base + 8, 4)
            let kind = try reader.u16(base + 8)
            let counts = [1, 3, 4, 5, 7]
            guard kind < counts.count else { throw ImageCodecError(.unsupported, "ICC parametric curve type \(kind)") }
            try need(r, base + 12, 4 * counts[kind])
            var p = [Double](repeating: 0, count: 7)
            for i in 0..<counts[kind] { p[i] = try reader.s15f16(base + 12 + 4 * i) }
            return (try ToneCurve.parametric(type: kind, p).validated(), 12 + 4 * counts[kind])
        default:
            throw ImageCodecError(.corrupt, "ICC curve has type '\(try type(r))'")
        }
    }

    /// An AToB LUT ('mft1', 'mft2' or 'mAB ') from `inputs` device channels to a 3-channel PCS.
    func lut(_ r: Range<Int>, inputs: Int, pcs: String) throws -> ICCLut {
        guard (1...4).contains(inputs) else { throw ImageCodecError(.unsupported, "ICC LUT for a \(inputs)-channel colour space") }
        let kind = try type(r)
        switch kind {
        case "mft1", "mft2": return try legacyLUT(r, inputs: inputs, pcs: pcs, sixteen: kind == "mft2")
        case "mAB ": return try lutAToB(r, inputs: inputs, pcs: pcs)
        default: throw ImageCodecError(.unsupported, "ICC A2B tag type '\(kind)'")
        }
    }

    /// lut8Type / lut16Type: header, 3×3 matrix (used only for XYZ input, so ignored here),
    /// input tables, CLUT, output tables.
    private func legacyLUT(_ r: Range<Int>, inputs: Int, pcs: String, sixteen: Bool) throws -> ICCLut {
        let base = r.lowerBound
        try need(r, base, 48)
        let i = try reader.u8(base + 8), o = try reader.u8(base + 9), g = try reader.u8(base + 10)
        guard i == inputs, o == 3 else { throw ImageCodecError(.corrupt, "ICC LUT maps \(i) → \(o) channels, expected \(inputs) → 3") }
        guard g >= 2 else { throw ImageCodecError(.corrupt, "ICC LUT grid of \(g) points") }
        var pos = base + 48
        let inEntries: Int, outEntries: Int, sampleBytes: Int
        if sixteen {
            try need(r, base + 48, 4)
            inEntries = try reader.u16(base + 48)
            outEntries = try reader.u16(base + 50)
            pos += 4
            sampleBytes = 2
            guard inEntries >= 2, outEntries >= 2, inEntries <= 4096, outEntries <= 4096 else {
                throw ImageCodecError(.corrupt, "ICC lut16 table sizes \(inEntries)/\(outEntries)")
            }
        } else {
            inEntries = 256; outEntries = 256; sampleBytes = 1
        }
        let nodes = try ICCLut.gridNodes(Array(repeating: g, count: i))
        let clutValues = nodes * o
        // Everything must be present before any table is built.
        try need(r, pos, (i * inEntries + clutValues + o * outEntries) * sampleBytes)
        let scale = sixteen ? 65535.0 : 255.0
        func sample(_ at: Int) throws -> Double { Double(sixteen ? try reader.u16(at) : try reader.u8(at)) / scale }
        var inputCurves: [ToneCurve] = []
        for _ in 0..<i {
            var t = [Double](repeating: 0, count: inEntries)
            for k in 0..<inEntries { t[k] = try sample(pos + k * sampleBytes) }
            inputCurves.append(.table(t))
            pos += inEntries * sampleBytes
        }
        var clut = [Float](repeating: 0, count: clutValues)
        for k in 0..<clutValues { clut[k] = Float(try sample(pos + k * sampleBytes)) }
        pos += clutValues * sampleBytes
        var outputCurves: [ToneCurve] = []
        for _ in 0..<o {
            var t = [Double](repeating: 0, count: outEntries)
            for k in 0..<outEntries { t[k] = try sample(pos + k * sampleBytes) }
            outputCurves.append(.table(t))
            pos += outEntries * sampleBytes
        }
        let encoding: ICCLut.PCSEncoding = pcs == "XYZ " ? .xyz : (sixteen ? .labLegacy16 : .lab)
        return ICCLut(inputs: i, aCurves: inputCurves, grid: Array(repeating: g, count: i), clut: clut,
                      mCurves: [], matrix: nil, bCurves: outputCurves, encoding: encoding)
    }

    /// lutAtoBType: offsets of B curves, matrix, M curves, CLUT and A curves; the data flows
    /// A → CLUT → M → matrix → B.
    private func lutAToB(_ r: Range<Int>, inputs: Int, pcs: String) throws -> ICCLut {
        let base = r.lowerBound
        try need(r, base, 32)
        let i = try reader.u8(base + 8), o = try reader.u8(base + 9)
        guard i == inputs, o == 3 else { throw ImageCodecError(.corrupt, "ICC mAB maps \(i) → \(o) channels, expected \(inputs) → 3") }
        let bOff = try reader.u32(base + 12), matOff = try reader.u32(base + 16), mOff = try reader.u32(base + 20)
        let clutOff = try reader.u32(base + 24), aOff = try reader.u32(base + 28)
        guard bOff != 0 else { throw ImageCodecError(.corrupt, "ICC mAB has no B curves") }
        func curves(_ off: Int, _ n: Int) throws -> [ToneCurve] {
            var out: [ToneCurve] = []
            var pos = base + off
            for _ in 0..<n {
                try need(r, pos, 12)
                let (c, size) = try curveElement(pos..<r.upperBound)
                out.append(c)
                pos += (size + 3) & ~3
            }
            return out
        }
        let b = try curves(bOff, o)
        var matrix: [Double]?
        var m: [ToneCurve] = []
        if matOff != 0 {
            try need(r, base + matOff, 48)
            var v: [Double] = []
            for k in 0..<12 { v.append(try reader.s15f16(base + matOff + 4 * k)) }
            matrix = v
            guard mOff != 0 else { throw ImageCodecError(.corrupt, "ICC mAB has a matrix without M curves") }
        }
        if mOff != 0 { m = try curves(mOff, o) }
        var a: [ToneCurve] = []
        var grid: [Int] = []
        var clut: [Float] = []
        if clutOff != 0 {
            let c = base + clutOff
            try need(r, c, 20)
            for k in 0..<i {
                let g = try reader.u8(c + k)
                guard g >= 2 else { throw ImageCodecError(.corrupt, "ICC mAB grid of \(g) points") }
                grid.append(g)
            }
            let precision = try reader.u8(c + 16)
            guard precision == 1 || precision == 2 else { throw ImageCodecError(.corrupt, "ICC mAB CLUT precision \(precision)") }
            let values = try ICCLut.gridNodes(grid) * o
            try need(r, c + 20, values * precision)
            clut = [Float](repeating: 0, count: values)
            let scale: Float = precision == 2 ? 65535 : 255
            for k in 0..<values {
                let raw = precision == 2 ? try reader.u16(c + 20 + 2 * k) : try reader.u8(c + 20 + k)
                clut[k] = Float(raw) / scale
            }
            guard aOff != 0 else { throw ImageCodecError(.corrupt, "ICC mAB has a CLUT without A curves") }
        } else if i != o {
            throw ImageCodecError(.corrupt, "ICC mAB changes the channel count without a CLUT")
        }
        if aOff != 0 { a = try curves(aOff, i) }
        return ICCLut(inputs: i, aCurves: a, grid: grid, clut: clut, mCurves: m, matrix: matrix, bCurves: b,
                      encoding: pcs == "XYZ " ? .xyz : .lab)
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " { s.removeFirst() }
        while let l = s.last, l == " " { s.removeLast() }
        return String(s)
    }
}
