import Testing
@testable import ImageCodec

/// PngSuite against the RGBA8 references (docs/png.md): every valid file exactly, every
/// x-file rejected, and reduced decodes equal to a box average of the full decode.
@Suite struct PNGConformanceTests {
    @Test func validFilesMatchTheirReferencesExactly() throws {
        var matched = 0, worst = 0, worstFile = ""
        var failures: [String] = []
        for entry in PNGFixtures.entries where !entry.mustReject {
            let reference = try PNGFixtures.pam(try #require(entry.reference))
            let bytes = try PNGFixtures.bytes(entry.name)
            do {
                let decoded = try ImageCodec.decode(bytes)
                let rgba = decoded.bitmap.converted(to: .rgba)
                guard rgba.width == reference.width, rgba.height == reference.height else {
                    failures.append("\(entry.name): size \(rgba.width)x\(rgba.height)"); continue
                }
                let diff = zip(rgba.pixels, reference.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
                if diff > worst { worst = diff; worstFile = entry.name }
                if diff == 0 { matched += 1 } else { failures.append("\(entry.name): max diff \(diff)") }
                #expect(decoded.info.width == entry.width && decoded.info.height == entry.height)
                #expect(decoded.info.progressive == entry.interlaced)
            } catch {
                failures.append("\(entry.name): \(error)")
            }
        }
        print("PNG conformance: \(matched)/161 exact; worst max diff \(worst) \(worstFile)")
        #expect(matched == 161, "failures: \(failures)")
    }

    @Test func xFilesAreRejected() throws {
        var rejected = 0
        for entry in PNGFixtures.entries where entry.mustReject {
            let bytes = try PNGFixtures.bytes(entry.name)
            do {
                _ = try PNGDecoder.decode(bytes, reduction: 1, limits: .default)
                Issue.record("\(entry.name) decoded but must be rejected")
            } catch let error as ImageCodecError {
                rejected += 1
                print("rejected \(entry.name): \(error)")
            }
            #expect(throws: ImageCodecError.self) { try ImageCodec.decode(bytes) }
        }
        print("PNG x-files: \(rejected)/14 rejected")
        #expect(rejected == 14)
    }

    @Test func reducedDecodeIsTheBoxAverageOfTheFullDecode() throws {
        var compared = 0
        for entry in PNGFixtures.entries where !entry.mustReject {
            let bytes = try PNGFixtures.bytes(entry.name)
            let full = try ImageCodec.decode(bytes).bitmap
            for (scale, factor) in [(DecodeScale.half, 2), (.quarter, 4), (.eighth, 8)] {
                let reduced = try ImageCodec.decode(bytes, scale: scale).bitmap
                let expected = try PNGFixtures.boxAverage(full, factor: factor)
                #expect(reduced == expected, "\(entry.name) at 1/\(factor)")
                let size = scale.outputSize(width: full.width, height: full.height)
                #expect(reduced.width == size.width && reduced.height == size.height)
                compared += 1
            }
        }
        #expect(compared == 161 * 3)
    }

    @Test func probeReportsHeaderFieldsAndGamma() throws {
        for entry in PNGFixtures.entries where !entry.mustReject {
            let bytes = try PNGFixtures.bytes(entry.name)
            let info = try ImageCodec.probe(bytes)
            let decoded = try ImageCodec.decode(bytes)
            #expect(info == decoded.info, "\(entry.name)")
            #expect(info.width == entry.width && info.height == entry.height)
            if let gamma = entry.gamma {
                #expect(abs((info.gamma ?? -1) - gamma) < 1e-9, "\(entry.name) gamma")
            }
            #expect(info.components == decoded.bitmap.channels && info.hasAlpha == decoded.bitmap.layout.hasAlpha)
        }
    }

    @Test func layoutsFollowTheColourType() throws {
        let cases: [(String, Bitmap.Layout)] = [
            ("basn0g08", .gray), ("basn0g01", .gray), ("basn0g16", .gray), ("basn4a08", .grayAlpha),
            ("basn2c08", .rgb), ("basn2c16", .rgb), ("basn6a08", .rgba), ("basn3p08", .rgb),
            ("tbbn3p08", .rgba), ("tbbn0g04", .grayAlpha), ("tbrn2c08", .rgba),
        ]
        for (name, layout) in cases {
            let decoded = try ImageCodec.decode(try PNGFixtures.bytes("pngsuite/\(name).png"))
            #expect(decoded.bitmap.layout == layout, "\(name)")
        }
    }
}
