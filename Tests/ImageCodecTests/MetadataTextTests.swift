import Foundation
import Testing
@testable import ImageCodec

/// XMP, IPTC-IIM and EXIF text from the fixtures in Tests/Fixtures/metadata (made by make.sh
/// with exiftool) against what `exiftool -j` read from the same files (exiftool.json).
@Suite struct MetadataTextTests {
    static let folder: URL = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Fixtures/metadata")
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// Our reading of a fixture: a sidecar through `EmbeddedMetadata`, an image through `probe`.
    static func ours(_ name: String) throws -> ImageText {
        let data = try bytes(name)
        guard !name.hasSuffix(".xmp") else {
            var embedded = EmbeddedMetadata()
            embedded.addXMP(data)
            return embedded.text()
        }
        return try ImageCodec.probe(data).text
    }

    /// exiftool's values as the precedence rules combine them (XMP, then IPTC, then EXIF).
    static func expected(_ tags: [String: Any]) -> ImageText {
        func strings(_ key: String) -> [String] {
            switch tags[key] {
            case let list as [Any]: return list.map { "\($0)" }
            case let value?: return ["\(value)"]
            case nil: return []
            }
        }
        func first(_ keys: String...) -> String? { keys.lazy.compactMap { strings($0).first }.first }
        func nonEmpty(_ lists: [String]...) -> [String] { lists.first { !$0.isEmpty } ?? [] }
        var t = ImageText()
        t.title = first("XMP-dc:Title", "IPTC:ObjectName", "IFD0:XPTitle")
        let description = strings("IFD0:ImageDescription").first.map { $0.trimmingCharacters(in: .whitespaces) }
            .flatMap { ["OLYMPUS DIGITAL CAMERA"].contains($0) ? nil : $0 }
        t.caption = first("XMP-dc:Description", "IPTC:Caption-Abstract") ?? description ?? first("ExifIFD:UserComment", "IFD0:XPComment")
        t.keywords = nonEmpty(strings("XMP-dc:Subject") + strings("XMP-lr:HierarchicalSubject"), strings("IPTC:Keywords"),
                              strings("IFD0:XPKeywords").flatMap { $0.split(separator: ";").map(String.init) })
        t.rating = first("XMP-xmp:Rating").flatMap { Int($0) }
        t.label = first("XMP-xmp:Label")
        var people: [String] = []
        if let info = tags["XMP-mwg-rs:RegionInfo"] as? [String: Any], let list = info["RegionList"] as? [[String: Any]] {
            for region in list where region["Type"] == nil || region["Type"] as? String == "Face" {
                if let name = region["Name"] as? String { people.append(name) }
            }
        }
        if let info = tags["XMP-MP:RegionInfoMP"] as? [String: Any], let list = info["Regions"] as? [[String: Any]] {
            people += list.compactMap { $0["PersonDisplayName"] as? String }
        }
        people += strings("XMP-iptcExt:PersonInImage")
        t.people = unique(people)
        var xmpPlaces = strings("XMP-iptcCore:Location") + strings("XMP-photoshop:City") + strings("XMP-photoshop:State")
            + strings("XMP-photoshop:Country")
        for shown in tags["XMP-iptcExt:LocationShown"] as? [[String: Any]] ?? [] {
            xmpPlaces += ["Sublocation", "City", "ProvinceState", "CountryName"].compactMap { shown[$0] as? String }
        }
        t.places = unique(nonEmpty(xmpPlaces, strings("IPTC:Sub-location") + strings("IPTC:City") + strings("IPTC:Province-State")
                                   + strings("IPTC:Country-PrimaryLocationName")))
        let creators = strings("XMP-dc:Creator")
        t.creator = creators.isEmpty ? first("IPTC:By-line", "IFD0:Artist") : creators.joined(separator: ", ")
        t.copyright = first("XMP-dc:Rights", "IPTC:CopyrightNotice", "IFD0:Copyright")
        t.keywords = unique(t.keywords)
        return t
    }

