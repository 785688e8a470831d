/// One Huffman table ready for decoding (libjpeg `jpeg_make_d_derived_tbl`): a 10-bit lookahead
/// table for short codes and maxcode/valoffset for the rest, plus a "fast AC" table that also
/// holds the coefficient when code and value bits fit in the lookahead together (most AC
/// symbols of photos), so the block loop does one table read per coefficient. Storage is allocated once per
/// table and read through `HuffmanLookup`, a plain struct of pointers, so the block loops do
/// no reference counting.
final class HuffmanTable {
    static let lookaheadBits = 10

    /// Entry = length << 8 | symbol for codes of at most `lookaheadBits` bits; 0 = longer code.
    let lookup: UnsafeMutablePointer<UInt16>
    /// maxcode[l] for l = 1...17 (17 is a sentinel that ends every search), -1 if no code.
    let maxcode: UnsafeMutablePointer<Int32>
    let valoffset: UnsafeMutablePointer<Int32>
    let values: UnsafeMutablePointer<UInt8>
    /// Entry = value << 16 | run << 8 | (code + value bits) for AC symbols that fit; 0 = no.
    let fastAC: UnsafeMutablePointer<Int32>

    /// Builds the canonical codes; throws `.corrupt` for tables libjpeg rejects ("Bogus Huffman
    /// table definition"): more than 256 symbols, a code that does not fit its length, or a
    /// DC symbol above 15.
    init(counts: ArraySlice<UInt8>, symbols: ArraySlice<UInt8>, isDC: Bool) throws {
        let counts = Array(counts), symbols = Array(symbols)
        guard counts.count == 16 else { throw ImageCodecError(.corrupt, "Huffman table needs 16 counts") }
        let total = counts.reduce(0) { $0 + Int($1) }
        guard total <= 256, total == symbols.count else {
            throw ImageCodecError(.corrupt, "bogus Huffman table definition (\(total) symbols)")
        }
        if isDC, let bad = symbols.first(where: { $0 > 15 }) {
            throw ImageCodecError(.corrupt, "bogus DC Huffman table (symbol \(bad))")
        }
        var code = 0
        var index = 0
        var maxc = [Int32](repeating: -1, count: 18)
        var voff = [Int32](repeating: 0, count: 18)
        var look = [UInt16](repeating: 0, count: 1 << HuffmanTable.lookaheadBits)
        for l in 1...16 {
            let n = Int(counts[l - 1])
            if n > 0 {
                voff[l] = Int32(index - code)
                for _ in 0..<n {
                    guard code < (1 << l) else {
                        throw ImageCodecError(.corrupt, "bogus Huffman table definition (code overflow at length \(l))")
                    }
                    if l <= HuffmanTable.lookaheadBits {
                        let shift = HuffmanTable.lookaheadBits - l
                        let first = code << shift
                        for j in 0..<(1 << shift) {
                            look[first + j] = UInt16(l << 8) | UInt16(symbols[index])
                        }
                    }
                    code += 1
                    index += 1
                }
                maxc[l] = Int32(code - 1)
            }
            guard code < (1 << l) else {
                throw ImageCodecError(.corrupt, "bogus Huffman table definition (code overflow at length \(l))")
            }
            code <<= 1
        }
        maxc[17] = Int32.max
        lookup = .allocate(capacity: look.count)
        lookup.initialize(from: look, count: look.count)
        maxcode = .allocate(capacity: 18)
        maxcode.initialize(from: maxc, count: 18)
        valoffset = .allocate(capacity: 18)
        valoffset.initialize(from: voff, count: 18)
        values = .allocate(capacity: 256)
        values.initialize(repeating: 0, count: 256)
        for (i, s) in symbols.enumerated() { values[i] = s }
        let n = 1 << HuffmanTable.lookaheadBits
        fastAC = .allocate(capacity: n)
        fastAC.initialize(repeating: 0, count: n)
        for i in 0..<n where look[i] != 0 {
            let len = Int(look[i] >> 8), sym = Int(look[i] & 0xFF)
            let run = sym >> 4, size = sym & 15
            guard size != 0, len + size <= HuffmanTable.lookaheadBits else { continue }
            let raw = (i >> (HuffmanTable.lookaheadBits - len - size)) & ((1 << size) - 1)
            let value = raw < (1 << (size - 1)) ? raw - (1 << size) + 1 : raw
            fastAC[i] = Int32(value) << 16 | Int32(run << 8) | Int32(len + size)
        }
    }

    deinit {
        lookup.deallocate()
        maxcode.deallocate()
        valoffset.deallocate()
        values.deallocate()
        fastAC.deallocate()
    }

    var view: HuffmanLookup {
        HuffmanLookup(lookup: lookup, maxcode: maxcode, valoffset: valoffset, values: values, fastAC: fastAC)
    }

    /// The Annex K table libjpeg preloads into slot `index` (0 = luma, 1 = chroma).
    static func standard(dc: Bool, index: Int) -> HuffmanTable {
        let t = JPEGStandardTables.self
        let pair: ([UInt8], [UInt8])
        switch (dc, index) {
        case (true, 0): pair = (t.dcLumaCounts, t.dcLumaSymbols)
        case (true, _): pair = (t.dcChromaCounts, t.dcChromaSymbols)
        case (false, 0): pair = (t.acLumaCounts, t.acLumaSymbols)
        case (false, _): pair = (t.acChromaCounts, t.acChromaSymbols)
        }
        // The standard tables are valid by construction.
        return try! HuffmanTable(counts: pair.0[...], symbols: pair.1[...], isDC: dc)
    }
}

/// Borrowed pointers into a live `HuffmanTable` (the caller keeps the table alive).
struct HuffmanLookup {
    let lookup: UnsafePointer<UInt16>
    let maxcode: UnsafePointer<Int32>
    let valoffset: UnsafePointer<Int32>
    let values: UnsafePointer<UInt8>
    let fastAC: UnsafePointer<Int32>

    init(lookup: UnsafeMutablePointer<UInt16>, maxcode: UnsafeMutablePointer<Int32>,
         valoffset: UnsafeMutablePointer<Int32>, values: UnsafeMutablePointer<UInt8>,
         fastAC: UnsafeMutablePointer<Int32>) {
        self.lookup = UnsafePointer(lookup)
        self.maxcode = UnsafePointer(maxcode)
        self.valoffset = UnsafePointer(valoffset)
        self.values = UnsafePointer(values)
        self.fastAC = UnsafePointer(fastAC)
    }
}

extension BitReader {
    /// Decodes one Huffman symbol. A code longer than 16 bits reads as symbol 0 after 17 bits,
    /// as libjpeg does ("Corrupt JPEG data: bad Huffman code").
    @inline(__always) mutating func decodeSymbol(_ t: HuffmanLookup) -> Int {
        fill()
        let e = t.lookup[peek(HuffmanTable.lookaheadBits)]
        if e != 0 {
            bits &-= Int(e &>> 8)
            return Int(e & 0xFF)
        }
        let (symbol, length) = longSymbol(t)
        bits &-= length
        return symbol
    }

    /// Codes longer than the lookahead: (symbol, bits used). Non-mutating so that the caller's
    /// reader stays in registers.
    @inline(never) func longSymbol(_ t: HuffmanLookup) -> (Int, Int) {
        var l = HuffmanTable.lookaheadBits &+ 1
        var code = peek(l)
        while code > Int(t.maxcode[l]) {
            l &+= 1
            code = peek(l)
        }
        if l > 16 { return (0, l) }
        return (Int(t.values[(code &+ Int(t.valoffset[l])) & 0xFF]), l)
    }
}
