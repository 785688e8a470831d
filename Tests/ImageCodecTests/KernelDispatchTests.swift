import Testing
@testable import ImageCodec

// Every kernel of `KernelDispatch` run both ways, the portable build and the AVX2 build of the
// same source, on random and real input: the outputs must be identical, byte for byte,
// including the bytes around the output (a kernel must not write past its row or block).
// On a CPU without AVX2 the AVX2 set is nil and the tests only check the portable one runs;
// the conformance tests cover whichever set the process selected.

/// Both sets where this CPU has both; the portable set twice otherwise.
private let sets = (KernelDispatch.portable, KernelDispatch.avx2 ?? KernelDispatch.portable)

private func idct(_ kernel: KernelDispatch.IDCT, _ coef: [Int16], _ quant: [UInt16]) -> [UInt8] {
    let stride = 11
    var out = [UInt8](repeating: 0x5A, count: stride * 8 + 8)
    coef.withUnsafeBufferPointer { c in
        quant.withUnsafeBufferPointer { q in
            out.withUnsafeMutableBufferPointer { kernel(c.baseAddress!, q.baseAddress!, $0.baseAddress!, stride) }
        }
    }
    return out
}

/// Runs a one-row or two-row upsampler on rows of `width` real samples (padded like the
/// decoder's rows) into a guarded output buffer.
private func upsample(_ width: Int, _ near: [UInt8], _ far: [UInt8], _ run: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Void) -> [UInt8] {
    var out = [UInt8](repeating: 0x5A, count: 2 * width + 48)
    near.withUnsafeBufferPointer { n in
        far.withUnsafeBufferPointer { f in
            out.withUnsafeMutableBufferPointer { run(n.baseAddress!, f.baseAddress!, $0.baseAddress!) }
        }
    }
    return out
}

@Suite("Kernel dispatch: portable and AVX2 builds agree")
struct KernelDispatchTests {
    @Test("the selected set is one of the two, and the AVX2 set exists exactly on CPUs that run it")
    func selection() {
        let names = [KernelDispatch.portable.name] + (KernelDispatch.avx2.map { [$0.name] } ?? [])
        print("kernel dispatch: selected \(KernelDispatch.selected.name), available \(names.joined(separator: ", "))")
        #expect(names.contains(KernelDispatch.selected.name))
    }