    static func unique(_ list: [String]) -> [String] {
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    /// Field by field over every fixture exiftool read: 9 fields × 17 files.
    @Test func everyFieldMatchesExiftool() throws {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.folder.appendingPathComponent("exiftool.json")))
        let entries = try #require(manifest as? [[String: Any]])
        #expect(entries.count == 17)
        var matched = 0, total = 0
        for entry in entries {
            let name = (entry["SourceFile"] as? String ?? "").replacingOccurrences(of: "./", with: "")
            let want = Self.expected(entry), got = try Self.ours(name)
            let pairs: [(String, Bool)] = [
                ("title", want.title == got.title), ("caption", want.caption == got.caption), ("keywords", want.keywords == got.keywords),
                ("rating", want.rating == got.rating), ("label", want.label == got.label), ("people", want.people == got.people),
                ("places", want.places == got.places), ("creator", want.creator == got.creator), ("copyright", want.copyright == got.copyright),
            ]
            for (field, ok) in pairs {
                total += 1
                if ok { matched += 1 }
                #expect(ok, "\(name) \(field): ours \(got) exiftool \(want)")
            }
        }
        print("metadata fields matching exiftool: \(matched) of \(total)")
        #expect(matched == total)
    }

    @Test func sidecarsAndContainersSaySomething() throws {
        let lightroom = try Self.ours("lightroom.xmp")
        #expect(lightroom.title == "Rooftops")  // x-default before fr-FR
        #expect(lightroom.places == ["Vieux Lyon", "Lyon", "France", "Fourvière", "Auvergne-Rhône-Alpes"])
        #expect(try Self.ours("digikam.xmp").people == ["Frank Example", "Gina Example"])
        #expect(try Self.ours("xmp-z.png").title == "Compressed PNG title")
        #expect(try Self.ours("xmp.heic").title == "HEIF title")
        #expect(try Self.ours("extended.jpg").keywords.count == 800)
        #expect(try Self.ours("exif-placeholder.jpg").caption == nil)
        let precedence = try Self.ours("precedence.jpg")
        #expect(precedence.caption == "from XMP" && precedence.keywords == ["iptc-only"] && precedence.creator == "EXIF artist")
    }

    /// An extended packet is used only when the main packet names its GUID and its chunks
    /// cover it exactly.
    @Test func extendedXMPNeedsItsGUID() throws {
        let jpeg = try Self.bytes("extended.jpg")
        var segments: [ArraySlice<UInt8>] = []
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            if jpeg[i + 1] == 0xE1 { segments.append(jpeg[(i + 4)..<(i + 2 + length)]) }
            i += 2 + length
        }
        #expect(segments.count == 3)
        var whole = EmbeddedMetadata()
        segments.forEach { whole.addAPP1($0) }
        #expect(whole.text().keywords.count == 800)
        var missingChunk = EmbeddedMetadata()
        segments.dropLast().forEach { missingChunk.addAPP1($0) }
        #expect(missingChunk.text().keywords.isEmpty && missingChunk.text().title == "Extended")
        var otherGUID = EmbeddedMetadata()
        otherGUID.addAPP1(segments[0])
        for s in segments.dropFirst() {
            var renamed = Array(s)
            renamed[EmbeddedMetadata.extendedMagic.count] = UInt8(ascii: "0")
            otherGUID.addAPP1(renamed[...])
        }
        #expect(otherGUID.text().keywords.isEmpty)
    }

    /// The reader's speed on a 100 KB packet (800 keywords), for docs/metadata.md.
    @Test func readingSpeed() throws {
        let jpeg = try Self.bytes("extended.jpg")
        let info = try ImageCodec.probe(jpeg)
        #expect(info.text.keywords.count == 800)
        var bytes = 0, keywords = 0
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<20 {
            bytes += jpeg.count
            keywords += try ImageCodec.probe(jpeg).text.keywords.count
        }
        let elapsed = clock.now - start
        #expect(keywords == 20 * 800)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("probe with 100 KB of XMP: \(Int(seconds / 20 * 1e6)) µs, \(Int(Double(bytes) / seconds / 1e6)) MB/s")
        #expect(seconds / 20 < 0.05)
    }

    @Test func hostileXMLIsRefused() throws {
        for name in ["hostile-billion-laughs.xmp", "hostile-xxe.xmp", "hostile-entity-no-dtd.xmp"] {
            #expect(throws: ImageCodecError.self, "\(name)") { try XMPReader.read(try Self.bytes(name)) }
        }
        let head = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/""#
        let tail = "</rdf:Description></rdf:RDF></x:xmpmeta>"
        let deep = head + ">" + String(repeating: "<dc:title>", count: 10_000) + "x" + String(repeating: "</dc:title>", count: 10_000) + tail
        #expect(throws: ImageCodecError(.limitExceeded, "XML nested deeper than 64 elements")) { try XMPReader.read(Array(deep.utf8)) }
        let huge = head + " dc:title=\"" + String(repeating: "A", count: 2 << 20) + "\">" + tail
        #expect(throws: ImageCodecError(.limitExceeded, "XML text longer than 1048576 bytes")) { try XMPReader.read(Array(huge.utf8)) }
        let many = head + ">" + String(repeating: "<dc:x/>", count: 300_000) + tail
        #expect(throws: ImageCodecError.self) { try XMPReader.read(Array(many.utf8)) }
        // A long caption that is within the limits is kept, cut to 16 KB.
        let long = head + " dc:description=\"" + String(repeating: "é", count: 20_000) + "\">" + tail
        #expect(try XMPReader.read(Array(long.utf8)).text.caption?.utf8.count == 16 << 10)
        // Damage in a file's XMP never hides the image: the probe answers, without the text.
        var embedded = EmbeddedMetadata()
        embedded.addXMP(try Self.bytes("hostile-xxe.xmp"))
        #expect(embedded.text().isEmpty)
    }

    @Test func xmlReaderHandlesTheSyntaxWritersUse() throws {
        let xml = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <!-- a comment --><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:d="http://purl.org/dc/elements/1.1/" xmlns:xap="http://ns.adobe.com/xap/1.0/" xap:Rating='-1'>
        <d:title><rdf:Alt><rdf:li xml:lang="x-default"><![CDATA[A <b>bold</b> & plain]]> &#x263A;&#65;</rdf:li></rdf:Alt></d:title>
        <d:description xml:lang="en">  line one&#10;line two  </d:description>
        <d:subject><rdf:Bag><rdf:li>a</rdf:li><rdf:li>a</rdf:li><rdf:li> </rdf:li><rdf:li>b&amp;c</rdf:li></rdf:Bag></d:subject>
        </rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
        let t = try XMPReader.read(Array(xml.utf8)).text
        #expect(t.title == "A <b>bold</b> & plain ☺A")
        #expect(t.caption == "line one line two")
        #expect(t.keywords == ["a", "b&c"])
        #expect(t.rating == -1)
        for broken in ["<a>", "<a></b>", "<a b=c/>", "<a b='1' b='2'/>", "<p:a/>", "<a>&#0;</a>", "<a>&#xD800;</a>", "<a>&amp</a>"] {
            #expect(throws: ImageCodecError.self, "\(broken)") { try XMLReader.parse(Array(broken.utf8)) }
        }
    }

    @Test func iptcDatasetsAndCharacterSets() {
        // 1:90 ESC % G, then 2:120 in UTF-8; an extended-length dataset; a truncated one.
        var iim: [UInt8] = [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47]
        let caption = Array("Zoë".utf8)
        iim += [0x1C, 2, 120, 0x80, 0x02, 0, UInt8(caption.count)] + caption
        iim += [0x1C, 2, 25, 0, 200, 0x41]
        #expect(IPTCReader.read(iim: iim[...]).caption == "Zoë")
        #expect(IPTCReader.read(iim: iim[...]).keywords.isEmpty)
        let latin: [UInt8] = [0x1C, 2, 120, 0, 3, 0x5A, 0x6F, 0xEB]
        #expect(IPTCReader.read(iim: latin[...]).caption == "Zoë")
        // Without 1:90: Windows-1252's curly quotes, euro sign and dash (as ExifTool reads
        // "Latin"), and UTF-8 recognised as such.
        let quoted: [UInt8] = [0x93, 0x41, 0x94, 0x20, 0x80, 0x35, 0x20, 0x96, 0x20, 0x42]
        let windows: [UInt8] = [0x1C, 2, 120, 0, UInt8(quoted.count)] + quoted
        #expect(IPTCReader.read(iim: windows[...]).caption == "\u{201C}A\u{201D} \u{20AC}5 \u{2013} B")
        let undeclaredUTF8: [UInt8] = [0x1C, 2, 120, 0, UInt8(caption.count)] + caption
        #expect(IPTCReader.read(iim: undeclaredUTF8[...]).caption == "Zoë")
    }
}
