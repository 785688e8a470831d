/// Decode tables for Deflate's canonical Huffman codes (RFC 1951 §3.2.2), indexed by the next
/// input bits (least significant first, so codes are stored bit-reversed).
///
/// One `UInt32` per entry, so a literal, an end-of-block or a length/distance base with its
/// extra-bit count comes out of one lookup:
/// - bits 0-7: bits to consume (code length plus extra bits; for a subtable link, the main
///   table's index width);
/// - bits 8-11: the code's own length, where the extra bits start (for a link, the subtable's
///   index width);
/// - bits 13-15: flags (subtable link, end of block, invalid code);
/// - bits 16-30: the value (literal byte, length or distance base, subtable start);
/// - bit 31: literal (so the hot loop tests the sign).
///
/// Codes longer than the main table's width go to subtables after it, one per shared prefix,
/// sized to the codes under that prefix (the layout zlib and libdeflate use).
enum InflateTables {
    static let literalFlag: UInt32 = 0x8000_0000
    static let subtableFlag: UInt32 = 0x2000
    static let endOfBlockFlag: UInt32 = 0x4000
    static let invalidFlag: UInt32 = 0x8000
    /// Flags that take the hot loop off its literal/match path.
    static let exceptionalFlags: UInt32 = 0xE000

    static let litlenBits = 11
    static let distanceBits = 8
    static let precodeBits = 7
    /// Main table plus the worst case of subtables for 288 (litlen) and 32 (distance) codes of
    /// up to 15 bits (libdeflate's ENOUGH figures 2342 and 402, rounded up); the builder checks
    /// against these anyway, so a miscount is an error, never a write past the table.
    static let litlenCapacity = 2560
    static let distanceCapacity = 512
    static let precodeCapacity = 1 << precodeBits

    enum Kind { case litlen, distance, precode }

    /// Length bases and extra bits for symbols 257-285; distance bases and extra bits for 0-29.
    private static let lengthBase: [UInt16] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                               35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                               3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase: [UInt16] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                                 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                                 8193, 12289, 16385, 24577]
    private static let distanceExtra: [UInt8] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                                 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// The entry for `symbol` without its lengths, and its extra-bit count.
    @inline(__always)
    private static func payload(_ kind: Kind, _ symbol: Int) -> (entry: UInt32, extra: Int) {
        switch kind {
        case .precode:
            return (UInt32(symbol) << 16, 0)
        case .litlen:
            if symbol < 256 { return (literalFlag | UInt32(symbol) << 16, 0) }
            if symbol == 256 { return (endOfBlockFlag, 0) }
            let i = symbol &- 257
            guard i < 29 else { return (invalidFlag, 0) }
            return (UInt32(lengthBase[i]) << 16, Int(lengthExtra[i]))
        case .distance:
            guard symbol < 30 else { return (invalidFlag, 0) }
            return (UInt32(distanceBase[symbol]) << 16, Int(distanceExtra[symbol]))
        }
    }

    /// `bits` low bits of `code` in reverse order.
    @inline(__always)
    private static func reversed(_ code: Int, _ bits: Int) -> Int {
        var x = UInt16(truncatingIfNeeded: code)
        x = (x & 0x5555) << 1 | (x >> 1) & 0x5555
        x = (x & 0x3333) << 2 | (x >> 2) & 0x3333
        x = (x & 0x0F0F) << 4 | (x >> 4) & 0x0F0F
        x = x << 8 | x >> 8
        return Int(x >> UInt16(16 &- bits))
    }

    /// Fills `table` for the code whose lengths (0-15, 0 = unused) are `lengths[0..<count]`.
    ///
    /// zlib's rules, so both accept the same streams: an over-subscribed code is an error; an
    /// incomplete one is an error unless it is a single one-bit code (the other bit pattern is
    /// then an invalid code) or, for literal/length and distance codes, empty (every pattern
    /// invalid). An empty code-length code decodes every pattern as length 0 in one bit, as
    /// zlib's table does.
    static func build(_ kind: Kind, lengths: UnsafePointer<UInt8>, count: Int,
                      table: UnsafeMutablePointer<UInt32>, tableBits: Int, capacity: Int) throws(InflateError) {
        var counts = InlineArray<16, Int>(repeating: 0)
        for s in 0..<count { counts[Int(lengths[s] & 15)] &+= 1 }
        counts[0] = 0
        var maxLength = 15
        while maxLength > 0 && counts[maxLength] == 0 { maxLength &-= 1 }
        let mainSize = 1 << tableBits
        if maxLength == 0 {
            let filler: UInt32 = kind == .precode ? 1 << 8 | 1 : invalidFlag | 1 << 8 | 1
            table.initialize(repeating: filler, count: mainSize)
            return
        }
        var left = 1
        for len in 1...15 {
            left = left << 1 &- counts[len]
            if left < 0 { throw .badCodeLengths }
        }
        if left > 0 {
            guard kind != .precode, maxLength == 1 else { throw .badCodeLengths }
            table.initialize(repeating: invalidFlag | 1 << 8 | 1, count: mainSize)
        }

        // Symbols sorted by (length, symbol): canonical order.
        var offsets = InlineArray<16, Int>(repeating: 0)
        for len in 1..<15 { offsets[len &+ 1] = offsets[len] &+ counts[len] }
        let total = offsets[15] &+ counts[15]
        var sorted = InlineArray<288, UInt16>(repeating: 0)
        for s in 0..<count where lengths[s] != 0 {
            let len = Int(lengths[s])
            sorted[offsets[len]] = UInt16(s)
            offsets[len] &+= 1
        }

        var code = 0, length = 0
        var remaining = counts
        var subPrefix = -1, subStart = 0, subBits = 0
        var nextFree = mainSize
        let mainMask = mainSize &- 1
        for k in 0..<total {
            let symbol = Int(sorted[k])
            let len = Int(lengths[symbol])
            if length != 0 { code &+= 1 }
            if len != length { code <<= len &- length; length = len }
            let rev = reversed(code, len)
            let (base, extra) = payload(kind, symbol)
            if len <= tableBits {
                let entry = base | UInt32(len) << 8 | UInt32(len &+ extra)
                var i = rev
                while i < mainSize { table[i] = entry; i &+= 1 << len }
            } else {
                let prefix = rev & mainMask
                if prefix != subPrefix {
                    // A new subtable, wide enough for every remaining code under this prefix.
                    subBits = len &- tableBits
                    var room = 1 << subBits
                    while subBits &+ tableBits < maxLength {
                        room &-= remaining[subBits &+ tableBits]
                        if room <= 0 { break }
                        subBits &+= 1
                        room <<= 1
                    }
                    subStart = nextFree
                    nextFree &+= 1 << subBits
                    guard nextFree <= capacity else { throw .badCodeLengths }
                    table[prefix] = subtableFlag | UInt32(subStart) << 16 | UInt32(subBits) << 8 | UInt32(tableBits)
                    subPrefix = prefix
                }
                let subLen = len &- tableBits
                let entry = base | UInt32(subLen) << 8 | UInt32(subLen &+ extra)
                var i = rev >> tableBits
                while i < 1 << subBits { table[subStart &+ i] = entry; i &+= 1 << subLen }
            }
            remaining[len] &-= 1
        }
    }
}
