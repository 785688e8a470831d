import Foundation
import ImageCodec
import Testing
@testable import ImagePipeline

/// `Renderer.render(_:modes:)`: one decode for several sizes must give what one render per
/// size gives.
@Suite struct MultiSizeRenderTests {
    private func bytes(_ name: String) throws -> [UInt8] { try fixtureBytes("jpeg/generated/" + name) }

    /// Sizes whose one-by-one render decodes at the same DCT scale as the shared decode come
    /// out byte-identical (same bitmap, same resampling, same encoder).
    @Test func sameScaleSizesAreByteIdentical() throws {
        // 1001×667: fit 480 (480×320) and cover 240 (needs 360×240) both decode at 1/2.
        let original = try bytes("odd_1001x667_422_prog.jpg")
        let modes: [ResizeMode] = [.fit(maxEdge: 480), .cover(width: 240, height: 240)]
        let together = try Renderer.render(original, modes: modes)
        #expect(together.count == 2)
        for (mode, outcome) in zip(modes, together) {
            let alone = try Renderer.render(original, mode: mode)
            #expect(alone.decodeScale == outcome.decodeScale, "\(mode)")
            #expect(alone.image.bytes == outcome.image.bytes, "\(mode)")
            #expect(alone.image.width == outcome.image.width && alone.image.height == outcome.image.height)
        }
    }

    /// A size whose one-by-one render would decode at a smaller scale is resampled from the
    /// larger decode here. The pixels then differ from the one-by-one render by more than
    /// rounding (measured: down to 28.6 dB, max difference 47 on these fixtures: a 1/8 DCT
    /// decode is a box average, softer than Lanczos over more source pixels), so the check is
    /// against a full-size decode + the same Lanczos step: the shared decode must be at least as
    /// close to it as the one-by-one render (0.1 dB of slack for JPEG re-quantisation). Worst
    /// figures are printed.
    @Test func smallerScaleSizesAreAtLeastAsClose() throws {
        var worstVsAlone = Double.infinity, worstGain = Double.infinity, compared = 0
        let full = RenderOptions(decodeHeadroom: 64)
        // The largest size of each list decodes at 1/2, so the full-size reference differs from both.
        let large: [ResizeMode] = [.cover(width: 80, height: 80), .fit(maxEdge: 120), .cover(width: 160, height: 160), .fit(maxEdge: 480)]
        let small: [ResizeMode] = [.cover(width: 24, height: 24), .fit(maxEdge: 36), .fit(maxEdge: 120)]
        for (name, modes) in [("odd_1001x667_422_prog.jpg", large), ("odd_1001x667_420.jpg", large), ("orient_6.jpg", small),
                              ("statue_420_q75.jpg", small)] {
            let original = try bytes(name)
            let together = try Renderer.render(original, modes: modes)
            for (mode, outcome) in zip(modes, together) {
                let alone = try Renderer.render(original, mode: mode)
                #expect(alone.image.width == outcome.image.width && alone.image.height == outcome.image.height, "\(name) \(mode)")
                #expect(alone.passthrough == outcome.passthrough)
                #expect(outcome.decodeScale != .full, "\(name) \(mode)")
                if alone.decodeScale == outcome.decodeScale {
                    #expect(alone.image.bytes == outcome.image.bytes, "\(name) \(mode)")
                    continue
                }
                let reference = try ImageCodec.decode(try Renderer.render(original, mode: mode, options: full).image.bytes).bitmap
                let a = try ImageCodec.decode(alone.image.bytes).bitmap
                let b = try ImageCodec.decode(outcome.image.bytes).bitmap
                guard a.width == b.width, a.height == b.height, a.layout == b.layout, reference.width == b.width else { continue }
                compared += 1
                let gain = psnr(b, reference) - psnr(a, reference)
                worstGain = min(worstGain, gain)
                worstVsAlone = min(worstVsAlone, psnr(a, b))
                #expect(gain >= -0.1, "\(name) \(mode): shared decode \(psnr(b, reference)) dB vs one-by-one \(psnr(a, reference)) dB")
            }
        }
        #expect(compared > 0)
        print("multi-size at a larger DCT scale than one-by-one (\(compared) renders): worst PSNR to the one-by-one render "
              + String(format: "%.1f dB; closer to a full decode by at least %+.2f dB", worstVsAlone, worstGain))
    }

    /// Outcomes keep the order of the modes; a size the original already is passes through.
    @Test func orderAndPassthrough() throws {
        let original = try bytes("flower_420_q75.jpg") // 250×156
        let modes: [ResizeMode] = [.fit(maxEdge: 120), .fit(maxEdge: 250), .cover(width: 80, height: 80)]
        let together = try Renderer.render(original, modes: modes)
        #expect(together.map { $0.image.width } == [120, 250, 80])
        #expect(together.map(\.passthrough) == [false, true, false])
        #expect(together[1].image.bytes == original)
        #expect(try Renderer.render(original, modes: []).isEmpty)
    }

    /// Bytes that are no image fail the whole call with the single render's error.
    @Test func failureFailsAll() {
        #expect(throws: PipelineError.self) {
            _ = try Renderer.render(Array("not an image".utf8), modes: [.fit(maxEdge: 120), .fit(maxEdge: 240)])
        }
    }
}
