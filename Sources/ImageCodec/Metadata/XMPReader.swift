/// Reads the descriptive fields of an XMP packet (RDF/XML) into `ImageText`. Properties may be
/// written as attributes of `rdf:Description` (`dc:title="..."`, exiftool's and darktable's
/// shorthand) or as elements; arrays as `rdf:Bag`, `rdf:Seq` or `rdf:Alt`; structures as
/// `rdf:parseType="Resource"`, a nested `rdf:Description` or attributes of the property
/// element, as Lightroom, darktable, digiKam and exiftool write them.
public enum XMPReader {
    /// What one packet says: its text fields and, for a JPEG's main packet, the GUID of the
    /// extended XMP it names (`xmpNote:HasExtendedXMP`).
    public struct Packet: Sendable, Equatable {
        public var text: ImageText
        public var extendedGUID: String?
    }

    /// Parses `bytes` (UTF-8 XML). Throws when the XML breaks a rule of `XMLReader` or a limit.
    public static func read(_ bytes: [UInt8], limits: XMLLimits = XMLLimits()) throws(ImageCodecError) -> Packet {
        let roots = try XMLReader.parse(bytes, limits: limits)
        var properties: [Property] = []
        for root in roots { collect(root, into: &properties) }
        return packet(properties)
    }

    /// `read`, with any failure giving empty text (metadata damage never hides an image).
    public static func text(_ bytes: [UInt8], limits: XMLLimits = XMLLimits()) -> Packet {
        (try? read(bytes, limits: limits)) ?? Packet(text: ImageText(), extendedGUID: nil)
    }

    enum NS {
        static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
        static let xml = "http://www.w3.org/XML/1998/namespace"
        static let dc = "http://purl.org/dc/elements/1.1/"
        static let xmp = "http://ns.adobe.com/xap/1.0/"
        static let xmpNote = "http://ns.adobe.com/xmp/note/"
        static let lr = "http://ns.adobe.com/lightroom/1.0/"
        static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
        static let iptcCore = "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"
        static let iptcExt = "http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
        static let mwgRS = "http://www.metadataworkinggroup.com/schemas/regions/"
        static let mp = "http://ns.microsoft.com/photo/1.2/"
        static let mpri = "http://ns.microsoft.com/photo/1.2/t/RegionInfo#"
        static let mpreg = "http://ns.microsoft.com/photo/1.2/t/Region#"
    }

    /// An RDF property value: a literal, an array (Alt items with `x-default` first), or a structure.
    indirect enum Value {
        case text(String)
        case array([Value])
        case structure([Property])

        /// Every literal inside, in order (a structure's fields are not literals of the property).
        var strings: [String] {
            switch self {
            case .text(let s): return [s]
            case .array(let items): return items.flatMap(\.strings)
            case .structure: return []
            }
        }

        var items: [Value] {
            if case .array(let items) = self { return items }
            return [self]
        }

        func field(_ uri: String, _ local: String) -> Value? {
            guard case .structure(let fields) = self else { return nil }
            return fields.first { $0.uri == uri && $0.local == local }?.value
        }
    }

    struct Property {
        let uri: String
        let local: String
        let value: Value
    }

    /// Properties of every `rdf:Description` under `element`, first occurrence first.
    private static func collect(_ element: XMLElement, into properties: inout [Property]) {
        if element.uri == NS.rdf && element.local == "Description" {
            properties += fields(of: element)
            return
        }
        for child in element.children { collect(child, into: &properties) }
    }

    /// A node's properties: its attributes outside the RDF and XML namespaces, then its child
    /// elements.
    private static func fields(of node: XMLElement) -> [Property] {
        var out: [Property] = []
        for a in node.attributes where a.uri != NS.rdf && a.uri != NS.xml && !a.uri.isEmpty {
            out.append(Property(uri: a.uri, local: a.local, value: .text(a.value)))
        }
        for child in node.children {
            out.append(Property(uri: child.uri, local: child.local, value: value(of: child)))
        }
        return out
    }

