import Testing
@testable import ImageCodec

/// The decode plan and the coefficient store size for large images, without pixel data.
@Suite struct JPEGMemoryTests {
    /// A 6000×4000 4:2:0 progressive frame header.
    static func frame(width: Int = 6000, height: Int = 4000) throws -> JPEGFrame {
        let p: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 255), UInt8(width >> 8), UInt8(width & 255), 3,
                          1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return try JPEGFrame(marker: 0xC2, payload: p[...], limits: .default)
    }

    @Test("a 1/8 progressive decode keeps DC + mask for luma and 25 values for 2x2 chroma")
    func eighthScaleStoreIsSmall() throws {
        let f = try Self.frame()
        let plan = try DecodePlan(frame: f, scale: 1, colorSpace: .ycbcr)
        #expect(plan.components.map(\.idctSize) == [1, 2, 2])
        let store = try CoefficientStore(plan: plan)
        #expect(store.planes.map(\.slots) == [1, 25, 25])
        // libjpeg holds 128 bytes per block: 72 MB here.
        let blocks = store.planes.reduce(0) { $0 + $1.blocksWide * $1.blocksHigh }
        print("JPEG 24 MP 4:2:0 progressive at 1/8: store \(store.byteCount / 1_000_000) MB vs \(blocks * 128 / 1_000_000) MB at 128 B/block")
        #expect(store.byteCount < 16_000_000)
        #expect(blocks * 128 > 70_000_000)
    }

    @Test("plans follow the IDCT-size and upsampling rules of docs/jpeg-decoding.md")
    func plans() throws {
        let f = try Self.frame(width: 250, height: 156)
        let expected: [(Int, [Int], [UpsampleMethod])] = [
            (8, [8, 8, 8], [.none, .fancyH2V2, .fancyH2V2]),
            (4, [4, 8, 8], [.none, .none, .none]),
            (2, [2, 4, 4], [.none, .none, .none]),
            (1, [1, 2, 2], [.none, .none, .none]),
        ]
        for (m, sizes, methods) in expected {
            let plan = try DecodePlan(frame: f, scale: m, colorSpace: .ycbcr)
            #expect(plan.components.map(\.idctSize) == sizes, "\(m)/8")
            #expect(plan.components.map(\.method) == methods, "\(m)/8")
        }
        let half = try DecodePlan(frame: f, scale: 4, colorSpace: .ycbcr)
        #expect(half.outWidth == 125 && half.outHeight == 78)
    }
}
