import Testing
@testable import ImageCodec

/// Sampling layouts beyond the manifest (4:1:0, 3×1, 1×4, 3×2, chroma sampled finer than
/// luma, mixed chroma factors), baseline and progressive. Made with
/// `cjpeg -quality 80 [-progressive] -sample <factors>` from sources/flower_250x156.ppm; the
/// CRC-32 values are of the PNM that `djpeg -dct int -scale M/8` 2.1.5 writes.
@Suite struct JPEGSamplingTests {
    static let references: [(file: String, scale: Int, crc: UInt32)] = [
        ("ex_4x2_1x1_1x1", 8, 2153961016),
        ("ex_4x2_1x1_1x1", 4, 3978360976),
        ("ex_4x2_1x1_1x1", 2, 2331825592),
        ("ex_4x2_1x1_1x1", 1, 880528445),
        ("ex_1x1_2x2_2x2", 8, 3037093088),
        ("ex_1x1_2x2_2x2", 4, 1049773072),
        ("ex_1x1_2x2_2x2", 2, 2604856043),
        ("ex_1x1_2x2_2x2", 1, 3560847811),
        ("ex_2x2_2x1_1x2", 8, 3431581028),
        ("ex_2x2_2x1_1x2", 4, 352701431),
        ("ex_2x2_2x1_1x2", 2, 3406916971),
        ("ex_2x2_2x1_1x2", 1, 1875927757),
        ("pex_3x1_1x1_1x1", 8, 2915100035),
        ("pex_3x1_1x1_1x1", 4, 716569925),
        ("pex_3x1_1x1_1x1", 2, 1684324170),
        ("pex_3x1_1x1_1x1", 1, 1792043080),
        ("pex_1x4_1x1_1x1", 8, 493278550),
        ("pex_1x4_1x1_1x1", 4, 1015230834),
        ("pex_1x4_1x1_1x1", 2, 1705475226),
        ("pex_1x4_1x1_1x1", 1, 280451071),
        ("pex_3x2_1x1_1x1", 8, 1333924894),
        ("pex_3x2_1x1_1x1", 4, 1521238419),
        ("pex_3x2_1x1_1x1", 2, 4147669377),
        ("pex_3x2_1x1_1x1", 1, 1266455977),
    ]

    @Test("unusual sampling factors decode exactly as djpeg", arguments: 0..<24)
    func matchesDjpeg(_ i: Int) throws {
        let r = Self.references[i]
        let image = try JPEGDecoder.decode(try JPEGFixtures.bytes("extra/\(r.file).jpg"), scale: r.scale, limits: .default)
        #expect(image.warnings.isEmpty)
        #expect(JPEGFixtures.crc32(JPEGFixtures.pnm(image.bitmap)) == r.crc, "\(r.file) at \(r.scale)/8")
    }
}
