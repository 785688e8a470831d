import Testing
@testable import ImageCodec

/// Hand-built hostile Deflate streams: each must end in its typed `InflateError`, quickly,
/// without writing past the output or reading past the input.
@Suite struct InflateHostileTests {
    /// Bits least significant first, as Deflate packs them; Huffman codes go most significant
    /// bit first (`code`).
    struct BitWriter {
        var bytes: [UInt8] = []
        var bit = 0
        mutating func put(_ value: Int, _ count: Int) {
            for i in 0..<count {
                if bit == 0 { bytes.append(0) }
                bytes[bytes.count - 1] |= UInt8((value >> i) & 1) << UInt8(bit)
                bit = (bit + 1) & 7
            }
        }
        mutating func code(_ value: Int, _ length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) { put((value >> i) & 1, 1) }
        }
        /// A fixed-code literal/length symbol.
        mutating func fixed(_ symbol: Int) {
            switch symbol {
            case 0..<144: code(0x30 + symbol, 8)
            case 144..<256: code(0x190 + symbol - 144, 9)
            case 256..<280: code(symbol - 256, 7)
            default: code(0xC0 + symbol - 280, 8)
            }
        }
    }

    func inflate(_ stream: [UInt8], capacity: Int = 1024, raw: Bool = true, checkAdler: Bool = true) -> Result<[UInt8], InflateError> {
        var out = [UInt8](repeating: 0, count: capacity)
        do {
            let n = try stream.withUnsafeBufferPointer { s throws(InflateError) in
                try out.withUnsafeMutableBufferPointer { o throws(InflateError) in
                    raw ? try Inflate.raw(s, into: o.baseAddress!, capacity: capacity)
                        : try Inflate.zlib(s, into: o.baseAddress!, capacity: capacity, checkAdler: checkAdler)
                }
            }
            return .success(Array(out.prefix(n)))
        } catch {
            return .failure(error)
        }
    }

    func failure(_ r: Result<[UInt8], InflateError>) -> InflateError? {
        if case .failure(let e) = r { return e }
        return nil
    }

    /// A dynamic block header: HLIT, HDIST, then code-length code lengths in RFC order.
    func dynamicHeader(_ w: inout BitWriter, litlen: Int = 257, distance: Int = 1, precode: [Int]) {
        w.put(1, 1); w.put(2, 2)
        w.put(litlen - 257, 5); w.put(distance - 1, 5); w.put(precode.count - 4, 4)
        for length in precode { w.put(length, 3) }
    }

    @Test func overSubscribedCodeLengthCode() {
        var w = BitWriter()
        dynamicHeader(&w, precode: [1, 1, 1, 1])
        #expect(failure(inflate(w.bytes)) == .badCodeLengths)
    }

    @Test func incompleteCodeLengthCode() {
        var w = BitWriter()
        dynamicHeader(&w, precode: [2, 2, 2, 0])
        w.put(0, 8)
        #expect(failure(inflate(w.bytes)) == .badCodeLengths)
    }

    @Test func tooManyLengthCodes() {
        var w = BitWriter()
        dynamicHeader(&w, litlen: 287, precode: [2, 2, 2, 2])
        #expect(failure(inflate(w.bytes)) == .badCodeLengths)
        var d = BitWriter()
        dynamicHeader(&d, distance: 31, precode: [2, 2, 2, 2])
        #expect(failure(inflate(d.bytes)) == .badCodeLengths)
    }

    @Test func repeatWithNothingBefore() {
        // Code-length code: 16, 17, 18 and 0 at two bits each (canonical codes: 0 is 00,
        // 16 is 01, 17 is 10, 18 is 11); the first symbol is 16.
        var w = BitWriter()
        dynamicHeader(&w, precode: [2, 2, 2, 2])
        w.code(1, 2); w.put(0, 2)
        #expect(failure(inflate(w.bytes)) == .badRepeat)
    }

    @Test func repeatPastTheCounts() {
        var w = BitWriter()
        dynamicHeader(&w, precode: [2, 2, 2, 2])
        for _ in 0..<3 { w.code(3, 2); w.put(127, 7) }   // 18: 138 zeros, three times = 414 > 258
        #expect(failure(inflate(w.bytes)) == .badRepeat)
    }

    @Test func missingEndOfBlock() {
        var w = BitWriter()
        dynamicHeader(&w, precode: [2, 2, 2, 2])
        w.code(3, 2); w.put(127, 7)   // 18: 138 zeros
        w.code(3, 2); w.put(108, 7)   // 18: 119 zeros, all 257 literal/length lengths are 0
        w.code(0, 2)                  // the one distance length: 0
        w.put(0, 16)
        #expect(failure(inflate(w.bytes)) == .badCodeLengths)
    }

    @Test func fixedLengthCodes286And287AndDistances30And31() {
        for symbol in [286, 287] {
            var w = BitWriter()
            w.put(1, 1); w.put(1, 2)
            w.fixed(65)
            w.fixed(symbol)
            w.put(0, 16)
            #expect(failure(inflate(w.bytes)) == .badSymbol, "length symbol \(symbol)")
        }
        for distance in [30, 31] {
            var w = BitWriter()
            w.put(1, 1); w.put(1, 2)
            w.fixed(65)
            w.fixed(257)
            w.code(distance, 5)
            w.put(0, 16)
            #expect(failure(inflate(w.bytes)) == .badSymbol, "distance symbol \(distance)")
        }
    }

    @Test func distancePastTheStart() {
        var w = BitWriter()
        w.put(1, 1); w.put(1, 2)
        w.fixed(65)
        w.fixed(257)      // length 3
        w.code(1, 5)      // distance 2, one byte written so far
        w.fixed(256)
        #expect(failure(inflate(w.bytes)) == .distanceTooFar)
        // The same stream with distance 1 is fine: "AAAA".
        var ok = BitWriter()
        ok.put(1, 1); ok.put(1, 2)
        ok.fixed(65); ok.fixed(257); ok.code(0, 5); ok.fixed(256)
        #expect((try? inflate(ok.bytes).get()) == Array("AAAA".utf8))
    }

    @Test func blockTypeThreeAndStoredLengthCheck() {
        #expect(failure(inflate([0b111])) == .badBlockType)
        #expect(failure(inflate([0x01, 0x05, 0x00, 0xFA, 0xFE, 1, 2, 3, 4, 5])) == .badStoredLength)
        #expect((try? inflate([0x01, 0x05, 0x00, 0xFA, 0xFF, 1, 2, 3, 4, 5]).get()) == [1, 2, 3, 4, 5])
    }

    @Test func zlibHeaderAndChecksum() {
        let good: [UInt8] = [0x78, 0x9C, 0x01, 0x03, 0x00, 0xFC, 0xFF, 1, 2, 3, 0x00, 0x0D, 0x00, 0x07]
        #expect((try? inflate(good, raw: false).get()) == [1, 2, 3])
        #expect(failure(inflate([0x78, 0x9D] + good.dropFirst(2), raw: false)) == .badHeader)
        #expect(failure(inflate([0x88, 0x98] + good.dropFirst(2), raw: false)) == .badHeader)   // 64 KiB window
        #expect(failure(inflate([0x78, 0xBB, 0, 0, 0, 1, 0x01], raw: false)) == .needsDictionary)
        var bad = good
        bad[bad.count - 1] ^= 1
        #expect(failure(inflate(bad, raw: false)) == .checksumMismatch)
        #expect((try? inflate(bad, raw: false, checkAdler: false).get()) == [1, 2, 3])
        #expect(failure(inflate(Array(good.dropLast(2)), raw: false)) == .truncated(produced: 3))
    }

    @Test func outputOverflowStopsAtTheCapacity() {
        // A "bomb": 258-byte matches at distance 1, about 10 MB from a few KB.
        var w = BitWriter()
        w.put(1, 1); w.put(1, 2)
        w.fixed(0)
        for _ in 0..<40_000 { w.fixed(285); w.code(0, 5) }
        w.fixed(256)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(failure(inflate(w.bytes, capacity: 4096)) == .outputFull)
        #expect(clock.now - start < .seconds(1))
        #expect(failure(inflate([0x01, 0x05, 0x00, 0xFA, 0xFF, 1, 2, 3, 4, 5], capacity: 4)) == .outputFull)
    }

    @Test func emptyAndCutInput() {
        #expect(failure(inflate([])) == .truncated(produced: 0))
        #expect(failure(inflate([0x78], raw: false)) == .truncated(produced: 0))
        #expect(failure(inflate([0x01, 0x05, 0x00, 0xFA, 0xFF, 1, 2])) == .truncated(produced: 2))
    }
}
