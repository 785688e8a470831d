/// The bounds an XML document must stay within. Checked while reading, before anything grows
/// past them, so a hostile packet costs at most its own size in time and a small multiple of
/// it in memory.
public struct XMLLimits: Sendable, Equatable {
    /// Input size in bytes.
    public var maxBytes: Int
    /// Elements open at once.
    public var maxDepth: Int
    /// Elements in the whole document.
    public var maxElements: Int
    /// Bytes of one text run or attribute value (after entity decoding).
    public var maxTextBytes: Int
    /// Attributes (namespace declarations included) on one element.
    public var maxAttributes: Int

    public init(maxBytes: Int = 8 << 20, maxDepth: Int = 64, maxElements: Int = 200_000,
                maxTextBytes: Int = 1 << 20, maxAttributes: Int = 512) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxElements = maxElements
        self.maxTextBytes = maxTextBytes
        self.maxAttributes = maxAttributes
    }
}

/// An element with its namespace resolved: `uri` is the namespace name its prefix stands for.
struct XMLElement {
    var uri: String
    var local: String
    var attributes: [XMLAttribute] = []
    var children: [XMLElement] = []
    /// Character data directly inside the element (text and CDATA runs joined).
    var text = ""

    func attribute(_ uri: String, _ local: String) -> String? {
        attributes.first { $0.uri == uri && $0.local == local }?.value
    }
}

struct XMLAttribute {
    var uri: String
    var local: String
    var value: String
}

/// A strict, small XML reader for RDF/XMP packets: elements, attributes, character data,
/// CDATA, comments and processing instructions (skipped), the five predefined entities and
/// numeric character references. Anything starting `<!` other than a comment or CDATA (a
/// DOCTYPE, an ENTITY or ELEMENT declaration) is refused, and so is every other named entity,
/// so no entity is ever expanded and nothing outside the bytes is ever fetched (no XXE, no
/// billion laughs). Each loop advances through the input; recursion is only over closed
/// elements, at most `maxDepth` deep.
struct XMLReader {
    private let b: [UInt8]
    private let limits: XMLLimits
    private var pos = 0
    private var elements = 0
    /// In-scope namespace declarations, innermost last: (prefix, uri); "" is the default.
    private var scopes: [(prefix: String, uri: String)] = [("xml", "http://www.w3.org/XML/1998/namespace")]

    /// The top-level elements of `bytes` (an XMP packet has one, `x:xmpmeta` or `rdf:RDF`).
    static func parse(_ bytes: [UInt8], limits: XMLLimits = XMLLimits()) throws(ImageCodecError) -> [XMLElement] {
        guard bytes.count <= limits.maxBytes else {
            throw ImageCodecError(.limitExceeded, "XML of \(bytes.count) bytes exceeds \(limits.maxBytes)")
        }
        var reader = XMLReader(b: bytes, limits: limits)
        return try reader.document()
    }

    private init(b: [UInt8], limits: XMLLimits) {
        self.b = b
        self.limits = limits
    }

