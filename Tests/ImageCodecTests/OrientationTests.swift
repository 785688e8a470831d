import Testing
@testable import ImageCodec

/// `Orientation.apply` against the table in docs/jpeg-decoding.md "EXIF orientation", on a
/// bitmap with no symmetry.
@Suite struct OrientationTests {
    /// 3×2 RGB (and a gray twin) whose every sample is distinct.
    private func asymmetric(_ layout: Bitmap.Layout) throws -> Bitmap {
        let w = 3, h = 2, c = layout.channels
        let pixels = (0..<(w * h * c)).map { UInt8($0 * 7 + 1) }
        return try Bitmap(width: w, height: h, layout: layout, pixels: pixels)
    }

    /// The stored pixel that output (x, y) shows, per that table.
    private func source(_ o: Orientation, x: Int, y: Int, w: Int, h: Int) -> (Int, Int) {
        switch o {
        case .up: (x, y)
        case .mirrored: (w - 1 - x, y)
        case .rotated180: (w - 1 - x, h - 1 - y)
        case .mirroredVertically: (x, h - 1 - y)
        case .transposed: (y, x)
        case .rotatedClockwise: (y, h - 1 - x)
        case .transversed: (w - 1 - y, h - 1 - x)
        case .rotatedCounterClockwise: (w - 1 - y, x)
        }
    }

    @Test(arguments: Orientation.allCases)
    func applyMatchesFormulas(orientation: Orientation) throws {
        for layout in Bitmap.Layout.allCases {
            let b = try asymmetric(layout)
            let out = orientation.apply(to: b)
            let swapped = orientation.rawValue >= 5
            #expect(out.width == (swapped ? b.height : b.width))
            #expect(out.height == (swapped ? b.width : b.height))
            #expect(out.layout == layout)
            for y in 0..<out.height {
                for x in 0..<out.width {
                    let (sx, sy) = source(orientation, x: x, y: y, w: b.width, h: b.height)
                    for k in 0..<b.channels {
                        #expect(out.pixels[(y * out.width + x) * b.channels + k] == b.pixels[(sy * b.width + sx) * b.channels + k],
                                "\(orientation) \(layout) at \(x),\(y)")
                    }
                }
            }
        }
    }

    /// Concrete picture of rotate-clockwise (6): the stored left column becomes the top row,
    /// read bottom to top.
    @Test func rotateClockwiseConcrete() throws {
        // a b c
        // d e f
        let b = try Bitmap(width: 3, height: 2, layout: .gray, pixels: [1, 2, 3, 4, 5, 6])
        // d a
        // e b
        // f c
        #expect(Orientation.rotatedClockwise.apply(to: b).pixels == [4, 1, 5, 2, 6, 3])
        // c f
        // b e
        // a d
        #expect(Orientation.rotatedCounterClockwise.apply(to: b).pixels == [3, 6, 2, 5, 1, 4])
    }

    @Test func inversesRestoreTheImage() throws {
        let b = try asymmetric(.rgb)
        let inverse: [Orientation: Orientation] = [
            .up: .up, .mirrored: .mirrored, .rotated180: .rotated180, .mirroredVertically: .mirroredVertically,
            .transposed: .transposed, .rotatedClockwise: .rotatedCounterClockwise,
            .transversed: .transversed, .rotatedCounterClockwise: .rotatedClockwise,
        ]
        for (o, inv) in inverse {
            #expect(inv.apply(to: o.apply(to: b)) == b, "\(o)")
        }
        #expect(Orientation(exifValue: 0) == .up && Orientation(exifValue: 9) == .up)
    }
}
