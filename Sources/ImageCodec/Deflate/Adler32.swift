/// Adler-32 (RFC 1950 §9): two running sums modulo 65521, over whole output buffers.
///
/// Sums are kept in 32 bits and reduced once per 5552 bytes, the longest run that cannot
/// overflow them (zlib's NMAX). Inside a run, 16 bytes at a time feed per-lane sums (`a`: the
/// bytes, `b`: `a` before each step); the position weights are applied once per run instead
/// of once per byte, which is what makes this several times faster than a byte loop.
enum Adler32 {
    static func checksum(_ data: UnsafePointer<UInt8>, count: Int, initial: UInt32 = 1) -> UInt32 {
        var s1 = UInt64(initial & 0xFFFF), s2 = UInt64(initial >> 16)
        var p = data
        var left = count
        while left > 0 {
            let run = min(left, 5552)
            let chunks = run >> 4
            if chunks > 0 {
                var a = SIMD16<UInt32>(repeating: 0), b = SIMD16<UInt32>(repeating: 0)
                let raw = UnsafeRawPointer(p)
                for c in 0..<chunks {
                    b &+= a
                    a &+= SIMD16<UInt32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: c &<< 4, as: SIMD16<UInt8>.self))
                }
                // Byte i of chunk j (of n) counts n - j times toward s2 with weight 16, less i.
                let n = UInt64(chunks)
                let weights = SIMD16<UInt32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
                let sumA = UInt64(a.wrappedSum()), sumB = UInt64(b.wrappedSum())
                let weighted = UInt64((a &* weights).wrappedSum())
                s2 &+= 16 &* n &* s1 &+ 16 &* (sumB &+ sumA) &- weighted
                s1 &+= sumA
                p += chunks &<< 4
            }
            for _ in 0..<(run & 15) {
                s1 &+= UInt64(p.pointee)
                s2 &+= s1
                p += 1
            }
            s1 %= 65521
            s2 %= 65521
            left &-= run
        }
        return UInt32(s2) << 16 | UInt32(s1)
    }
}