    private mutating func document() throws(ImageCodecError) -> [XMLElement] {
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        // Open elements with the number of namespace declarations each pushed.
        var stack: [(element: XMLElement, qname: [UInt8], declared: Int)] = []
        var roots: [XMLElement] = []
        var text: [UInt8] = []
        while pos < b.count {
            if b[pos] != 0x3C {
                try readText(into: &text)
                if stack.isEmpty { text.removeAll(keepingCapacity: true) }
                continue
            }
            if starts("<!--") {
                try skip(past: "-->")
            } else if starts("<![CDATA[") {
                pos += 9
                let start = pos
                try skip(past: "]]>")
                guard !stack.isEmpty else { throw Self.error("CDATA outside the root element") }
                text.append(contentsOf: b[start..<(pos - 3)])
                try checkText(text.count)
            } else if starts("<!") {
                throw ImageCodecError(.unsupported, "XML declarations (DOCTYPE, ENTITY) are refused")
            } else if starts("<?") {
                try skip(past: "?>")
            } else if starts("</") {
                pos += 2
                let name = readName()
                skipSpace()
                guard pos < b.count, b[pos] == 0x3E else { throw Self.error("bad end tag") }
                pos += 1
                guard let open = stack.popLast(), open.qname == name else { throw Self.error("mismatched end tag") }
                var element = open.element
                flush(&text, into: &element)
                scopes.removeLast(open.declared)
                if stack.isEmpty { roots.append(element) } else { stack[stack.count - 1].element.children.append(element) }
            } else {
                if !stack.isEmpty { flush(&text, into: &stack[stack.count - 1].element) }
                let (element, qname, declared, empty) = try readStartTag()
                if empty {
                    scopes.removeLast(declared)
                    if stack.isEmpty { roots.append(element) } else { stack[stack.count - 1].element.children.append(element) }
                } else {
                    guard stack.count < limits.maxDepth else {
                        throw ImageCodecError(.limitExceeded, "XML nested deeper than \(limits.maxDepth) elements")
                    }
                    stack.append((element, qname, declared))
                }
            }
        }
        guard stack.isEmpty else { throw ImageCodecError(.truncated, "XML ends inside an element") }
        guard !roots.isEmpty else { throw Self.error("no XML element") }
        return roots
    }

    private static func error(_ what: String) -> ImageCodecError { ImageCodecError(.corrupt, "XML: \(what)") }

    private func starts(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard b.count - pos >= n else { return false }
        let p = s.utf8Start
        for i in 0..<n where b[pos + i] != p[i] { return false }
        return true
    }

    /// Moves past the next `terminator`; the input must hold one.
    private mutating func skip(past terminator: StaticString) throws(ImageCodecError) {
        while pos < b.count {
            if starts(terminator) {
                pos += terminator.utf8CodeUnitCount
                return
            }
            pos += 1
        }
        throw ImageCodecError(.truncated, "XML ends inside a comment, CDATA section or instruction")
    }

    private func checkText(_ count: Int) throws(ImageCodecError) {
        guard count <= limits.maxTextBytes else {
            throw ImageCodecError(.limitExceeded, "XML text longer than \(limits.maxTextBytes) bytes")
        }
    }

    private func flush(_ text: inout [UInt8], into element: inout XMLElement) {
        guard !text.isEmpty else { return }
        element.text += String(decoding: text, as: UTF8.self)
        text.removeAll(keepingCapacity: true)
    }

