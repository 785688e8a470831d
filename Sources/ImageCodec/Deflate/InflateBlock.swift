/// The body of Deflate blocks: stored bytes, and literal/length/distance symbols written
/// straight into the caller's output, which is also the match window.
///
/// Symbols run in two loops. The fast loop runs while at least 16 input bytes and 290 output
/// bytes remain: it refills the bit buffer with one unaligned 8-byte load (56+ bits, enough for
/// three literals, or a 20-bit length and a 28-bit distance with their extra bits), and copies
/// matches 16 or 8 bytes at a time, writing up to 15 bytes past the match (inside the slack). The
/// careful loop finishes the block byte by byte near either end, where zlib's exact stopping
/// points (truncation, full output) are decided.
struct InflateBlock {
    let outStart: UnsafeMutablePointer<UInt8>
    let outEnd: UnsafeMutablePointer<UInt8>
    var out: UnsafeMutablePointer<UInt8>
    let litlen: UnsafePointer<UInt32>
    let distance: UnsafePointer<UInt32>

    init(outStart: UnsafeMutablePointer<UInt8>, outEnd: UnsafeMutablePointer<UInt8>,
         litlen: UnsafePointer<UInt32>, distance: UnsafePointer<UInt32>) {
        self.outStart = outStart
        self.outEnd = outEnd
        out = outStart
        self.litlen = litlen
        self.distance = distance
    }

    var produced: Int { out - outStart }

    private static let litlenMask = (1 << InflateTables.litlenBits) &- 1
    private static let distanceMask = (1 << InflateTables.distanceBits) &- 1
    private static let fastOutputSlack = 258 + 32
    private static let fastInputSlack = 16

    /// A stored block: LEN, NLEN, then LEN bytes copied (as many as input and output allow).
    mutating func stored(_ bits: inout InflateBits) throws(InflateError) {
        bits.rewindToBytes()
        guard bits.end - bits.next >= 4 else { throw .truncated(produced: produced) }
        let p = bits.next
        let length = Int(p[0]) | Int(p[1]) << 8, check = Int(p[2]) | Int(p[3]) << 8
        guard length == check ^ 0xFFFF else { throw .badStoredLength }
        bits.next += 4
        let room = outEnd - out
        let n = min(length, bits.end - bits.next, room)
        out.update(from: bits.next, count: n)
        out += n
        bits.next += n
        if n < length { throw n == room ? .outputFull : .truncated(produced: produced) }
    }

    /// Literal/length and distance symbols up to the block's end-of-block code.
    mutating func decodeSymbols(_ bits: inout InflateBits) throws(InflateError) {
        if try fastLoop(&bits) { return }
        try carefulLoop(&bits)
    }

    /// Returns true at the end of the block, false when the slack ran out first.
    private mutating func fastLoop(_ bits: inout InflateBits) throws(InflateError) -> Bool {
        // Locals, written back on every exit: the optimiser keeps them in registers.
        var next = bits.next, buf = bits.buf, count = bits.count
        let end = bits.end
        var o = out
        defer {
            bits.next = next
            bits.buf = buf
            bits.count = count
            out = o
        }
        let litlen = self.litlen, distance = self.distance, outStart = self.outStart
        let outEnd = self.outEnd
        while end - next >= Self.fastInputSlack && outEnd - o >= Self.fastOutputSlack {
            buf |= UInt64(littleEndian: UnsafeRawPointer(next).loadUnaligned(as: UInt64.self)) &<< UInt64(count)
            next += (63 &- count) >> 3
            count |= 56

            var entry = litlen[Int(truncatingIfNeeded: buf) & Self.litlenMask]
            if entry & InflateTables.literalFlag != 0 {
                // Up to three literals per refill (15 bits each at most), the common run in
                // image data; a following non-literal is kept and decoded after a refill.
                buf &>>= UInt64(entry & 0xFF)
                count &-= Int(entry & 0xFF)
                o.pointee = UInt8(truncatingIfNeeded: entry >> 16)
                o += 1
                entry = litlen[Int(truncatingIfNeeded: buf) & Self.litlenMask]
                if entry & InflateTables.literalFlag != 0 {
                    buf &>>= UInt64(entry & 0xFF)
                    count &-= Int(entry & 0xFF)
                    o.pointee = UInt8(truncatingIfNeeded: entry >> 16)
                    o += 1
                    entry = litlen[Int(truncatingIfNeeded: buf) & Self.litlenMask]
                    if entry & InflateTables.literalFlag != 0 {
                        buf &>>= UInt64(entry & 0xFF)
                        count &-= Int(entry & 0xFF)
                        o.pointee = UInt8(truncatingIfNeeded: entry >> 16)
                        o += 1
                        continue
                    }
                }
                buf |= UInt64(littleEndian: UnsafeRawPointer(next).loadUnaligned(as: UInt64.self)) &<< UInt64(count)
                next += (63 &- count) >> 3
                count |= 56
            }
            if entry & InflateTables.exceptionalFlags != 0 {
                if entry & InflateTables.subtableFlag != 0 {
                    buf &>>= UInt64(entry & 0xFF)
                    count &-= Int(entry & 0xFF)
                    let subMask = (1 << Int(entry >> 8 & 15)) &- 1
                    entry = litlen[Int(entry >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: buf) & subMask]
                }
                if entry & InflateTables.endOfBlockFlag != 0 {
                    buf &>>= UInt64(entry & 0xFF)
                    count &-= Int(entry & 0xFF)
                    return true
                }
                if entry & InflateTables.invalidFlag != 0 { throw .badSymbol }
            }
            if entry & InflateTables.literalFlag != 0 {
                buf &>>= UInt64(entry & 0xFF)
                count &-= Int(entry & 0xFF)
                o.pointee = UInt8(truncatingIfNeeded: entry >> 16)
                o += 1
                continue
            }
            let total = UInt64(entry & 0xFF)
            let length = Int(entry >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: (buf & (1 &<< total &- 1)) &>> UInt64(entry >> 8 & 15))
            buf &>>= total
            count &-= Int(total)

            var d = distance[Int(truncatingIfNeeded: buf) & Self.distanceMask]
            if d & InflateTables.exceptionalFlags != 0 {
                if d & InflateTables.subtableFlag != 0 {
                    buf &>>= UInt64(d & 0xFF)
                    count &-= Int(d & 0xFF)
                    let subMask = (1 << Int(d >> 8 & 15)) &- 1
                    d = distance[Int(d >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: buf) & subMask]
                }
                if d & InflateTables.invalidFlag != 0 { throw .badSymbol }
            }
            let dTotal = UInt64(d & 0xFF)
            let dist = Int(d >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: (buf & (1 &<< dTotal &- 1)) &>> UInt64(d >> 8 & 15))
            buf &>>= dTotal
            count &-= Int(dTotal)
            guard dist <= o - outStart else { throw .distanceTooFar }
            Self.copyMatch(o, distance: dist, length: length)
            o += length
        }
        return false
    }

