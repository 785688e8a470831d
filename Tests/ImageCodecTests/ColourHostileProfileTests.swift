import Foundation
import Testing
@testable import ImageCodec

/// Damaged and hostile ICC profiles give typed errors (never a trap, hang or huge allocation),
/// and whatever does parse converts pixels without crashing.
@Suite struct ColourHostileProfileTests {
    static func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }

    /// A profile of `tags` (signature, payload) with a correct header and table.
    static func profile(space: String = "RGB ", _ tags: [(String, [UInt8])]) -> [UInt8] {
        var offset = 132 + 12 * tags.count
        var table = u32(tags.count), data: [UInt8] = []
        for (sig, payload) in tags {
            table += Array(sig.utf8) + u32(offset) + u32(payload.count)
            var p = payload
            while p.count % 4 != 0 { p.append(0) }
            data += p
            offset += p.count
        }
        var header = u32(128 + table.count + data.count) + [0, 0, 0, 0, 4, 0x30, 0, 0] + Array("mntr".utf8) + Array(space.utf8) + Array("XYZ ".utf8)
        header += [UInt8](repeating: 0, count: 12) + Array("acsp".utf8)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + data
    }

    static func xyz(_ x: Int32, _ y: Int32, _ z: Int32) -> [UInt8] {
        Array("XYZ ".utf8) + [0, 0, 0, 0] + u32(Int(UInt32(bitPattern: x))) + u32(Int(UInt32(bitPattern: y))) + u32(Int(UInt32(bitPattern: z)))
    }

    static let gammaCurve: [UInt8] = Array("curv".utf8) + [0, 0, 0, 0] + u32(1) + [2, 0x33]

    static func matrixProfile(r: [UInt8] = xyz(28_000, 14_000, 1_000), trc: [UInt8] = gammaCurve) -> [UInt8] {
        profile([("rXYZ", r), ("gXYZ", xyz(25_000, 46_000, 4_000)), ("bXYZ", xyz(10_000, 4_000, 48_000)),
                 ("rTRC", trc), ("gTRC", gammaCurve), ("bTRC", gammaCurve)])
    }

    static func kind(_ bytes: [UInt8]) -> ImageCodecError.Kind? {
        do {
            _ = try ColourTransform.make(profile: bytes)
            return nil
        } catch let e as ImageCodecError {
            return e.kind
        } catch {
            return .invalidArgument
        }
    }

    @Test func wellFormedSyntheticProfileConverts() throws {
        let t = try #require(try ColourTransform.make(profile: Self.matrixProfile()))
        var b = try Bitmap(width: 2, height: 1, layout: .rgb, pixels: [0, 128, 255, 10, 20, 30])
        try t.apply(to: &b)
    }

    @Test func damagedHeadersAndTablesAreTypedErrors() {
        let good = Self.matrixProfile()
        #expect(Self.kind(Array(good.prefix(100))) == .truncated)
        var wrongSize = good
        wrongSize.replaceSubrange(0..<4, with: Self.u32(good.count + 10))
        #expect(Self.kind(wrongSize) == .truncated)
        var noMagic = good
        noMagic[36] = 0x41
        #expect(Self.kind(noMagic) == .corrupt)
        var v5 = good
        v5[8] = 5
        #expect(Self.kind(v5) == .unsupported)
        var pastEnd = good
        pastEnd.replaceSubrange(136..<140, with: Self.u32(good.count - 4))  // rXYZ offset near the end
        #expect(Self.kind(pastEnd) == .corrupt)
        var manyTags = good
        manyTags.replaceSubrange(128..<132, with: Self.u32(0x7FFF_FFFF))
        #expect(Self.kind(manyTags) == .corrupt)
    }

    @Test func hostileTagValuesAreTypedErrors() {
        // Colorants at the s15Fixed16 extremes, a singular matrix, a zero gamma, an empty curve
        // tag, a para curve with a = 0.
        #expect(Self.kind(Self.matrixProfile(r: Self.xyz(Int32.max, Int32.min, 0))) == .corrupt)
        #expect(Self.kind(Self.matrixProfile(r: Self.xyz(25_000, 46_000, 4_000))) == .corrupt)
        #expect(Self.kind(Self.matrixProfile(trc: Array("curv".utf8) + [0, 0, 0, 0] + Self.u32(1) + [0, 0])) == .corrupt)
        #expect(Self.kind(Self.matrixProfile(trc: Array("curv".utf8) + [0, 0, 0, 0])) == .corrupt)
        #expect(Self.kind(Self.matrixProfile(trc: Array("curv".utf8) + [0, 0, 0, 0] + Self.u32(40_000))) == .corrupt)
        let para = Array("para".utf8) + [0, 0, 0, 0, 0, 1, 0, 0] + Self.u32(0x20000) + Self.u32(0) + Self.u32(0)
        #expect(Self.kind(Self.matrixProfile(trc: para)) == .corrupt)
    }

    @Test func hugeLUTGridsAreRefusedBeforeAllocating() {
        // mft2, 4 inputs, 255-point grid: 4.2 G nodes claimed by a tiny tag.
        var mft2 = Array("mft2".utf8) + [0, 0, 0, 0, 4, 3, 255, 0] + [UInt8](repeating: 0, count: 36)
        mft2 += [0, 2, 0, 2] + [UInt8](repeating: 0, count: 64)
        #expect(Self.kind(Self.profile(space: "CMYK", [("A2B0", mft2)])) == .limitExceeded)
        // mAB with a 200^3 CLUT that is not there.
        var mab = Array("mAB ".utf8) + [0, 0, 0, 0, 3, 3, 0, 0] + Self.u32(32) + Self.u32(0) + Self.u32(0) + Self.u32(68) + Self.u32(32)
        mab += Self.gammaCurve + Self.gammaCurve + Self.gammaCurve
        mab += [200, 200, 200] + [UInt8](repeating: 0, count: 13) + [2, 0, 0, 0]
        #expect(Self.kind(Self.profile([("A2B0", mab)])) == .corrupt)
        // A 1-point grid.
        var tiny = Array("mft1".utf8) + [0, 0, 0, 0, 3, 3, 1, 0] + [UInt8](repeating: 0, count: 36)
        tiny += [UInt8](repeating: 0, count: 3 * 256 + 3 + 3 * 256)
        #expect(Self.kind(Self.profile([("A2B0", tiny)])) == .corrupt)
    }

    /// Random damage to every fixture profile: typed errors or working transforms, nothing else.
    @Test func randomlyDamagedProfilesNeverCrash() throws {
        var rng = SplitMix64(seed: 0xC010)
        var sources = try ["adobe_rgb.png", "display_p3.png", "lut_mft1.png", "gray.png", "cmyk_fogra39.jpg"].map(ColourFixtures.profile)
        sources.append(DisplayP3Profile.bytes)
        var errors = 0, built = 0
        for source in sources {
            for _ in 0..<150 {
                var p = source
                for _ in 0..<rng.int(1...6) {
                    let i = rng.int(0...(min(p.count, 1024) - 1))
                    p[i] = rng.byte()
                }
                do {
                    guard let t = try ColourTransform.make(profile: p) else { continue }
                    built += 1
                    if t.convertsCMYK { continue }
                    var b = try Bitmap(width: 16, height: 1, layout: t.sourceChannels == 1 ? .gray : .rgba,
                                       pixels: (0..<(t.sourceChannels == 1 ? 16 : 64)).map { UInt8($0 * 4) })
                    try t.apply(to: &b)
                } catch is ImageCodecError {
                    errors += 1
                }
            }
        }
        print("colour: damaged profiles: \(errors) typed errors, \(built) still usable")
        #expect(errors + built > 0)
    }
}