    /// Character data up to the next `<`, entities decoded.
    private mutating func readText(into text: inout [UInt8]) throws(ImageCodecError) {
        while pos < b.count, b[pos] != 0x3C {
            if b[pos] == 0x26 { try readReference(into: &text) } else { text.append(b[pos]); pos += 1 }
            try checkText(text.count)
        }
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private static func isNameByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x3A, 0x2D, 0x2E: return true
        default: return c >= 0x80
        }
    }

    private mutating func skipSpace() { while pos < b.count, Self.isSpace(b[pos]) { pos += 1 } }

    private mutating func readName() -> [UInt8] {
        let start = pos
        while pos < b.count, Self.isNameByte(b[pos]) { pos += 1 }
        return Array(b[start..<pos])
    }

    /// `&amp;` and the other four, `&#N;`, `&#xH;`; any other reference is refused.
    private mutating func readReference(into out: inout [UInt8]) throws(ImageCodecError) {
        pos += 1
        let start = pos
        while pos < b.count, pos - start < 12, b[pos] != 0x3B { pos += 1 }
        guard pos < b.count, b[pos] == 0x3B else { throw Self.error("unterminated entity reference") }
        let name = b[start..<pos]
        pos += 1
        switch String(decoding: name, as: UTF8.self) {
        case "amp": out.append(0x26)
        case "lt": out.append(0x3C)
        case "gt": out.append(0x3E)
        case "quot": out.append(0x22)
        case "apos": out.append(0x27)
        case let n where n.hasPrefix("#"):
            let hex = n.hasPrefix("#x")
            guard let v = UInt32(n.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10), v != 0,
                  let scalar = Unicode.Scalar(v) else { throw Self.error("bad character reference &\(n);") }
            out.append(contentsOf: String(scalar).utf8)
        default:
            throw ImageCodecError(.unsupported, "XML entity references other than the predefined five are refused")
        }
    }

    /// `<name attr="v" ...>` or `/>`, with its namespace declarations pushed on `scopes`.
    private mutating func readStartTag() throws(ImageCodecError) -> (XMLElement, [UInt8], Int, Bool) {
        pos += 1
        let qname = readName()
        guard !qname.isEmpty else { throw Self.error("bad start tag") }
        elements += 1
        guard elements <= limits.maxElements else {
            throw ImageCodecError(.limitExceeded, "XML of more than \(limits.maxElements) elements")
        }
        var raw: [(name: [UInt8], value: String)] = []
        var declared = 0
        var empty = false
        while true {
            let hadSpace = pos < b.count && Self.isSpace(b[pos])
            skipSpace()
            guard pos < b.count else { throw ImageCodecError(.truncated, "XML ends inside a start tag") }
            if b[pos] == 0x3E { pos += 1; break }
            if b[pos] == 0x2F {
                guard pos + 1 < b.count, b[pos + 1] == 0x3E else { throw Self.error("bad empty-element tag") }
                pos += 2
                empty = true
                break
            }
            guard hadSpace else { throw Self.error("attributes must be separated by white space") }
            let name = readName()
            skipSpace()
            guard !name.isEmpty, pos < b.count, b[pos] == 0x3D else { throw Self.error("bad attribute") }
            pos += 1
            skipSpace()
            guard pos < b.count, b[pos] == 0x22 || b[pos] == 0x27 else { throw Self.error("unquoted attribute value") }
            let quote = b[pos]
            pos += 1
            var value: [UInt8] = []
            while pos < b.count, b[pos] != quote {
                guard b[pos] != 0x3C else { throw Self.error("'<' in an attribute value") }
                if b[pos] == 0x26 { try readReference(into: &value) } else { value.append(Self.isSpace(b[pos]) ? 0x20 : b[pos]); pos += 1 }
                try checkText(value.count)
            }
            guard pos < b.count else { throw ImageCodecError(.truncated, "XML ends inside an attribute value") }
            pos += 1
            guard raw.count < limits.maxAttributes else {
                throw ImageCodecError(.limitExceeded, "XML element with more than \(limits.maxAttributes) attributes")
            }
            guard !raw.contains(where: { $0.name == name }) else { throw Self.error("repeated attribute") }
            let text = String(decoding: value, as: UTF8.self)
            if name == Array("xmlns".utf8) {
                scopes.append(("", text)); declared += 1
            } else if name.starts(with: Array("xmlns:".utf8)) {
                scopes.append((String(decoding: name.dropFirst(6), as: UTF8.self), text)); declared += 1
            } else {
                raw.append((name, text))
            }
        }
        let (uri, local) = try resolve(qname, isAttribute: false)
        var element = XMLElement(uri: uri, local: local)
        for (name, value) in raw {
            let (u, l) = try resolve(name, isAttribute: true)
            element.attributes.append(XMLAttribute(uri: u, local: l, value: value))
        }
        return (element, qname, declared, empty)
    }

    /// The namespace name and local part of a qualified name. Unprefixed attributes have no
    /// namespace; an undeclared prefix is an error.
    private func resolve(_ qname: [UInt8], isAttribute: Bool) throws(ImageCodecError) -> (String, String) {
        let text = String(decoding: qname, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else {
            if isAttribute { return ("", text) }
            return (scopes.last { $0.prefix.isEmpty }?.uri ?? "", text)
        }
        let prefix = String(text[..<colon])
        guard let uri = scopes.last(where: { $0.prefix == prefix })?.uri else { throw Self.error("undeclared prefix \(prefix)") }
        return (uri, String(text[text.index(after: colon)...]))
    }
}
