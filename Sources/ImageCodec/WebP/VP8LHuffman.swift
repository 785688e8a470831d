/// Canonical prefix codes of VP8L (lossless specification 3.7): reading the code lengths
/// (simple one/two-symbol codes or code-length-coded lengths) and a two-level lookup table
/// (8-bit root, sub-tables for longer codes) to decode symbols.
struct VP8LHuffmanCode {
    static let rootBits = 8
    /// Root entries: `symbol << 16 | length` for codes ≤ 8 bits; `offset << 16 | 0x100 | subBits`
    /// pointing at a sub-table. Sub-table entries: `symbol << 16 | (length - 8)`.
    private(set) var table: [UInt32]

    /// Table entries built so far by all codes of a decode, bounded to keep hostile files from
    /// asking for unbounded tables.
    static let maxTableEntries = 1 << 26

    private static let codeLengthOrder = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]

    /// Reads one code over `alphabetSize` symbols.
    static func read(_ r: inout VP8LBitReader, alphabetSize: Int) throws -> VP8LHuffmanCode {
        var lengths = [UInt8](repeating: 0, count: alphabetSize)
        if r.read(1) == 1 {  // simple code
            let symbols = Int(r.read(1)) + 1
            let first = Int(r.read(r.read(1) == 1 ? 8 : 1))
            guard first < alphabetSize else { throw ImageCodecError(.corrupt, "VP8L simple code symbol \(first) out of range") }
            lengths[first] = 1
            if symbols == 2 {
                let second = Int(r.read(8))
                guard second < alphabetSize else { throw ImageCodecError(.corrupt, "VP8L simple code symbol \(second) out of range") }
                lengths[second] = 1
            }
        } else {
            var lengthLengths = [UInt8](repeating: 0, count: 19)
            let count = Int(r.read(4)) + 4
            for i in 0..<count { lengthLengths[codeLengthOrder[i]] = UInt8(r.read(3)) }
            let lengthCode = try VP8LHuffmanCode(lengths: lengthLengths)
            var maxSymbol = alphabetSize
            if r.read(1) == 1 {
                let bits = 2 + 2 * Int(r.read(3))
                maxSymbol = 2 + Int(r.read(bits))
                guard maxSymbol <= alphabetSize else { throw ImageCodecError(.corrupt, "VP8L code length count \(maxSymbol) too large") }
            }
            var symbol = 0
            var previous: UInt8 = 8
            while symbol < alphabetSize {
                if maxSymbol == 0 { break }
                maxSymbol -= 1
                let length = lengthCode.decode(&r)
                if length < 16 {
                    lengths[symbol] = UInt8(length)
                    symbol += 1
                    if length != 0 { previous = UInt8(length) }
                } else {
                    let extraBits = [2, 3, 7][length - 16], offset = [3, 3, 11][length - 16]
                    let repeatCount = Int(r.read(extraBits)) + offset
                    guard symbol + repeatCount <= alphabetSize else { throw ImageCodecError(.corrupt, "VP8L code lengths overrun the alphabet") }
                    let value: UInt8 = length == 16 ? previous : 0
                    for _ in 0..<repeatCount { lengths[symbol] = value; symbol += 1 }
                }
                if r.pastEnd { throw ImageCodecError(.truncated, "VP8L data ends inside a prefix code") }
            }
        }
        if r.pastEnd { throw ImageCodecError(.truncated, "VP8L data ends inside a prefix code") }
        return try VP8LHuffmanCode(lengths: lengths)
    }

    /// Builds the table for `lengths` (0 = unused). The code must be complete, except that a
    /// single used symbol becomes a zero-length code.
    init(lengths: [UInt8]) throws {
        var counts = [Int](repeating: 0, count: 16)
        var used = 0, only = 0
        for (symbol, length) in lengths.enumerated() where length > 0 {
            counts[Int(length)] += 1
            used += 1
            only = symbol
        }
        guard used > 0 else { throw ImageCodecError(.corrupt, "VP8L prefix code without symbols") }
        if used == 1 {
            table = [UInt32](repeating: UInt32(only) << 16, count: 1 << Self.rootBits)
            return
        }
        var space = 1 << 15
        for length in 1...15 { space -= counts[length] << (15 - length) }
        guard space == 0 else { throw ImageCodecError(.corrupt, "VP8L prefix code is \(space > 0 ? "incomplete" : "over-subscribed")") }

        // Canonical codes, MSB-first, then bit-reversed for the LSB-first stream.
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            next[length] = code
            code = (code + counts[length]) << 1
        }
        var reversedCodes = [Int](repeating: 0, count: lengths.count)
        var subBits = [Int](repeating: 0, count: 1 << Self.rootBits)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let l = Int(length)
            let c = next[l]
            next[l] += 1
            var reversed = 0
            for i in 0..<l where c & (1 << i) != 0 { reversed |= 1 << (l - 1 - i) }
            reversedCodes[symbol] = reversed
            if l > Self.rootBits {
                let slot = reversed & ((1 << Self.rootBits) - 1)
                subBits[slot] = max(subBits[slot], l - Self.rootBits)
            }
        }
        var size = 1 << Self.rootBits
        var offsets = [Int](repeating: 0, count: 1 << Self.rootBits)
        for slot in 0..<(1 << Self.rootBits) where subBits[slot] > 0 {
            offsets[slot] = size
            size += 1 << subBits[slot]
        }
        var table = [UInt32](repeating: 0, count: size)
        for slot in 0..<(1 << Self.rootBits) where subBits[slot] > 0 {
            table[slot] = UInt32(offsets[slot]) << 16 | 0x100 | UInt32(subBits[slot])
        }
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let l = Int(length), reversed = reversedCodes[symbol]
            if l <= Self.rootBits {
                var i = reversed
                while i < 1 << Self.rootBits {
                    table[i] = UInt32(symbol) << 16 | UInt32(l)
                    i += 1 << l
                }
            } else {
                let slot = reversed & ((1 << Self.rootBits) - 1)
                let bits = subBits[slot]
                var i = reversed >> Self.rootBits
                while i < 1 << bits {
                    table[offsets[slot] + i] = UInt32(symbol) << 16 | UInt32(l - Self.rootBits)
                    i += 1 << (l - Self.rootBits)
                }
            }
        }
        self.table = table
    }

    /// Decodes one symbol.
    @inline(__always)
    func decode(_ r: inout VP8LBitReader) -> Int {
        table.withUnsafeBufferPointer { Self.decode(&r, $0.baseAddress!) }
    }

    /// Decodes one symbol with a table pointer taken once outside the pixel loop.
    @inline(__always)
    static func decode(_ r: inout VP8LBitReader, _ t: UnsafePointer<UInt32>) -> Int {
        let bits = r.peek(15)
        let entry = t[Int(bits & 0xFF)]
        if entry & 0x100 == 0 {
            r.skip(Int(entry & 0xFF))
            return Int(entry >> 16)
        }
        let sub = t[Int(entry >> 16) &+ Int((bits >> 8) & ((1 << (entry & 0xFF)) &- 1))]
        r.skip(rootBits &+ Int(sub & 0xFF))
        return Int(sub >> 16)
    }
}
