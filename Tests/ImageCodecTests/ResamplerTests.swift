import Foundation
import Testing
@testable import ImageCodec

@Suite struct ResamplerTests {
    typealias S = EncoderTestSupport

    @Test func constantImagesStayConstant() throws {
        for layout in Bitmap.Layout.allCases {
            let value: [UInt8] = [200, 17, 90, 255].prefix(layout.channels).map { $0 }
            let pixel = layout.hasAlpha ? Array(value.dropLast()) + [128] : value
            let src = try Bitmap(width: 37, height: 23, layout: layout, pixels: Array((0..<(37 * 23)).map { _ in pixel }.joined()))
            for filter in [Resampler.Filter.lanczos3, .bicubic, .triangle] {
                for (w, h) in [(10, 7), (80, 50), (1, 1), (37, 5), (3, 23), (200, 1)] {
                    let out = try Resampler.resize(src, width: w, height: h, filter: filter)
                    #expect(out.width == w && out.height == h && out.layout == layout)
                    for i in 0..<(w * h) {
                        let got = Array(out.pixels[(i * layout.channels)..<((i + 1) * layout.channels)])
                        // Premultiply and back at alpha 128 can move colour by one level.
                        let close = zip(got, pixel).allSatisfy { abs(Int($0) - Int($1)) <= (layout.hasAlpha ? 1 : 0) }
                        if !close {
                            Issue.record("\(layout) \(filter) \(w)x\(h): pixel \(i) is \(got), expected \(pixel)")
                            break
                        }
                    }
                }
            }
        }
    }

    @Test func sameSizeIsIdentityAndBadSizesThrow() throws {
        let b = try S.photo("flower_250x156")
        #expect(try Resampler.resize(b, width: 250, height: 156) == b)
        #expect(throws: ImageCodecError.self) { try Resampler.resize(b, width: 0, height: 10) }
        #expect(throws: ImageCodecError.self) { try Resampler.resize(b, width: 10, height: -1) }
        #expect(throws: ImageCodecError.self) { try Resampler.resize(b, width: Int.max / 2, height: 4) }
        for bad in [Resampler.Region(x: -1, y: 0, width: 10, height: 10), .init(x: 0, y: 0, width: 251, height: 10),
                    .init(x: 0, y: 0, width: 0, height: 10), .init(x: .nan, y: 0, width: 10, height: 10)] {
            #expect(throws: ImageCodecError.self) { try Resampler.resize(b, width: 10, height: 10, region: bad) }
        }
        // A region equal to the whole image at the same size is the identity too.
        #expect(try Resampler.resize(b, width: 250, height: 156, region: .init(x: 0, y: 0, width: 250, height: 156)) == b)
    }

    @Test func extremeShapes() throws {
        let line = try Bitmap(width: 10000, height: 1, layout: .rgb, pixels: (0..<30000).map { UInt8($0 % 251) })
        let small = try Resampler.resize(line, width: 480, height: 1)
        #expect(small.width == 480 && small.height == 1)
        let dot = try Bitmap(width: 1, height: 1, layout: .grayAlpha, pixels: [77, 200])
        let grown = try Resampler.resize(dot, width: 5, height: 3)
        #expect(grown.pixels == Array(repeating: [77, 200], count: 15).flatMap { $0 })
    }

    /// A transparent pixel's colour must not reach its neighbours: red at alpha 0 beside
    /// opaque blue leaves no red anywhere alpha is non-zero, and colour stays exact where the
    /// filter only saw blue.
    @Test func transparentColourDoesNotBleed() throws {
        let w = 40, h = 12
        var rgba = [UInt8]()
        var ga = [UInt8]()
        for _ in 0..<h {
            for x in 0..<w {
                rgba += x % 7 < 3 ? [255, 0, 0, 0] : [0, 0, 255, 255]
                ga += x % 7 < 3 ? [255, 0] : [40, 255]
            }
        }
        let image = try Bitmap(width: w, height: h, layout: .rgba, pixels: rgba)
        for (tw, th) in [(13, 5), (97, 29)] {
            let out = try Resampler.resize(image, width: tw, height: th)
            for i in 0..<(tw * th) where out.pixels[i * 4 + 3] > 0 {
                #expect(out.pixels[i * 4] == 0 && out.pixels[i * 4 + 1] == 0, "red/green bled into pixel \(i): \(out.pixels[(i * 4)..<(i * 4 + 4)])")
                #expect(out.pixels[i * 4 + 2] >= 254, "blue diluted at pixel \(i): \(out.pixels[(i * 4)..<(i * 4 + 4)])")
            }
        }
        let grayOut = try Resampler.resize(try Bitmap(width: w, height: h, layout: .grayAlpha, pixels: ga), width: 13, height: 5)
        // 8-bit premultiplied colour has a step of 255/alpha levels: exact to 1 level only
        // where alpha is high, within the quantisation step below that.
        for i in 0..<(13 * 5) where grayOut.pixels[i * 2 + 1] > 0 {
            let alpha = Int(grayOut.pixels[i * 2 + 1])
            let allowed = alpha >= 128 ? 1 : 2 * 255 / alpha
            #expect(abs(Int(grayOut.pixels[i * 2]) - 40) <= allowed, "gray \(grayOut.pixels[i * 2]) at \(i), alpha \(alpha)")
        }
    }

