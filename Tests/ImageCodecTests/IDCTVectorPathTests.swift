import Testing
@testable import ImageCodec

// The vector 8×8 IDCT (IDCT8x8Vector.swift) must give the scalar IDCT's pixels exactly, and
// real photos must actually take it: if its bounds guard always failed, every pixel would
// still be right and only the speed would be lost, so the conformance tests cannot see it.
// As zune-jpeg does for its SIMD IDCT, each fast variant is compared with the scalar one.

/// Runs one 8×8 kernel on `coef`/`quant` into a buffer with a wider stride and guard bytes;
/// returns the 64 pixels, or nil when the kernel reported that it wrote nothing.
private func pixels(_ coef: [Int16], _ quant: [UInt16],
                    _ kernel: (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Bool)
    -> [UInt8]? {
    let stride = 13, sentinel: UInt8 = 0x5A
    var buffer = [UInt8](repeating: sentinel, count: stride * 9)
    let wrote = coef.withUnsafeBufferPointer { c in
        quant.withUnsafeBufferPointer { q in
            buffer.withUnsafeMutableBufferPointer { kernel(c.baseAddress!, q.baseAddress!, $0.baseAddress!, stride) }
        }
    }
    var window: [UInt8] = [], outside = 0
    for i in buffer.indices {
        if i / stride < 8 && i % stride < 8 { window.append(buffer[i]) } else if buffer[i] != sentinel { outside += 1 }
    }
    #expect(outside == 0, "the kernel wrote outside its 8×8 window")
    return wrote ? window : (window.allSatisfy { $0 == sentinel } ? nil : window)
}

private func scalar(_ coef: [Int16], _ quant: [UInt16]) -> [UInt8] {
    pixels(coef, quant) { ScaledIDCT.idct8x8Scalar($0, $1, $2, $3); return true }!
}

/// The vector kernel's pixels, or nil when it declined the block (and wrote nothing).
private func vector(_ coef: [Int16], _ quant: [UInt16]) -> [UInt8]? {
    pixels(coef, quant) { ScaledIDCT.idct8x8Vector($0, $1, $2, $3) }
}

/// A block shaped like photo data for `quant`: dequantised, the DC is a block mean's
/// 8·(level − 128) and AC magnitudes fall with frequency from at most `scale`; many are zero.
private func photoLikeBlock(_ rng: inout SplitMix64, quant: [UInt16], density: Int, scale: Int) -> [Int16] {
    var coef = [Int16](repeating: 0, count: 64)
    coef[0] = Int16(rng.int(-1024...1016) / Int(quant[0]))
    for i in 1..<64 where rng.int(0...99) < density {
        let limit = max(1, scale / (1 + i / 8 + i % 8) / Int(quant[i]))
        coef[i] = Int16(rng.int(-limit...limit))
    }
    return coef
}

@Suite("JPEG kernels: vector 8×8 IDCT")
struct IDCTVectorPathTests {
    @Test("vector and scalar agree on random photo-like blocks, which nearly all take the vector path")
    func randomBlocks() {
        var rng = SplitMix64(seed: 11)
        var taken = 0, mismatches = 0
        let count = 100_000
        for n in 0..<count {
            let quant = (0..<64).map { _ in UInt16(rng.int(1...(n % 3 == 0 ? 8 : 99))) }
            let coef = photoLikeBlock(&rng, quant: quant, density: [3, 15, 50, 100][n % 4], scale: [200, 1000, 2000][n % 3])
            let expected = scalar(coef, quant)
            guard let v = vector(coef, quant) else { continue }
            taken += 1
            if v != expected { mismatches += 1 }
        }
        print("vector IDCT, random photo-like blocks: \(taken) of \(count) vector, \(mismatches) mismatches")
        #expect(mismatches == 0)
        // Some dense blocks at the largest scale leave the bounds; real photos hardly ever do
        // (`realPhotos`).
        #expect(taken >= count * 9 / 10)
    }

    @Test("the guard admits exactly the blocks inside its bounds, and declined blocks are left untouched")
    func bounds() {
        let ones = [UInt16](repeating: 1, count: 64)
        // A first row of v gives every column a pass-1 output of 4·v: v = 2047 and −2048 reach
        // the bound (8188 and −8192) and must take the vector path; one step further must not.
        for (v, admitted) in [(2047, true), (-2048, true), (2048, false), (-2049, false), (1, true)] {
            var coef = [Int16](repeating: 0, count: 64)
            for col in 0..<8 { coef[col] = Int16(v) }
            let got = vector(coef, ones)
            #expect((got != nil) == admitted, "first row \(v)")
            if let got { #expect(got == scalar(coef, ones), "first row \(v)") }
        }
        // Dequantised inputs past ±8192 are declined before any arithmetic.
        var big = [Int16](repeating: 0, count: 64)
        big[63] = 8192
        #expect(vector(big, ones) == nil)
        big[63] = 4096
        #expect(vector(big, [UInt16](repeating: 2, count: 64)) == nil)
    }

    @Test("vector and scalar agree on extreme and corrupt blocks whenever the vector path takes them")
    func extremeBlocks() {
        var rng = SplitMix64(seed: 12)
        var cases: [([Int16], [UInt16])] = []
        // Random signs at about the largest magnitudes a photo block can hold: about a third
        // stay inside the bounds.
        for _ in 0..<5_000 {
            let quant = (0..<64).map { _ in UInt16(rng.int(1...4)) }
            var coef = [Int16](repeating: 0, count: 64)
            for i in 0..<64 {
                let magnitude: Int = 1020 / Int(quant[i]) / (1 + i / 8 + i % 8)
                coef[i] = Int16(rng.int(0...1) == 0 ? magnitude : -magnitude)
            }
            cases.append((coef, quant))
        }
        // Corrupt data and 16-bit tables: arbitrary values.
        for _ in 0..<5_000 {
            cases.append(((0..<64).map { _ in Int16(truncatingIfNeeded: rng.next()) },
                          (0..<64).map { _ in UInt16(truncatingIfNeeded: rng.next()) }))
        }
        var taken = 0, mismatches = 0
        for (coef, quant) in cases {
            guard let v = vector(coef, quant) else { continue }
            taken += 1
            if v != scalar(coef, quant) { mismatches += 1 }
        }
        print("vector IDCT, extreme and corrupt blocks: \(taken) of \(cases.count) vector, \(mismatches) mismatches")
        #expect(mismatches == 0)
        #expect(taken > 500)
    }

    @Test("fixture photos take the vector path for nearly every non-flat block, with scalar pixels",
          arguments: ["generated/statue_420_q75.jpg", "generated/flower_444_q95.jpg", "generated/flower_420_q100.jpg",
                      "generated/stream_420_q80.jpg", "generated/stream_420_q80_prog.jpg",
                      "generated/odd_1001x667_420.jpg", "generated/flower_gray_q75.jpg",
                      "libjpeg-turbo/testorig.jpg"])
    func realPhotos(file: String) throws {
        let census = try IDCTPathCensus.run(try JPEGFixtures.bytes(file))
        let share = Double(census.vector) / Double(max(1, census.vector + census.scalar))
        print("vector IDCT, \(file): \(census.flat) flat, \(census.vector) vector, \(census.scalar) scalar "
              + "(\(Int((share * 1000).rounded()) / 10) % of non-flat blocks vector), \(census.mismatches) mismatches")
        #expect(census.mismatches == 0)
        #expect(census.vector > 0)
        #expect(share >= 0.99, "the vector IDCT's guard turned down \(census.scalar) real blocks of \(file)")
    }

    @Test("a file with 16-bit quantisation tables gives the scalar pixels whichever path its blocks take")
    func sixteenBitTables() throws {
        let census = try IDCTPathCensus.run(try JPEGFixtures.bytes("generated/flower_420_q1_sof1_dqt16.jpg"))
        print("vector IDCT, q1 16-bit tables: \(census.flat) flat, \(census.vector) vector, \(census.scalar) scalar")
        #expect(census.mismatches == 0)
    }
}

/// Decodes every scan of a JPEG into a whole-image coefficient store at full size (the
/// decoder's own scan decoders and quantisation latching), then runs the decoder's 8×8
/// dispatch on every block, counting the path it took and comparing with the scalar IDCT.
enum IDCTPathCensus {
    struct Result { var flat = 0, vector = 0, scalar = 0, mismatches = 0 }

    static func run(_ bytes: [UInt8]) throws -> Result {
        try bytes.withUnsafeBufferPointer { buf in
            var warnings: [String] = []
            var h = try JPEGDecoder.readHeaders(buf, limits: .default, warnings: &warnings)
            let sizing = try JPEGDecoder.Sizing(h, scale: 8, limits: .default)
            let store = try CoefficientStore(plan: sizing.plan)
            let output = UnsafeMutablePointer<UInt8>.allocate(capacity: sizing.outputBytes)
            defer { output.deallocate() }
            let renderer = MCURowRenderer(plan: sizing.plan, output: output)
            var reader = BitReader(base: buf.baseAddress!, count: buf.count, pos: h.marker.pos)
            try JPEGDecoder.latchQuantTables(h.firstScan, h, renderer)
            var progression = ProgressionState(components: h.frame.components.count)
            try JPEGDecoder.decodeScans(&reader, &h, plan: sizing.plan, store: store, renderer: renderer,
                                        progression: &progression, limits: .default, warnings: &warnings)
            var result = Result()
            let coef = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
            defer { coef.deallocate() }
            var fast = [UInt8](repeating: 0, count: 64), slow = [UInt8](repeating: 0, count: 64)
            for (c, plane) in sizing.plan.components.enumerated() {
                #expect(plane.idctSize == 8)
                let quant = UnsafePointer(renderer.quant[c])
                for by in 0..<plane.dataBlocksHigh {
                    for bx in 0..<plane.dataBlocksWide {
                        coef.initialize(repeating: 0, count: 64)
                        store.expand(component: c, bx: bx, row: by, into: coef)
                        let path = fast.withUnsafeMutableBufferPointer { ScaledIDCT.idct8x8(coef, quant, $0.baseAddress!, 8) }
                        slow.withUnsafeMutableBufferPointer { ScaledIDCT.idct8x8Scalar(coef, quant, $0.baseAddress!, 8) }
                        switch path {
                        case .flat: result.flat += 1
                        case .vector: result.vector += 1
                        case .scalar: result.scalar += 1
                        }
                        if fast != slow { result.mismatches += 1 }
                    }
                }
            }
            return result
        }
    }
}
