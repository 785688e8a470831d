/// Skips the AC symbols of a block whose IDCT reads only the DC (every component at 1/8 except
/// upsampled-by-IDCT chroma), several symbols per table read.
///
/// The ordinary decode reads one symbol per lookup: the next lookup's index depends on the
/// bits the previous one consumed, so a block is a chain of dependent loads (shift, mask,
/// load, subtract) per symbol. When the values are thrown away, one entry can stand for every
/// complete (code, value bits) pair that fits in the next `bits` bits, so a 1/8 decode walks
/// the chain about half as often. Entry layout:
///   bits 0-7   bits consumed by all the entry's symbols
///   bits 8-15  k advance of every symbol but the last: the entry is taken only while k plus
///              this stays below 64 (as libjpeg, the last symbol may start at 63 at most);
///              255 when not even one symbol fits, so the loop takes the single-symbol path
///   bits 16-31 k advance of all symbols (run + 1 each, 16 for ZRL), plus 64 when the last
///              symbol is end-of-block, so that the block loop ends on its own test of k
/// One compare decides whether an entry applies and no branch tests for end-of-block: the
/// entry loop is a chain of dependent loads, and every instruction in it counts.
final class ACSkipTable {
    static let bits = 14
    static let endOfBlock: UInt32 = 64 << 16
    static let none: UInt32 = 255 << 8

    let entries: UnsafeMutablePointer<UInt32>

    /// Built from the AC table's lookahead (codes of at most `HuffmanTable.lookaheadBits`
    /// bits); longer codes end an entry and go through `decodeSymbol`.
    init(_ t: HuffmanLookup) {
        let n = 1 << ACSkipTable.bits
        entries = .allocate(capacity: n)
        let look = HuffmanTable.lookaheadBits
        for i in 0..<n {
            var used = 0, k = 0, before = 0
            var entry: UInt32 = ACSkipTable.none
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
                    entry = UInt32(used) | UInt32(before) << 8 | (UInt32(k) << 16 + ACSkipTable.endOfBlock)
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
