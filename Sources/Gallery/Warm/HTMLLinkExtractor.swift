// Links a visitor's browser would follow or load from one HTML page: `<a href>` (and
// `<area href>`) for pages, `<img src/srcset>` and `<source srcset>` (inside `<picture>`) for
// images, and `<base href>`. A small tokenizer, not a full HTML5 parser: it knows quoted and
// unquoted attribute values, character references, comments, and that `<script>`/`<style>`
// bodies hold no tags. That is what the gallery's pages (and most hand-written ones) need;
// a page the tokenizer misreads only loses links, never crashes the warmer.

/// The raw (undecoded-relative, entity-decoded) link texts of one HTML page.
public struct HTMLLinks: Sendable, Equatable {
    /// `href` of `<a>` and `<area>`, in document order.
    public var pages: [String] = []
    /// Every `src` and every `srcset` candidate URL of `<img>` and `<source>`, in document order.
    public var images: [String] = []
    /// The first `<base href>`, if any: relative links resolve against it.
    public var base: String?

    public init(pages: [String] = [], images: [String] = [], base: String? = nil) {
        self.pages = pages
        self.images = images
        self.base = base
    }
}

public enum HTMLLinkExtractor {
    /// The links in `html` (UTF-8 bytes).
    public static func links(in html: [UInt8]) -> HTMLLinks {
        var out = HTMLLinks()
        var i = 0
        let n = html.count
        while i < n {
            guard html[i] == UInt8(ascii: "<"), i + 1 < n else { i += 1; continue }
            if starts(html, at: i, with: "<!--") {
                i = find(html, "-->", from: i + 4).map { $0 + 3 } ?? n
                continue
            }
            guard isLetter(html[i + 1]) else {
                // End tags, <!DOCTYPE>, <?...?>: skip to the closing '>'.
                i = find(html, ">", from: i + 1).map { $0 + 1 } ?? n
                continue
            }
            var tag = Tag()
            i = readTag(html, from: i + 1, into: &tag)
            collect(tag, into: &out)
            if !tag.selfClosing, tag.name == "script" || tag.name == "style" || tag.name == "textarea" || tag.name == "title" {
                // Raw text: nothing inside is a tag.
                i = findCaseless(html, "</" + tag.name, from: i) ?? n
            }
        }
        return out
    }

    /// The URLs of a `srcset` value, without their width/density descriptors (WHATWG HTML's
    /// "parse a srcset attribute": a URL is a run of non-space characters; trailing commas end
    /// the candidate; descriptors run to the next comma outside parentheses).
    public static func srcsetURLs(_ value: String) -> [String] {
        let s = Array(value.utf8)
        var urls: [String] = []
        var i = 0
        while i < s.count {
            while i < s.count, isSpace(s[i]) || s[i] == UInt8(ascii: ",") { i += 1 }
            guard i < s.count else { break }
            let start = i
            while i < s.count, !isSpace(s[i]) { i += 1 }
            var end = i
            var endsCandidate = false
            while end > start, s[end - 1] == UInt8(ascii: ",") { end -= 1; endsCandidate = true }
            if end > start { urls.append(String(decoding: s[start..<end], as: UTF8.self)) }
            if endsCandidate { continue }
            var depth = 0
            while i < s.count {
                let c = s[i]
                if c == UInt8(ascii: "(") { depth += 1 } else if c == UInt8(ascii: ")") { depth = max(0, depth - 1) }
                else if c == UInt8(ascii: ","), depth == 0 { break }
                i += 1
            }
        }
        return urls
    }

    // MARK: - Tokenizer

    private struct Tag {
        var name = ""
        var attributes: [(String, String)] = []
        var selfClosing = false
        func value(_ name: String) -> String? { attributes.first { $0.0 == name }?.1 }
    }

    private static func collect(_ tag: Tag, into out: inout HTMLLinks) {
        switch tag.name {
        case "a", "area":
            if let href = tag.value("href") { out.pages.append(href) }
        case "img", "source":
            // `<source src>` belongs to <video>/<audio>: media, not an image a page shows.
            if tag.name == "img", let src = tag.value("src") { out.images.append(src) }
            if let srcset = tag.value("srcset") { out.images += srcsetURLs(srcset) }
        case "base":
            if out.base == nil, let href = tag.value("href") { out.base = href }
        default:
            break
        }
    }

