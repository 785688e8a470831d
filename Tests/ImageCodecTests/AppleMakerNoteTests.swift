import Testing
@testable import ImageCodec

// Apple's maker note, read for a Live Photo's media group UUID. The TIFF below was laid out by
// hand from ExifTool's Apple tag table (big-endian IFD0 with Make and an Exif IFD whose
// MakerNote holds "Apple iOS", version, "MM", an IFD with MakerNoteVersion 12 and tag 0x0011);
// `exiftool -Apple:all` reads MediaGroupUUID FFCBAC24-E547-4BBC-AF47-38B1A3D845E3 from it.
@Suite struct AppleMakerNoteTests {
    static let tiff: [UInt8] = {
        let hex = Array("4d4d002a000000080002010f000200000006000000c88769000400000001000000640000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001927c0007000000510000012c00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004170706c6500000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004170706c6520694f530000014d4d000200010009000000010000000c00110002000000250000002c0000000046464342414332342d453534372d344242432d414634372d33384231413344383435453300".utf8)
        func nibble(_ c: UInt8) -> UInt8 { c <= 0x39 ? c - 0x30 : c - 0x61 + 10 }
        return stride(from: 0, to: hex.count, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
    }()
    /// Where the note starts in `tiff`, and its length.
    static let noteStart = 300, noteLength = 81

    @Test func readsTheMediaGroupUUID() {
        let meta = ExifReader.parse(tiff: Self.tiff[...])
        #expect(meta.make == "Apple")
        #expect(meta.contentIdentifier == "FFCBAC24-E547-4BBC-AF47-38B1A3D845E3")
    }

    @Test func aJPEGCarriesItThroughProbe() throws {
        let app1: [UInt8] = Array("Exif".utf8) + [0, 0] + Self.tiff
        let length = app1.count + 2
        // A JPEG without EXIF of its own, with this APP1 put right after its SOI.
        let plain = try VideoFixtures.fixture("jpeg/generated/flower_444_q75.jpg")
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1 + plain.dropFirst(2)
        let info = try ImageCodec.probe(jpeg)
        #expect(info.exif.contentIdentifier == "FFCBAC24-E547-4BBC-AF47-38B1A3D845E3")
    }

    @Test func damagedNotesGiveNoIdentifier() {
        func variant(_ change: (inout [UInt8]) -> Void) -> String? {
            var bytes = Self.tiff
            change(&bytes)
            return ExifReader.parse(tiff: bytes[...]).contentIdentifier
        }
        let s = Self.noteStart
        // Another maker's note, or another byte order than Apple writes.
        #expect(variant { $0[s] = UInt8(ascii: "N") } == nil)
        #expect(variant { $0[s + 12] = UInt8(ascii: "I"); $0[s + 13] = UInt8(ascii: "I") } == nil)
        // The UUID's offset points past the note (and past the buffer).
        #expect(variant { $0[s + 14 + 2 + 12 + 8] = 0xFF } == nil)
        // Not a UUID: a letter beyond F, or a group too short.
        #expect(variant { $0[s + 44] = UInt8(ascii: "Z") } == nil)
        #expect(variant { $0[s + 44 + 8] = UInt8(ascii: "0") } == nil)
        // A note cut short, and a MakerNote count of 4 billion.
        #expect(ExifReader.parse(tiff: Self.tiff[..<(s + 20)]).contentIdentifier == nil)
        #expect(variant { $0[100 + 2 + 4] = 0xFF; $0[100 + 2 + 5] = 0xFF } == nil)
        // An entry count of 65535: the walk stops at the buffer's end, the entries before it stand.
        #expect(variant { $0[s + 14] = 0xFF; $0[s + 15] = 0xFF } == "FFCBAC24-E547-4BBC-AF47-38B1A3D845E3")
        // A damaged note costs only the identifier.
        var other = Self.tiff
        other[s] = UInt8(ascii: "N")
        #expect(ExifReader.parse(tiff: other[...]).make == "Apple")
    }

    @Test func uuidShape() {
        #expect(AppleMakerNote.isUUID("ffcbac24-e547-4bbc-af47-38b1a3d845e3"))
        #expect(!AppleMakerNote.isUUID("FFCBAC24E5474BBCAF4738B1A3D845E3"))
        #expect(!AppleMakerNote.isUUID(""))
        #expect(!AppleMakerNote.isUUID("FFCBAC24-E547-4BBC-AF47-38B1A3D845E3-"))
    }
}
