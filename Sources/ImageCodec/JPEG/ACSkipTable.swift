/// Skips the AC symbols of a block whose IDCT reads only the DC (every component at 1/8 except
/// upsampled-by-IDCT chroma), several symbols per table read.
///
/// The ordinary decode reads one symbol per lookup: the next lookup's index depends on the
/// bits the previous one consumed, so a block is a chain of dependent loads (shift, mask,
/// load, subtract) per symbol. When the values are thrown away, one entry can stand for every
/// complete (code, value bits) pair that fits in the next `bits` bits, so a 1/8 decode walks
/// the chain about half as often. Entry layout (0 = not even one symbol fits; take the single
/// symbol path):
///   bits 0-7   bits consumed by all the entry's symbols
///   bits 8-15  k advance of every symbol but the last (the loop must not pass 63 before it)
///   bits 16-23 k advance of all symbols (run + 1 each, 16 for ZRL)
///   bit 24     the last symbol is end-of-block
final class ACSkipTable {
    static let bits = 12
    static let endOfBlock: UInt32 = 1 << 24

    let entries: UnsafeMutablePointer<UInt32>

    /// Built from the AC table's lookahead (codes of at most `HuffmanTable.lookaheadBits`
    /// bits); longer codes end an entry and go through `decodeSymbol`.
    init(_ t: HuffmanLookup) {
        let n = 1 << ACSkipTable.bits
        entries = .allocate(capacity: n)
        let look = HuffmanTable.lookaheadBits
        for i in 0..<n {
            var used = 0, k = 0, before = 0
            var entry: UInt32 = 0
            while used < ACSkipTable.bits {
                let left = ACSkipTable.bits - used
                // The next `look` bits of the window, zero-padded past its end.
                let window = (i << used) & (n - 1)
                let e = Int(t.lookup[window >> (ACSkipTable.bits - look)])
                let length = e >> 8, symbol = e & 0xFF
                let run = symbol >> 4, size = symbol & 15
                guard e != 0, length + size <= left else { break }
                used += length + size
                before = k
                if size == 0 && run != 15 {
                    entry = UInt32(used) | UInt32(before) << 8 | UInt32(k) << 16 | ACSkipTable.endOfBlock
                    break
                }
                k += size == 0 ? 16 : run + 1
                entry = UInt32(used) | UInt32(before) << 8 | UInt32(k) << 16
            }
            entries[i] = entry
        }
    }

    deinit { entries.deallocate() }
}