    /// Reads a start tag whose name begins at `from`; returns the index after its '>'.
    private static func readTag(_ s: [UInt8], from: Int, into tag: inout Tag) -> Int {
        var i = from
        let n = s.count
        let nameStart = i
        while i < n, !isSpace(s[i]), s[i] != UInt8(ascii: ">"), s[i] != UInt8(ascii: "/") { i += 1 }
        tag.name = String(decoding: s[nameStart..<i], as: UTF8.self).lowercased()
        while i < n {
            while i < n, isSpace(s[i]) { i += 1 }
            guard i < n else { break }
            if s[i] == UInt8(ascii: ">") { return i + 1 }
            if s[i] == UInt8(ascii: "/") {
                i += 1
                if i < n, s[i] == UInt8(ascii: ">") { tag.selfClosing = true; return i + 1 }
                continue
            }
            let attrStart = i
            while i < n, !isSpace(s[i]), s[i] != UInt8(ascii: "="), s[i] != UInt8(ascii: ">"),
                  !(s[i] == UInt8(ascii: "/") && i + 1 < n && s[i + 1] == UInt8(ascii: ">")) { i += 1 }
            let name = String(decoding: s[attrStart..<i], as: UTF8.self).lowercased()
            while i < n, isSpace(s[i]) { i += 1 }
            var value = ""
            if i < n, s[i] == UInt8(ascii: "=") {
                i += 1
                while i < n, isSpace(s[i]) { i += 1 }
                if i < n, s[i] == UInt8(ascii: "\"") || s[i] == UInt8(ascii: "'") {
                    let quote = s[i]
                    let valueStart = i + 1
                    i = valueStart
                    while i < n, s[i] != quote { i += 1 }
                    value = decodeEntities(s[valueStart..<min(i, n)])
                    if i < n { i += 1 }
                } else {
                    let valueStart = i
                    while i < n, !isSpace(s[i]), s[i] != UInt8(ascii: ">") { i += 1 }
                    value = decodeEntities(s[valueStart..<i])
                }
            }
            if !name.isEmpty, !tag.attributes.contains(where: { $0.0 == name }) { tag.attributes.append((name, value)) }
        }
        return n
    }

    /// Character references in an attribute value: `&amp;` and the other XML ones, decimal and
    /// hex numeric references; an unknown or unterminated reference stays as written.
    static func decodeEntities(_ s: ArraySlice<UInt8>) -> String {
        guard s.contains(UInt8(ascii: "&")) else { return String(decoding: s, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i < s.endIndex {
            guard s[i] == UInt8(ascii: "&"),
                  let semi = s[i..<min(s.endIndex, i + 12)].firstIndex(of: UInt8(ascii: ";")) else {
                out.append(s[i]); i += 1; continue
            }
            let name = String(decoding: s[(i + 1)..<semi], as: UTF8.self)
            var scalar: Unicode.Scalar?
            switch name {
            case "amp": scalar = "&"
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                }
            }
            guard let scalar else { out.append(s[i]); i += 1; continue }
            out += Array(String(Character(scalar)).utf8)
            i = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z")
    }

    private static func starts(_ s: [UInt8], at i: Int, with text: String) -> Bool {
        let t = Array(text.utf8)
        return i + t.count <= s.count && s[i..<(i + t.count)].elementsEqual(t)
    }

    private static func find(_ s: [UInt8], _ text: String, from: Int) -> Int? {
        let t = Array(text.utf8)
        var i = from
        while i + t.count <= s.count {
            if s[i] == t[0], s[i..<(i + t.count)].elementsEqual(t) { return i }
            i += 1
        }
        return nil
    }

    private static func findCaseless(_ s: [UInt8], _ text: String, from: Int) -> Int? {
        let t = Array(text.lowercased().utf8)
        var i = from
        while i + t.count <= s.count {
            var k = 0
            while k < t.count, (isLetter(s[i + k]) ? s[i + k] | 0x20 : s[i + k]) == t[k] { k += 1 }
            if k == t.count { return i }
            i += 1
        }
        return nil
    }
}
