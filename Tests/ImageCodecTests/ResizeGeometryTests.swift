import Testing
@testable import ImageCodec

@Suite struct ResizeGeometryTests {
    private func plan(_ w: Int, _ h: Int) -> ResizePlan {
        ResizePlan(scaledWidth: w, scaledHeight: h, cropX: 0, cropY: 0, outputWidth: w, outputHeight: h)
    }

    @Test func fitLandscapePortraitSquare() {
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 4000, height: 3000) == plan(480, 360))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 3000, height: 4000) == plan(360, 480))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 1000, height: 1000) == plan(480, 480))
    }

    @Test func fitRoundsToNearest() {
        // 667 · 480 / 1001 = 319.84 → 320; 156 · 100 / 250 = 62.4 → 62; 5 · 3 / 2 = 7.5 → 8 (halves up).
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 1001, height: 667) == plan(480, 320))
        #expect(ResizeMode.fit(maxEdge: 100).plan(width: 250, height: 156) == plan(100, 62))
        #expect(ResizeMode.fit(maxEdge: 8).plan(width: 5, height: 2, allowUpscale: true) == plan(8, 3))
    }

    @Test func fitDoesNotUpscaleUnlessAsked() {
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 300, height: 200) == plan(300, 200))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 480, height: 200) == plan(480, 200))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 300, height: 200, allowUpscale: true) == plan(480, 320))
    }

    @Test func fitExtremeAspectRatios() {
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 10000, height: 1) == plan(480, 1))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 1, height: 10000) == plan(1, 480))
        #expect(ResizeMode.fit(maxEdge: 1).plan(width: 65500, height: 65500) == plan(1, 1))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 10000, height: 11) == plan(480, 1))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 10000, height: 10) == plan(480, 1)) // 0.48 → min 1
    }

    @Test func degenerateInputsDoNotTrap() {
        #expect(ResizeMode.fit(maxEdge: 0).plan(width: 100, height: 50) == plan(1, 1))
        #expect(ResizeMode.fit(maxEdge: 480).plan(width: 0, height: -3) == plan(1, 1))
        let c = ResizeMode.cover(width: 0, height: 0).plan(width: 10, height: 10)
        #expect(c.outputWidth == 1 && c.outputHeight == 1)
    }

    @Test func coverScalesAndCropsCentred() {
        // 4000×3000 into 240×240: height governs, 320×240, crop 40 px each side.
        #expect(ResizeMode.cover(width: 240, height: 240).plan(width: 4000, height: 3000)
            == ResizePlan(scaledWidth: 320, scaledHeight: 240, cropX: 40, cropY: 0, outputWidth: 240, outputHeight: 240))
        // Portrait into a wide box: width governs.
        #expect(ResizeMode.cover(width: 300, height: 100).plan(width: 3000, height: 4000)
            == ResizePlan(scaledWidth: 300, scaledHeight: 400, cropX: 0, cropY: 150, outputWidth: 300, outputHeight: 100))
        // Same aspect: no crop.
        #expect(ResizeMode.cover(width: 400, height: 300).plan(width: 4000, height: 3000)
            == ResizePlan(scaledWidth: 400, scaledHeight: 300, cropX: 0, cropY: 0, outputWidth: 400, outputHeight: 300))
        // 1001×667 into 240×240: 360.18 → 360 wide, crop 60.
        #expect(ResizeMode.cover(width: 240, height: 240).plan(width: 1001, height: 667)
            == ResizePlan(scaledWidth: 360, scaledHeight: 240, cropX: 60, cropY: 0, outputWidth: 240, outputHeight: 240))
        // Odd leftover: 241 − 240 = 1 → crop 0, the extra column on the right.
        let odd = ResizeMode.cover(width: 240, height: 240).plan(width: 1003, height: 1000)
        #expect(odd.scaledWidth == 241 && odd.cropX == 0)
    }

    @Test func coverAlwaysCoversTheBox() {
        for (w, h) in [(4000, 3000), (3000, 4000), (1001, 667), (999, 1000), (10000, 1), (1, 10000), (7, 13), (65500, 3)] {
            for (bw, bh) in [(240, 240), (300, 100), (100, 300), (1, 1), (480, 481)] {
                let p = ResizeMode.cover(width: bw, height: bh).plan(width: w, height: h, allowUpscale: true)
                #expect(p.scaledWidth >= bw && p.scaledHeight >= bh, "\(w)x\(h) into \(bw)x\(bh): \(p)")
                #expect(p.outputWidth == bw && p.outputHeight == bh)
                #expect(p.cropX >= 0 && p.cropX + bw <= p.scaledWidth && p.cropY >= 0 && p.cropY + bh <= p.scaledHeight)
                // The scale is the smallest that covers: one axis matches the box exactly.
                #expect(p.scaledWidth == bw || p.scaledHeight == bh)
            }
        }
    }

    @Test func coverWithoutUpscaleKeepsTheBoxShape() {
        // Smaller than the box on both axes: the largest centred square, unscaled.
        #expect(ResizeMode.cover(width: 240, height: 240).plan(width: 100, height: 50)
            == ResizePlan(scaledWidth: 100, scaledHeight: 50, cropX: 25, cropY: 0, outputWidth: 50, outputHeight: 50))
        // The case: 600×400 for a 480×480 slot is 400×400, not 480×400.
        #expect(ResizeMode.cover(width: 480, height: 480).plan(width: 600, height: 400)
            == ResizePlan(scaledWidth: 600, scaledHeight: 400, cropX: 100, cropY: 0, outputWidth: 400, outputHeight: 400))
        #expect(ResizeMode.cover(width: 480, height: 480).plan(width: 400, height: 600)
            == ResizePlan(scaledWidth: 400, scaledHeight: 600, cropX: 0, cropY: 100, outputWidth: 400, outputHeight: 400))
        // Larger on one axis only: still square, as tall as the source.
        #expect(ResizeMode.cover(width: 240, height: 240).plan(width: 1000, height: 100)
            == ResizePlan(scaledWidth: 1000, scaledHeight: 100, cropX: 450, cropY: 0, outputWidth: 100, outputHeight: 100))
        // A non-square box keeps its 4:3: 200×100 gives 133×100.
        #expect(ResizeMode.cover(width: 400, height: 300).plan(width: 200, height: 100)
            == ResizePlan(scaledWidth: 200, scaledHeight: 100, cropX: 33, cropY: 0, outputWidth: 133, outputHeight: 100))
        // 10000×1 into 240×240: one pixel from the middle.
        #expect(ResizeMode.cover(width: 240, height: 240).plan(width: 10000, height: 1)
            == ResizePlan(scaledWidth: 10000, scaledHeight: 1, cropX: 4999, cropY: 0, outputWidth: 1, outputHeight: 1))
        // Exactly the box: unchanged.
        #expect(ResizeMode.cover(width: 240, height: 240).plan(width: 240, height: 240)
            == ResizePlan(scaledWidth: 240, scaledHeight: 240, cropX: 0, cropY: 0, outputWidth: 240, outputHeight: 240))
    }

    @Test func coverWithoutUpscaleAlwaysHasTheBoxAspect() {
        for (w, h) in [(600, 400), (400, 600), (250, 156), (7, 13), (65500, 3), (3, 65500), (1, 1), (479, 480)] {
            for (bw, bh) in [(240, 240), (480, 480), (720, 720), (400, 300), (100, 300)] {
                let p = ResizeMode.cover(width: bw, height: bh).plan(width: w, height: h)
                #expect(p.outputWidth <= bw && p.outputHeight <= bh && p.outputWidth <= w && p.outputHeight <= h, "\(w)x\(h) into \(bw)x\(bh): \(p)")
                #expect(p.outputWidth >= 1 && p.outputHeight >= 1)
                // Within rounding (half a pixel on the shorter output side) of the box's shape.
                let error = abs(Double(p.outputWidth) * Double(bh) - Double(p.outputHeight) * Double(bw)) / Double(max(bw, bh))
                #expect(error <= 0.5 || min(p.outputWidth, p.outputHeight) == 1, "\(w)x\(h) into \(bw)x\(bh): \(p)")
                #expect(p.cropX >= 0 && p.cropX + p.outputWidth <= w && p.cropY >= 0 && p.cropY + p.outputHeight <= h)
            }
        }
    }

    @Test func coverExtremeAspectWithUpscale() {
        let p = ResizeMode.cover(width: 240, height: 240).plan(width: 10000, height: 1, allowUpscale: true)
        #expect(p == ResizePlan(scaledWidth: 2_400_000, scaledHeight: 240, cropX: 1_199_880, cropY: 0, outputWidth: 240, outputHeight: 240))
        // The source region behind it: 1 px tall, 240/2,400,000 of the width, in the middle.
        let r = p.sourceRegion(sourceWidth: 10000, sourceHeight: 1)
        #expect(r == Resampler.Region(x: 4999.5, y: 0, width: 1, height: 1))
    }

    @Test func sourceRegionMapsCropBack() {
        let p = ResizeMode.cover(width: 240, height: 240).plan(width: 4000, height: 3000)
        // 40/320 of 4000 = 500, 240/320 of 4000 = 3000.
        #expect(p.sourceRegion(sourceWidth: 4000, sourceHeight: 3000) == Resampler.Region(x: 500, y: 0, width: 3000, height: 3000))
        // Decoded at 1/4: the same area in the 1000×750 bitmap.
        #expect(p.sourceRegion(sourceWidth: 4000, sourceHeight: 3000, decodeScale: .quarter)
            == Resampler.Region(x: 125, y: 0, width: 750, height: 750))
        // 1001×667 decoded at 1/2 is 501×334, but the image ends at 500.5 × 333.5.
        let fit = ResizeMode.fit(maxEdge: 480).plan(width: 1001, height: 667)
        #expect(fit.sourceRegion(sourceWidth: 1001, sourceHeight: 667, decodeScale: .half)
            == Resampler.Region(x: 0, y: 0, width: 500.5, height: 333.5))
        #expect(fit.sourceRegion(sourceWidth: 1001, sourceHeight: 667) == Resampler.Region(x: 0, y: 0, width: 1001, height: 667))
    }
}
