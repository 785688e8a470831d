import Foundation
import Testing
@testable import ImageCodec

// Lens, exposure and GPS fields. Real files (Tests/Fixtures/exif, written by exiftool, see its
// README) check that each container hands the same EXIF to the reader; TIFF structures laid
// out byte by byte at chosen offsets check the hostile cases one by one.

/// A TIFF buffer assembled at explicit offsets, so a test can point anything anywhere.
private struct TIFFLayout {
    var little: Bool
    var bytes: [UInt8]

    init(little: Bool, size: Int) {
        self.little = little
        bytes = [UInt8](repeating: 0, count: size)
        put16(0, little ? 0x4949 : 0x4D4D)
        put16(2, 42)
        put32(4, 8)
    }

    mutating func put16(_ at: Int, _ v: Int) {
        let b = [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
        bytes.replaceSubrange(at..<at + 2, with: little ? b : b.reversed())
    }

    mutating func put32(_ at: Int, _ v: Int) {
        let b = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        bytes.replaceSubrange(at..<at + 4, with: little ? b : b.reversed())
    }

    /// An IFD at `at`: entries (tag, type, count, value-or-offset field as a LONG; SHORTs and
    /// BYTEs written left-justified through `inlineShort`), next-IFD offset 0.
    mutating func ifd(at: Int, _ entries: [(tag: Int, type: Int, count: Int, field: Int)], inlineShort: Set<Int> = []) {
        put16(at, entries.count)
        for (i, e) in entries.enumerated() {
            let p = at + 2 + 12 * i
            put16(p, e.tag)
            put16(p + 2, e.type)
            put32(p + 4, e.count)
            if inlineShort.contains(e.tag) { put16(p + 8, e.field) } else { put32(p + 8, e.field) }
        }
        put32(at + 2 + 12 * entries.count, 0)
    }

    mutating func rationals(at: Int, _ values: [(Int, Int)]) {
        for (i, v) in values.enumerated() {
            put32(at + 8 * i, v.0)
            put32(at + 8 * i + 4, v.1)
        }
    }

    /// IFD0 at 8 pointing to an Exif IFD at 100 and a GPS IFD at 300, with their data at 500...
    /// A full, valid record that the tests then damage.
    static func full(little: Bool) -> TIFFLayout {
        var t = TIFFLayout(little: little, size: 700)
        t.ifd(at: 8, [(0x8769, 4, 1, 100), (0x8825, 4, 1, 300)])
        t.ifd(at: 100, [(0x829A, 5, 1, 500), (0x829D, 5, 1, 508), (0x8827, 3, 1, 64), (0x920A, 5, 1, 516),
                        (0xA405, 3, 1, 26), (0xA434, 2, 6, 524)], inlineShort: [0x8827, 0xA405])
        t.rationals(at: 500, [(1, 120), (15, 10), (57, 10)])
        t.bytes.replaceSubrange(524..<530, with: Array("Lens5".utf8) + [0])
        // GPS: 35° 30' 36" S, 139° 0' 0" E, 12.5 m below sea level.
        t.ifd(at: 300, [(1, 2, 2, 0), (2, 5, 3, 540), (3, 2, 2, 0), (4, 5, 3, 564), (5, 1, 1, 1), (6, 5, 1, 588)])
        t.bytes[300 + 2 + 8] = UInt8(ascii: "S")
        t.bytes[300 + 2 + 24 + 8] = UInt8(ascii: "E")
        t.bytes[300 + 2 + 48 + 8] = 1
        t.rationals(at: 540, [(35, 1), (30, 1), (36, 1)])
        t.rationals(at: 564, [(139, 1), (0, 1), (0, 1)])
        t.rationals(at: 588, [(25, 2)])
        return t
    }
}

enum ExifFixtures {
    static func bytes(_ name: String) throws -> [UInt8] {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return [UInt8](try Data(contentsOf: url.appendingPathComponent("Fixtures/exif/" + name)))
    }
}

@Suite("Exif lens, exposure and GPS")
struct ExifShotTests {
    @Test("JPEG, PNG eXIf, WebP EXIF chunk and HEIF Exif item give the same fields", arguments: ["shot.jpg", "shot.png", "shot.webp", "shot.heic"])
    func containers(file: String) throws {
        let exif = try ImageCodec.probe(try ExifFixtures.bytes(file)).exif
        #expect(exif.make == "Apple" && exif.model == "iPhone 13 Pro")
        #expect(exif.lensMake == "Apple")
        #expect(exif.lensModel == "iPhone 13 Pro back triple camera 5.7mm f/1.5")
        #expect(exif.exposureTime == ExifRational(numerator: 1, denominator: 120))
        #expect(exif.fNumber?.value == 1.5)
        #expect(exif.iso == 64)
        #expect(exif.focalLength?.value == 5.7)
        #expect(exif.focalLength35mm == 26)
        #expect(exif.dateTimeOriginal == "2023:05:06 07:08:09")
        let gps = try #require(exif.gps)
        #expect(abs(gps.latitude - 48.85837) < 1e-5)
        #expect(abs(gps.longitude + 2.294481) < 1e-5)
        #expect(gps.altitude == 35.5)
    }

    @Test("a laid-out record reads whole in both byte orders; S and below sea level are negative", arguments: [true, false])
    func fullLayout(little: Bool) {
        let meta = ExifReader.parse(tiff: TIFFLayout.full(little: little).bytes[...])
        #expect(meta.exposureTime == ExifRational(numerator: 1, denominator: 120))
        #expect(meta.fNumber == ExifRational(numerator: 15, denominator: 10))
        #expect(meta.focalLength == ExifRational(numerator: 57, denominator: 10))
        #expect(meta.iso == 64 && meta.focalLength35mm == 26 && meta.lensModel == "Lens5")
        #expect(meta.gps == GPSPosition(latitude: -(35 + 30.0 / 60 + 36.0 / 3600), longitude: 139, altitude: -12.5))
    }