    /// Against Pillow's `Image.resize(size, LANCZOS)` on the photographic sources, down and up
    /// and with different factors per axis: PSNR ≥ 45 dB (we use the same weights and
    /// rounding, so most outputs are identical).
    @Test(.enabled(if: S.pillowAvailable)) func matchesPillowLanczos() throws {
        let dir = try S.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var worst = Double.infinity
        for name in S.photos {
            let src = try S.photo(name)
            let input = dir + "/\(name).ppm"
            try S.writePNM(src, to: input)
            // Regions, as Pillow's box: a fractional crop, and a crop at the same size.
            let regions: [(Int, Int, Resampler.Region)] = [
                (80, 50, .init(x: 10.25, y: 20.5, width: 150.5, height: 100.75)),
                (60, 40, .init(x: 30, y: 10, width: 60, height: 40)),
                (src.width, src.height, .init(x: 0, y: 0, width: Double(src.width) - 0.5, height: Double(src.height) - 0.5)),
            ]
            for (w, h, r) in regions {
                let ours = try Resampler.resize(src, width: w, height: h, region: r)
                let out = dir + "/\(name)_box_\(w)x\(h).ppm"
                try S.run("/usr/bin/python3", ["-c", """
                    import sys
                    from PIL import Image
                    f = getattr(Image, 'Resampling', Image).LANCZOS
                    box = tuple(float(v) for v in sys.argv[5:9])
                    Image.open(sys.argv[1]).resize((int(sys.argv[3]), int(sys.argv[4])), f, box=box).save(sys.argv[2])
                    """, input, out, "\(w)", "\(h)", "\(r.x)", "\(r.y)", "\(r.x + r.width)", "\(r.y + r.height)"])
                let p = S.psnr(ours, try S.readPNM(out))
                worst = min(worst, p)
                print("resize \(name) box \(r) → \(w)x\(h) vs Pillow LANCZOS box: PSNR \(p.isInfinite ? "inf" : S.f1(p)) dB")
                #expect(p >= 45, "\(name) box \(r): \(p) dB")
            }
            let sizes = [(src.width * 3 / 8, src.height * 3 / 8), (src.width / 5, src.height / 5), (src.width * 3 / 2, src.height * 3 / 2),
                         (src.width / 2, src.height + 31), (97, 61), (src.width, src.height / 3)]
            for (w, h) in sizes {
                let ours = try Resampler.resize(src, width: w, height: h)
                let out = dir + "/\(name)_\(w)x\(h).ppm"
                try S.run("/usr/bin/python3", ["-c", """
                    import sys
                    from PIL import Image
                    f = getattr(Image, 'Resampling', Image).LANCZOS
                    Image.open(sys.argv[1]).resize((int(sys.argv[3]), int(sys.argv[4])), f).save(sys.argv[2])
                    """, input, out, "\(w)", "\(h)"])
                let theirs = try S.readPNM(out)
                let p = S.psnr(ours, theirs)
                let maxDiff = zip(ours.pixels, theirs.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
                worst = min(worst, p)
                print("resize \(name) → \(w)x\(h) vs Pillow LANCZOS: PSNR \(p.isInfinite ? "inf" : S.f1(p)) dB, max diff \(maxDiff)")
                #expect(p >= 45, "\(name) \(w)x\(h): \(p) dB")
            }
        }
        print("resize vs Pillow LANCZOS: worst PSNR \(worst.isInfinite ? "inf (identical)" : S.f1(worst) + " dB")")
    }
}
