import Testing
@testable import ImageCodec

// VP8's inverse transforms run on vector lanes (`VP8InverseTransform`); these tests hold them to
// the scalar arithmetic of RFC 6386 14.3 / libwebp's TransformOne, written out here, on random
// coefficients over the whole Int16 range (where the 32-bit products wrap) and on the small
// values real streams carry, added to random pixels.

/// libwebp's scalar TransformOne in wrapping 32-bit arithmetic, the reference.
private func scalarIDCT(_ input: [Int16], _ pixels: inout [UInt8], stride: Int) {
    func mul1(_ a: Int32) -> Int32 { ((a &* 20091) >> 16) &+ a }
    func mul2(_ a: Int32) -> Int32 { (a &* 35468) >> 16 }
    var tmp = [Int32](repeating: 0, count: 16)
    for i in 0..<4 {
        let c0 = Int32(input[i]), c4 = Int32(input[4 + i]), c8 = Int32(input[8 + i]), c12 = Int32(input[12 + i])
        let a = c0 &+ c8, b = c0 &- c8
        let c = mul2(c4) &- mul1(c12), d = mul1(c4) &+ mul2(c12)
        tmp[i * 4] = a &+ d; tmp[i * 4 + 1] = b &+ c; tmp[i * 4 + 2] = b &- c; tmp[i * 4 + 3] = a &- d
    }
    for i in 0..<4 {
        let dc = tmp[i] &+ 4
        let a = dc &+ tmp[8 + i], b = dc &- tmp[8 + i]
        let c = mul2(tmp[4 + i]) &- mul1(tmp[12 + i]), d = mul1(tmp[4 + i]) &+ mul2(tmp[12 + i])
        for (x, delta) in [(a &+ d) >> 3, (b &+ c) >> 3, (b &- c) >> 3, (a &- d) >> 3].enumerated() {
            pixels[i * stride + x] = UInt8(clamping: Int32(pixels[i * stride + x]) &+ delta)
        }
    }
}

@Suite("VP8 inverse transforms on lanes")
struct WebPTransformLanesTests {
    @Test("4×4 IDCT: lanes equal the scalar transform, wide and narrow coefficients")
    func idct() {
        var rng = SplitMix64(seed: 1403)
        let stride = 7
        var mismatches = 0
        for n in 0..<20_000 {
            let range = [Int(Int16.min)...Int(Int16.max), -2048...2047, -60...60][n % 3]
            let input = (0..<16).map { _ in n % 4 == 3 && rng.int(0...1) == 0 ? 0 : Int16(rng.int(range)) }
            let pixels = (0..<(4 * stride)).map { _ in rng.byte() }
            var expected = pixels, actual = pixels
            scalarIDCT(input, &expected, stride: stride)
            input.withUnsafeBufferPointer { i in
                actual.withUnsafeMutableBufferPointer { VP8InverseTransform.addIDCT(i.baseAddress!, to: $0.baseAddress!, stride: stride) }
            }
            if actual != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("DC-only blocks: the shortcut equals the full transform of a lone DC")
    func dcOnly() {
        var rng = SplitMix64(seed: 1404)
        let stride = 5
        var mismatches = 0
        for n in 0..<5_000 {
            let dc = n < 2 ? [Int16.min, Int16.max][n] : Int16(rng.int(-2048...2047))
            let pixels = (0..<(4 * stride)).map { _ in rng.byte() }
            var expected = pixels, actual = pixels
            scalarIDCT([dc] + [Int16](repeating: 0, count: 15), &expected, stride: stride)
            actual.withUnsafeMutableBufferPointer { VP8InverseTransform.addDC(dc, to: $0.baseAddress!, stride: stride) }
            if actual != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}