    /// Copies `length` bytes from `distance` back, possibly overlapping, writing up to 7 bytes
    /// past the end (the caller guarantees the room).
    @inline(__always)
    private static func copyMatch(_ dst: UnsafeMutablePointer<UInt8>, distance: Int, length: Int) {
        let stop = dst + length
        var d = UnsafeMutableRawPointer(dst)
        if distance >= 16 {
            var s = UnsafeRawPointer(dst - distance)
            repeat {
                let a = s.loadUnaligned(as: UInt64.self), b = s.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                d.storeBytes(of: a, as: UInt64.self)
                d.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
                s += 16
                d += 16
            } while d < UnsafeMutableRawPointer(stop)
        } else if distance >= 8 {
            var s = UnsafeRawPointer(dst - distance)
            repeat {
                d.storeBytes(of: s.loadUnaligned(as: UInt64.self), as: UInt64.self)
                s += 8
                d += 8
            } while d < UnsafeMutableRawPointer(stop)
        } else if distance == 1 {
            let v = UInt64((dst - 1).pointee) &* 0x0101_0101_0101_0101
            repeat {
                d.storeBytes(of: v, as: UInt64.self)
                d += 8
            } while d < UnsafeMutableRawPointer(stop)
        } else {
            // Distances 2-7: the first 8 bytes one at a time lay down the repeating pattern;
            // after that it also repeats every `step` (the first multiple of the distance of
            // at least 8), so the rest copies in 8-byte words from `step` back.
            let src = dst - distance
            for i in 0..<8 { dst[i] = src[i] }
            let step = distance &* ((8 &+ distance &- 1) / distance)
            d += 8
            while d < UnsafeMutableRawPointer(stop) {
                d.storeBytes(of: (d - step).loadUnaligned(as: UInt64.self), as: UInt64.self)
                d += 8
            }
        }
    }

    /// One symbol at a time with exact bounds: stops with `.truncated` when a symbol needs
    /// bits past the input, `.outputFull` when it needs room past `capacity` (after writing
    /// what fits, as zlib does).
    private mutating func carefulLoop(_ bits: inout InflateBits) throws(InflateError) {
        while true {
            bits.fill()
            var entry = litlen[Int(truncatingIfNeeded: bits.buf) & Self.litlenMask]
            if entry & InflateTables.subtableFlag != 0 {
                bits.drop(Int(entry & 0xFF))
                let subMask = (1 << Int(entry >> 8 & 15)) &- 1
                entry = litlen[Int(entry >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: bits.buf) & subMask]
            }
            if entry & (InflateTables.literalFlag | InflateTables.endOfBlockFlag | InflateTables.invalidFlag) != 0 {
                bits.drop(Int(entry >> 8 & 15))
                if bits.overrun { throw .truncated(produced: produced) }
                if entry & InflateTables.endOfBlockFlag != 0 { return }
                if entry & InflateTables.invalidFlag != 0 { throw .badSymbol }
                guard out < outEnd else { throw .outputFull }
                out.pointee = UInt8(truncatingIfNeeded: entry >> 16)
                out += 1
                continue
            }
            let total = UInt64(entry & 0xFF)
            let length = Int(entry >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: (bits.buf & (1 &<< total &- 1)) &>> UInt64(entry >> 8 & 15))
            bits.drop(Int(total))

            var d = distance[Int(truncatingIfNeeded: bits.buf) & Self.distanceMask]
            if d & InflateTables.subtableFlag != 0 {
                bits.drop(Int(d & 0xFF))
                let subMask = (1 << Int(d >> 8 & 15)) &- 1
                d = distance[Int(d >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: bits.buf) & subMask]
            }
            if d & InflateTables.invalidFlag != 0 {
                bits.drop(Int(d >> 8 & 15))
                throw bits.overrun ? .truncated(produced: produced) : .badSymbol
            }
            let dTotal = UInt64(d & 0xFF)
            let dist = Int(d >> 16 & 0x7FFF) &+ Int(truncatingIfNeeded: (bits.buf & (1 &<< dTotal &- 1)) &>> UInt64(d >> 8 & 15))
            bits.drop(Int(dTotal))
            if bits.overrun { throw .truncated(produced: produced) }
            guard out < outEnd else { throw .outputFull }
            guard dist <= out - outStart else { throw .distanceTooFar }
            let n = min(length, outEnd - out)
            let src = out - dist
            for i in 0..<n { out[i] = src[i] }
            out += n
            if n < length { throw .outputFull }
        }
    }
}
