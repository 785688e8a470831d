/// GIF's LZW: variable-width codes (minimum code size + 1 up to 12 bits) read least
/// significant bit first from data sub-blocks, Clear = 2^min, End = Clear + 1, the width
/// growing when the table reaches 2^width (no early change), and no new entries once it
/// holds 4096 (a "deferred clear", as browsers allow).
///
/// As in `TIFFLZW`, each entry is a span of the output already written, so a code is one
/// forward copy. Output stops at `capacity` (the frame's pixel count); the loop consumes at
/// least one code per step, so a flood of Clear codes ends with the data.
enum GIFLZW {
    /// Decodes the sub-blocks starting at `offset` (after the minimum code size byte) into
    /// `out`; returns the indices produced.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, offset: Int, minCodeSize: Int,
                       into out: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
        guard (2...8).contains(minCodeSize) else {
            throw ImageCodecError(.corrupt, "GIF LZW minimum code size \(minCodeSize)")
        }
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: 4096)
        let lengths = UnsafeMutablePointer<Int>.allocate(capacity: 4096)
        defer { starts.deallocate(); lengths.deallocate() }
        let n = bytes.count
        let clear = 1 << minCodeSize, end = clear + 1
        var width = minCodeSize + 1
        var next = clear + 2
        var previous = -1
        var pos = offset
        var blockLeft = 0
        var bits: UInt64 = 0
        var bitCount = 0
        var o = 0
        var dataEnded = false
        while o < capacity {
            while bitCount <= 56 && !dataEnded {
                if blockLeft == 0 {
                    guard pos < n, bytes[pos] != 0 else { dataEnded = true; break }
                    blockLeft = Int(bytes[pos])
                    pos += 1
                }
                guard pos < n else { dataEnded = true; break }
                bits |= UInt64(bytes[pos]) << UInt64(bitCount)
                pos &+= 1
                blockLeft &-= 1
                bitCount &+= 8
            }
            guard bitCount >= width else { break }
            let code = Int(bits & ((1 << UInt64(width)) &- 1))
            bits >>= UInt64(width)
            bitCount &-= width
            if code == clear {
                width = minCodeSize + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { break }
            let prevLength = previous < clear ? 1 : lengths[previous]
            var length: Int
            if code < clear {
                out[o] = UInt8(truncatingIfNeeded: code)
                length = 1
            } else if code < next {
                length = lengths[code]
                let from = out + starts[code]
                if length <= 16 && o &+ 16 <= capacity {
                    // Two 8-byte moves instead of a memmove call (see `TIFFLZW`).
                    let to = UnsafeMutableRawPointer(out + o)
                    to.storeBytes(of: UnsafeRawPointer(from).loadUnaligned(as: UInt64.self), as: UInt64.self)
                    to.storeBytes(of: UnsafeRawPointer(from + 8).loadUnaligned(as: UInt64.self), toByteOffset: 8, as: UInt64.self)
                } else {
                    length = min(length, capacity &- o)
                    (out + o).update(from: from, count: length)
                }
            } else if code == next && previous >= 0 {
                length = min(prevLength &+ 1, capacity &- o)
                let from = previous < clear ? -1 : starts[previous]
                let first = from < 0 ? UInt8(truncatingIfNeeded: previous) : out[from]
                if from >= 0 { (out + o).update(from: out + from, count: min(prevLength, length)) } else { out[o] = first }
                if length > prevLength { out[o &+ prevLength] = first }
            } else {
                throw ImageCodecError(.corrupt, "GIF LZW code \(code) before the table holds it (next \(next))")
            }
            if previous >= 0 && next < 4096 {
                starts[next] = o &- prevLength
                lengths[next] = prevLength &+ 1
                next &+= 1
                if next == 1 << width && width < 12 { width &+= 1 }
            }
            previous = code
            o &+= length
        }
        return o
    }
}
