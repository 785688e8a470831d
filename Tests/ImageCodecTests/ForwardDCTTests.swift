import Testing
@testable import ImageCodec

/// The vector FDCT and quantiser against libjpeg's scalar `jpeg_fdct_islow` written out
/// plainly below (64-bit arithmetic, so the model itself cannot overflow). The 16-bit lanes
/// are safe only within bounds argued in `ForwardDCT`; the blocks here reach those bounds:
/// every coefficient's extreme is a block of 0s and 255s whose sign pattern is an outer
/// product of two ±1 vectors (the DCT basis is separable), so all 65,536 such blocks are run,
/// plus flat and random blocks.
@Suite struct ForwardDCTTests {
    /// libjpeg's `jpeg_fdct_islow` (CONST_BITS 13, PASS1_BITS 2) on one block, natural order.
    static func reference(_ block: [UInt8]) -> [Int] {
        var ws = [Int](repeating: 0, count: 64)
        func oneD(_ d: [Int], _ shiftEven: Int, _ shiftOdd: Int, _ dcShift: (Int) -> Int) -> [Int] {
            let t0 = d[0] + d[7], t7 = d[0] - d[7], t1 = d[1] + d[6], t6 = d[1] - d[6]
            let t2 = d[2] + d[5], t5 = d[2] - d[5], t3 = d[3] + d[4], t4 = d[3] - d[4]
            let t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2
            func descale(_ x: Int, _ n: Int) -> Int { (x + (1 << (n - 1))) >> n }
            var out = [Int](repeating: 0, count: 8)
            out[0] = dcShift(t10 + t11)
            out[4] = dcShift(t10 - t11)
            let z1 = (t12 + t13) * 4433
            out[2] = descale(z1 + t13 * 6270, shiftEven)
            out[6] = descale(z1 - t12 * 15137, shiftEven)
            let y1 = t4 + t7, y2 = t5 + t6, y3 = t4 + t6, y4 = t5 + t7
            let z5 = (y3 + y4) * 9633
            let a = t4 * 2446, b = t5 * 16819, c = t6 * 25172, d7 = t7 * 12299
            let m1 = y1 * -7373, m2 = y2 * -20995, m3 = y3 * -16069 + z5, m4 = y4 * -3196 + z5
            out[7] = descale(a + m1 + m3, shiftOdd)
            out[5] = descale(b + m2 + m4, shiftOdd)
            out[3] = descale(c + m2 + m3, shiftOdd)
            out[1] = descale(d7 + m1 + m4, shiftOdd)
            return out
        }
        for r in 0..<8 {
            let row = oneD((0..<8).map { Int(block[r * 8 + $0]) - 128 }, 11, 11) { $0 << 2 }
            for k in 0..<8 { ws[r * 8 + k] = row[k] }
        }
        var out = [Int](repeating: 0, count: 64)
        for k in 0..<8 {
            let column = oneD((0..<8).map { ws[$0 * 8 + k] }, 15, 15) { ($0 + 2) >> 2 }
            for u in 0..<8 { out[u * 8 + k] = column[u] }
        }
        return out
    }

    static func vector(_ block: [UInt8]) -> [Int] {
        block.withUnsafeBufferPointer { p in
            let c = ForwardDCT.coefficients(p.baseAddress!, stride: 8)
            return [c.0, c.1, c.2, c.3, c.4, c.5, c.6, c.7].flatMap { v in (0..<8).map { Int(v[$0]) } }
        }
    }

    /// Runs both forms and the full quantised transform (q = 1 everywhere, so nothing is lost
    /// but rounding), recording the first mismatch.
    static func check(_ block: [UInt8], divisors: [UInt16], zigzagBits: [UInt64]) -> Bool {
        let expected = reference(block)
        guard vector(block) == expected else {
            Issue.record("block \(block): \(vector(block)) != \(expected)")
            return false
        }
        var out = [Int16](repeating: 0, count: 64)
        let mask = block.withUnsafeBufferPointer { p in
            divisors.withUnsafeBufferPointer { d in
                zigzagBits.withUnsafeBufferPointer { z in
                    out.withUnsafeMutableBufferPointer { o in
                        ForwardDCT.transform(p.baseAddress!, stride: 8, divisors: d.baseAddress!,
                                             zigzagBits: z.baseAddress!, out: o.baseAddress!)
                    }
                }
            }
        }
        let quantised = expected.map { x in (abs(x) + 4) / 8 * (x < 0 ? -1 : 1) }
        var expectedMask: UInt64 = 0
        for k in 1..<64 where quantised[QuantTables.zigzag[k]] != 0 { expectedMask |= 1 << UInt64(k) }
        guard out.map(Int.init) == quantised, mask == expectedMask else {
            Issue.record("block \(block): quantised \(out) mask \(mask) != \(quantised) mask \(expectedMask)")
            return false
        }
        return true
    }

    @Test func extremeFlatAndRandomBlocksMatchLibjpeg() {
        let divisors = QuantDivisors.values(table: [UInt16](repeating: 1, count: 64))
        let zigzagBits = ZigzagMask.table
        for rows in 0..<256 {
            for columns in 0..<256 {
                let block = (0..<64).map { i -> UInt8 in
                    ((rows >> (i / 8)) ^ (columns >> (i % 8))) & 1 == 0 ? 255 : 0
                }
                if !Self.check(block, divisors: divisors, zigzagBits: zigzagBits) { return }
            }
        }
        for level in 0...255 {
            if !Self.check([UInt8](repeating: UInt8(level), count: 64), divisors: divisors, zigzagBits: zigzagBits) { return }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let block = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !Self.check(block, divisors: divisors, zigzagBits: zigzagBits) { return }
        }
    }

    @Test func quantiserMultiplyEqualsDivision() {
        // Every q a baseline table can hold, every FDCT output magnitude 8-bit samples give
        // (and twice that), eight lanes at a time.
        for q in 1...255 {
            let v = QuantDivisors.values(table: [UInt16](repeating: UInt16(q), count: 64))
            let bias = SIMD8<UInt16>(repeating: v[0]), multiplier = SIMD8<UInt16>(repeating: v[64])
            let scale = SIMD8<UInt16>(repeating: v[128])
            var x = -16384
            while x < 16384 {
                let lanes = SIMD8<Int16>((0..<8).map { Int16(x + $0) })
                let got = QuantDivisors.quantize(lanes, bias: bias, multiplier: multiplier, scale: scale)
                for i in 0..<8 {
                    let n = x + i
                    let expected = Int16((abs(n) + 4 * q) / (8 * q)) * (n < 0 ? -1 : 1)
                    if got[i] != expected {
                        Issue.record("q \(q) x \(n): \(got[i]) != \(expected)")
                        return
                    }
                }
                x += 8
            }
        }
    }
}