    private static func value(of property: XMLElement) -> Value {
        if let container = property.children.first(where: { $0.uri == NS.rdf && ["Bag", "Seq", "Alt"].contains($0.local) }) {
            let items = container.children.filter { $0.uri == NS.rdf && $0.local == "li" }
            var defaults: [Value] = [], others: [Value] = []
            for li in items {
                let v = value(of: li)
                if container.local == "Alt" && li.attribute(NS.xml, "lang")?.lowercased() == "x-default" { defaults.append(v) } else { others.append(v) }
            }
            return .array(defaults + others)
        }
        if property.attribute(NS.rdf, "parseType") == "Resource" { return .structure(fields(of: property)) }
        if let description = property.children.first(where: { $0.uri == NS.rdf && $0.local == "Description" }) {
            return .structure(fields(of: description))
        }
        if let resource = property.attribute(NS.rdf, "resource") { return .text(resource) }
        let shorthand = fields(of: property)
        if !shorthand.isEmpty { return .structure(shorthand) }
        return .text(property.text)
    }

    private static func packet(_ properties: [Property]) -> Packet {
        func first(_ uri: String, _ local: String) -> Value? {
            properties.first { $0.uri == uri && $0.local == local }?.value
        }
        func string(_ uri: String, _ local: String) -> String? {
            first(uri, local)?.strings.lazy.compactMap(MetadataText.clean).first
        }
        var text = ImageText()
        text.title = string(NS.dc, "title")
        text.caption = string(NS.dc, "description")
        text.keywords = MetadataText.list((first(NS.dc, "subject")?.strings ?? []) + (first(NS.lr, "hierarchicalSubject")?.strings ?? []))
        text.rating = string(NS.xmp, "Rating").flatMap(rating)
        text.label = string(NS.xmp, "Label")
        let creators = MetadataText.list(first(NS.dc, "creator")?.strings ?? [])
        text.creator = creators.isEmpty ? nil : creators.joined(separator: ", ")
        text.copyright = string(NS.dc, "rights")
        text.people = MetadataText.list(people(first))
        var places: [String] = []
        for (uri, local) in [(NS.iptcCore, "Location"), (NS.photoshop, "City"), (NS.photoshop, "State"), (NS.photoshop, "Country")] {
            places += first(uri, local)?.strings ?? []
        }
        for shown in first(NS.iptcExt, "LocationShown")?.items ?? [] {
            for local in ["Sublocation", "City", "ProvinceState", "CountryName"] {
                places += shown.field(NS.iptcExt, local)?.strings ?? []
            }
        }
        text.places = MetadataText.list(places)
        return Packet(text: text, extendedGUID: string(NS.xmpNote, "HasExtendedXMP"))
    }

    /// MWG-RS face regions (Type Face or none), Microsoft Photo region names, PersonInImage.
    private static func people(_ first: (String, String) -> Value?) -> [String] {
        var names: [String] = []
        for region in first(NS.mwgRS, "Regions")?.field(NS.mwgRS, "RegionList")?.items ?? [] {
            let type = region.field(NS.mwgRS, "Type")?.strings.first
            guard type == nil || type == "Face" else { continue }
            names += region.field(NS.mwgRS, "Name")?.strings ?? []
        }
        for region in first(NS.mp, "RegionInfo")?.field(NS.mpri, "Regions")?.items ?? [] {
            names += region.field(NS.mpreg, "PersonDisplayName")?.strings ?? []
        }
        names += first(NS.iptcExt, "PersonInImage")?.strings ?? []
        return names
    }

    /// "3", "3.0", "-1": rounded and kept within -1...5.
    private static func rating(_ s: String) -> Int? {
        guard let v = Double(s), v.isFinite else { return nil }
        return Int(min(5, max(-1, v.rounded())))
    }
}