    @Test("rationals: zero denominators, wrong types, offsets past the end and huge counts drop only that field")
    func hostileRationals() {
        for little in [true, false] {
            var zero = TIFFLayout.full(little: little)
            zero.put32(504, 0)  // ExposureTime 1/0
            var meta = ExifReader.parse(tiff: zero.bytes[...])
            #expect(meta.exposureTime == nil && meta.fNumber != nil)

            for (count, field) in [(1, 0x7FFF_FFF0), (1, 696), (0xFFFF_FFFF, 500), (0x2000_0000, 500), (0, 500)] {
                var t = TIFFLayout.full(little: little)
                t.put32(100 + 2 + 4, count)   // the ExposureTime entry's count
                t.put32(100 + 2 + 8, field)   // and its offset
                meta = ExifReader.parse(tiff: t.bytes[...])
                #expect(meta.exposureTime == nil, "count \(count) offset \(field)")
                #expect(meta.fNumber?.value == 1.5 && meta.iso == 64 && meta.gps != nil)
            }

            var wrongType = TIFFLayout.full(little: little)
            wrongType.put16(100 + 2 + 12 + 2, 10)  // FNumber as SRATIONAL
            #expect(ExifReader.parse(tiff: wrongType.bytes[...]).fNumber == nil)
        }
    }

    @Test("GPS: a missing, short or out-of-range coordinate drops the position, and a bad altitude only the altitude")
    func hostileGPS() {
        var shortLatitude = TIFFLayout.full(little: true)
        shortLatitude.put32(300 + 2 + 12 + 4, 2)
        #expect(ExifReader.parse(tiff: shortLatitude.bytes[...]).gps == nil)

        var noLongitude = TIFFLayout.full(little: true)
        noLongitude.put16(300 + 2 + 36, 0x99)  // tag 4 renamed to an unknown tag
        #expect(ExifReader.parse(tiff: noLongitude.bytes[...]).gps == nil)

        var farNorth = TIFFLayout.full(little: true)
        farNorth.rationals(at: 540, [(91, 1)])
        #expect(ExifReader.parse(tiff: farNorth.bytes[...]).gps == nil)

        var zeroSeconds = TIFFLayout.full(little: true)
        zeroSeconds.put32(564 + 20, 0)  // longitude seconds x/0
        #expect(ExifReader.parse(tiff: zeroSeconds.bytes[...]).gps == nil)

        var badAltitude = TIFFLayout.full(little: true)
        badAltitude.put32(300 + 2 + 60 + 8, 0xFFFF_FFF8)
        let gps = ExifReader.parse(tiff: badAltitude.bytes[...]).gps
        #expect(gps?.altitude == nil && gps?.longitude == 139)

        var gpsPastEnd = TIFFLayout.full(little: true)
        gpsPastEnd.put32(8 + 2 + 12 + 8, 0xFFFF_FF00)
        let meta = ExifReader.parse(tiff: gpsPastEnd.bytes[...])
        #expect(meta.gps == nil && meta.iso == 64)
    }

    @Test("loops between IFDs end: GPS pointing at IFD0 or the Exif IFD, the Exif IFD pointing at GPS")
    func loops() {
        for target in [8, 100] {
            var t = TIFFLayout.full(little: false)
            t.put32(8 + 2 + 12 + 8, target)
            let meta = ExifReader.parse(tiff: t.bytes[...])
            #expect(meta.gps == nil)
            #expect(meta.iso == 64)
        }
        var cross = TIFFLayout.full(little: true)
        cross.put32(8 + 2 + 8, 300)  // the Exif IFD pointer now names the GPS IFD
        let meta = ExifReader.parse(tiff: cross.bytes[...])
        #expect(meta.iso == nil && meta.gps == nil)
    }

    @Test("ISO: 65535 or 0 in ISOSpeedRatings defers to ISOSpeed; SHORT lists stored out of line read their first")
    func iso() {
        for (ratings, expected) in [(65535, 102_400), (0, 102_400), (800, 800)] {
            var t = TIFFLayout(little: true, size: 200)
            t.ifd(at: 8, [(0x8769, 4, 1, 40)])
            t.ifd(at: 40, [(0x8827, 3, 1, ratings), (0x8833, 4, 1, 102_400)], inlineShort: [0x8827])
            #expect(ExifReader.parse(tiff: t.bytes[...]).iso == expected)
        }
        var list = TIFFLayout(little: false, size: 200)
        list.ifd(at: 8, [(0x8769, 4, 1, 40)])
        list.ifd(at: 40, [(0x8827, 3, 3, 100)])
        list.put16(100, 1600)
        #expect(ExifReader.parse(tiff: list.bytes[...]).iso == 1600)
        list.put32(40 + 2 + 4, 0x4000_0000)  // a count whose bytes cannot fit
        #expect(ExifReader.parse(tiff: list.bytes[...]).iso == nil)
    }

    @Test("every truncation of the full record parses without trapping and never invents values")
    func truncations() {
        let full = TIFFLayout.full(little: true).bytes
        let expected = ExifReader.parse(tiff: full[...])
        for n in 0...full.count {
            let meta = ExifReader.parse(tiff: full.prefix(n))
            #expect(meta.exposureTime == nil || meta.exposureTime == expected.exposureTime)
            #expect(meta.gps == nil || meta.gps?.latitude == expected.gps?.latitude)
            #expect(meta.iso == nil || meta.iso == expected.iso)
        }
    }
}