    @Test("8×8 IDCT: random photo-like, extreme and corrupt blocks give identical pixels")
    func idctRandom() {
        var rng = SplitMix64(seed: 27)
        var mismatches = 0
        for n in 0..<60_000 {
            let wide = n % 5 == 0
            let quant = (0..<64).map { _ in UInt16(truncatingIfNeeded: wide ? rng.int(0...65535) : rng.int(1...99)) }
            var coef = [Int16](repeating: 0, count: 64)
            let density = [2, 10, 40, 100][n % 4]
            for i in 0..<64 where i == 0 || rng.int(0...99) < density {
                let limit = wide || n % 7 == 0 ? 32767 : max(1, 2000 / (1 + i / 8 + i % 8) / Int(quant[i]))
                coef[i] = Int16(rng.int(-limit...min(limit, 32767)))
            }
            if idct(sets.0.idct8x8, coef, quant) != idct(sets.1.idct8x8, coef, quant) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("8×8 IDCT: every block of fixture photos gives identical pixels",
          arguments: ["generated/flower_444_q95.jpg", "generated/stream_420_q80_prog.jpg", "libjpeg-turbo/testorig.jpg"])
    func idctReal(file: String) throws {
        var blocks = 0, mismatches = 0
        try KernelBlockSource.forEachBlock(try JPEGFixtures.bytes(file)) { coef, quant in
            blocks += 1
            if idct(sets.0.idct8x8, coef, quant) != idct(sets.1.idct8x8, coef, quant) { mismatches += 1 }
        }
        #expect(blocks > 100)
        #expect(mismatches == 0)
    }

    @Test("fancy upsamplers: random rows of every width up to 150, and rows of a fixture photo")
    func upsamplers() throws {
        var rng = SplitMix64(seed: 4)
        var rows: [[UInt8]] = []
        for width in 1...150 {
            rows.append((0..<width + 16).map { _ in UInt8(rng.int(0...255)) })
            rows.append((0..<width + 16).map { _ in rng.int(0...9) < 8 ? 0 : 255 })
        }
        let photo = try ImageCodec.decode(try JPEGFixtures.bytes("generated/flower_444_q95.jpg"))
        let rowBytes = photo.bitmap.width * photo.bitmap.channels
        for y in stride(from: 0, to: photo.bitmap.height, by: 7) {
            rows.append(Array(photo.bitmap.pixels[(y * rowBytes)..<((y + 1) * rowBytes)]) + [UInt8](repeating: 0, count: 16))
        }
        var checked = 0, mismatches = 0
        for (i, near) in rows.enumerated() {
            let far = rows[(i * 31 + 5) % rows.count]
            let width = min(near.count, far.count) - 16
            let h2v1 = sets.0.fancyH2V1, h2v1b = sets.1.fancyH2V1
            let h2v2 = sets.0.fancyH2V2, h2v2b = sets.1.fancyH2V2
            if upsample(width, near, far, { n, _, o in h2v1(n, width, o) })
                != upsample(width, near, far, { n, _, o in h2v1b(n, width, o) }) { mismatches += 1 }
            if upsample(width, near, far, { n, f, o in h2v2(n, f, width, o) })
                != upsample(width, near, far, { n, f, o in h2v2b(n, f, width, o) }) { mismatches += 1 }
            checked += 2
        }
        print("kernel dispatch: \(checked) upsampled rows compared, \(mismatches) mismatches")
        #expect(mismatches == 0)
    }

    @Test("YCbCr → RGB: all 16.7 million inputs, and rows of every length up to 40, nothing written past the row")
    func colourConversion() {
        let convert = (sets.0.ycbcrToRGB, sets.1.ycbcrToRGB)
        var y = [UInt8](repeating: 0, count: 65536), cb = y
        for i in 0..<65536 {
            y[i] = UInt8(i & 255)
            cb[i] = UInt8(i >> 8)
        }
        var mismatches = 0
        for crValue in 0..<256 {
            let cr = [UInt8](repeating: UInt8(crValue), count: 65536)
            var a = [UInt8](repeating: 0, count: 3 * 65536), b = a
            convert.0(y, cb, cr, 65536, &a)
            convert.1(y, cb, cr, 65536, &b)
            if a != b { mismatches += 1 }
        }
        var rng = SplitMix64(seed: 9)
        for count in 0...40 {
            let ry = (0..<count + 8).map { _ in UInt8(rng.int(0...255)) }
            let rcb = (0..<count + 8).map { _ in UInt8(rng.int(0...255)) }
            let rcr = (0..<count + 8).map { _ in UInt8(rng.int(0...255)) }
            var a = [UInt8](repeating: 0xA5, count: 3 * count + 8), b = a
            convert.0(ry, rcb, rcr, count, &a)
            convert.1(ry, rcb, rcr, count, &b)
            if a != b || a[(3 * count)...].contains(where: { $0 != 0xA5 }) || b[(3 * count)...].contains(where: { $0 != 0xA5 }) {
                mismatches += 1
            }
        }
        print("kernel dispatch: YCbCr → RGB on 256 planes of 65,536 inputs and 41 short rows, \(mismatches) mismatches")
        #expect(mismatches == 0)
    }
}

/// The dequantisation input of every block of a JPEG at full size, from the decoder's own scan
/// decoders (as `IDCTPathCensus` does).
enum KernelBlockSource {
    static func forEachBlock(_ bytes: [UInt8], _ body: ([Int16], [UInt16]) -> Void) throws {
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
            var coef = [Int16](repeating: 0, count: 64)
            for (c, plane) in sizing.plan.components.enumerated() {
                let quant = Array(UnsafeBufferPointer(start: renderer.quant[c], count: 64))
                for by in 0..<plane.dataBlocksHigh {
                    for bx in 0..<plane.dataBlocksWide {
                        coef.withUnsafeMutableBufferPointer { p in
                            p.update(repeating: 0)
                            store.expand(component: c, bx: bx, row: by, into: p.baseAddress!)
                        }
                        body(coef, quant)
                    }
                }
            }
        }
    }
}
