/// TIFF's LZW: codes read most significant bit first, 9 to 12 bits wide, Clear = 256,
/// EndOfInformation = 257, and the width grows one code early (at 511, 1023, 2047), as
/// libtiff writes it.
///
/// Why this shape: each table entry is remembered as a span of the output already written
/// (where its prefix's string started, and its length), not as a prefix chain: emitting a
/// code is one forward copy instead of a backward walk through the table, which is what
/// keeps a 4000×3000 LZW strip set faster than libtiff's decode inside vips. The KwKwK case
/// (a code defined by its own use) copies byte by byte, which reads each byte after writing it.
enum TIFFLZW {
    static func decode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
        guard let src = input.baseAddress, input.count > 0 else { return 0 }
        if input.count >= 2, input[0] == 0, input[1] & 0x01 != 0 {
            throw ImageCodecError(.unsupported, "old-style (LSB-first) TIFF LZW")
        }
        // Per entry: start in the output and length. Entries 0-255 are the byte values.
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: 4096)
        let lengths = UnsafeMutablePointer<Int>.allocate(capacity: 4096)
        defer { starts.deallocate(); lengths.deallocate() }
        let n = input.count
        var pos = 0
        var bits: UInt64 = 0
        var bitCount = 0
        var width = 9
        var next = 258
        var previous = -1
        var o = 0
        while o < capacity {
            while bitCount <= 56 && pos < n {
                bits |= UInt64(src[pos]) << UInt64(56 &- bitCount)
                pos &+= 1
                bitCount &+= 8
            }
            guard bitCount >= width else { break }
            let code = Int(bits >> UInt64(64 &- width))
            bits <<= UInt64(width)
            bitCount &-= width
            if code == 256 {
                width = 9
                next = 258
                previous = -1
                continue
            }
            if code == 257 { break }
            let prevLength = previous < 256 ? 1 : lengths[previous]
            var length: Int
            if code < 256 {
                out[o] = UInt8(truncatingIfNeeded: code)
                length = 1
            } else if code < next {
                // An entry's span ends at or before the output position where it was defined.
                length = lengths[code]
                let from = out + starts[code]
                if length <= 16 && o &+ 16 <= capacity {
                    // Most codes are short: two 8-byte moves instead of a memmove call. Bytes
                    // past `length` are scratch that later codes overwrite; the ones read for
                    // the string all lie before `o`, so the first store cannot disturb them.
                    let to = UnsafeMutableRawPointer(out + o)
                    to.storeBytes(of: UnsafeRawPointer(from).loadUnaligned(as: UInt64.self), as: UInt64.self)
                    to.storeBytes(of: UnsafeRawPointer(from + 8).loadUnaligned(as: UInt64.self), toByteOffset: 8, as: UInt64.self)
                } else {
                    length = min(length, capacity &- o)
                    (out + o).update(from: from, count: length)
                }
            } else if code == next && previous >= 0 {
                // KwKwK: the previous string plus its own first byte.
                length = min(prevLength &+ 1, capacity &- o)
                let from = previous < 256 ? -1 : starts[previous]
                let first = from < 0 ? UInt8(truncatingIfNeeded: previous) : out[from]
                if from >= 0 { (out + o).update(from: out + from, count: min(prevLength, length)) } else { out[o] = first }
                if length > prevLength { out[o &+ prevLength] = first }
            } else {
                throw ImageCodecError(.corrupt, "TIFF LZW code \(code) before the table holds it (next \(next))")
            }
            if previous >= 0 && next < 4096 {
                // The new entry is the previous string, written just before, plus this one's first byte.
                starts[next] = o &- prevLength
                lengths[next] = prevLength &+ 1
                next &+= 1
                if next >= (1 << width) &- 1 && width < 12 { width &+= 1 }
            }
            previous = code
            o &+= length
        }
        return o
    }
}
