import Foundation

/// A search as the user typed it, parsed into typed clauses (`/search?q=…`, docs/search.md).
///
/// The parser never fails: words it cannot use (an unknown `type:`, a malformed date, a term
/// with no letter or digit such as `*` or `^`) are left out and named in `ignored`, so the
/// page can say so. Nothing here is SQL or FTS syntax: `SearchSQL` quotes every term.
public struct SearchQuery: Equatable, Sendable {
    /// Which words a term is matched against: every searched column, or one of them.
    public enum Field: String, Sendable, CaseIterable {
        case any, keyword, person, place, camera, album, file, title, caption
    }

    /// `type:` values. Photo, video and animated come from the index row; raw and live from
    /// the catalog item (a raw companion or file, a Live Photo movie).
    public enum MediaType: String, Sendable, CaseIterable {
        case photo, video, raw, live, animated
    }

    /// One condition; `excluded` (a leading `-`) negates it.
    public enum Clause: Equatable, Sendable {
        /// Words of `field`: one word, or several as a phrase (quoted); `prefix` matches words
        /// starting with it (the last unquoted word of the query, as the user may still be typing).
        case words(field: Field, text: String, prefix: Bool, excluded: Bool)
        case type(MediaType, excluded: Bool)
        /// `rating>=N` (or `rating:N`): N from 0 to 5.
        case rating(atLeast: Int, excluded: Bool)
        /// `date:`: taken on or after `from` and before `until`, both "YYYY:MM:DD"-style
        /// prefixes compared as text with the index's "YYYY:MM:DD HH:MM:SS".
        case date(from: String, until: String, excluded: Bool)
    }

    public var clauses: [Clause]
    /// Parts of the query that were left out, as typed.
    public var ignored: [String]

    /// Longest query read, in bytes; longer ones are refused whole (`tooLong`).
    public static let maxBytes = 512
    /// Most clauses kept; the rest are ignored.
    public static let maxClauses = 16

    /// Whether the query was over `maxBytes` (and nothing of it was parsed).
    public var tooLong = false

    /// Whether any clause finds photos by themselves (a query of exclusions alone lists
    /// everything else, which is allowed; a query without clauses lists nothing).
    public var isEmpty: Bool { clauses.isEmpty }

    public init(clauses: [Clause] = [], ignored: [String] = []) {
        self.clauses = clauses
        self.ignored = ignored
    }

    /// Parses `text`. Terms are separated by white space; `"…"` groups words into a phrase (an
    /// unbalanced quote runs to the end); `-` before a term excludes it; `prefix:` before a
    /// term or phrase names its field.
    public init(parsing text: String) {
        self.init()
        guard text.utf8.count <= Self.maxBytes else {
            tooLong = true
            return
        }
        var lastWordIndex: Int?
        // Control characters (NUL above all: FTS5 reads a MATCH string only up to one) separate
        // terms like spaces; they are never part of a word.
        var cleaned = ""
        cleaned.unicodeScalars.append(contentsOf: text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 })
        for token in Self.tokens(cleaned) {
            guard clauses.count < Self.maxClauses else {
                ignored.append(token.raw)
                continue
            }
            guard let clause = Self.clause(token) else {
                ignored.append(token.raw)
                continue
            }
            if case .words(_, _, _, false) = clause, !token.quoted { lastWordIndex = clauses.count } else { lastWordIndex = nil }
            clauses.append(clause)
        }
        // Only when the query ends with that word: "beach " is a finished word.
        if let i = lastWordIndex, let last = cleaned.unicodeScalars.last, !last.properties.isWhitespace,
           case .words(let field, let words, _, let excluded) = clauses[i] {
            clauses[i] = .words(field: field, text: words, prefix: true, excluded: excluded)
        }
    }

    /// One term as typed: its exclusion mark, prefix (before the first `:` of an unquoted
    /// start), value, and whether the value was quoted.
    struct Token {
        var raw: String
        var excluded: Bool
        var prefix: String?
        var value: String
        var quoted: Bool
    }

    /// Prefixes that filter rather than name a field of words.
    static let filterNames: Set<String> = ["type", "date", "rating"]

    /// Splits the query into terms. A quote inside a word ends the word and starts a phrase.
    static func tokens(_ text: String) -> [Token] {
        var out: [Token] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            while i < scalars.count, scalars[i].properties.isWhitespace { i += 1 }
            guard i < scalars.count else { break }
            let start = i
            var token = Token(raw: "", excluded: false, prefix: nil, value: "", quoted: false)
            if scalars[i] == "-", i + 1 < scalars.count, !scalars[i + 1].properties.isWhitespace {
                token.excluded = true
                i += 1
            }
            var head = ""
            while i < scalars.count, !scalars[i].properties.isWhitespace, scalars[i] != "\"" {
                head.unicodeScalars.append(scalars[i])
                i += 1
                // The first "name:" of a known name is the prefix; any other colon is text.
                if scalars[i - 1] == ":", token.prefix == nil {
                    let name = String(head.dropLast()).lowercased()
                    if Field(rawValue: name) != nil || Self.filterNames.contains(name) {
                        token.prefix = name
                        head = ""
                    }
                }
            }
            if i < scalars.count, scalars[i] == "\"", head.isEmpty {
                token.quoted = true
                i += 1
                while i < scalars.count, scalars[i] != "\"" {
                    head.unicodeScalars.append(scalars[i])
                    i += 1
                }
                if i < scalars.count { i += 1 }
            }
            token.value = head
            var raw = ""
            raw.unicodeScalars.append(contentsOf: scalars[start..<i])
            token.raw = raw
            if !raw.isEmpty { out.append(token) }
            if i == start { i += 1 }
        }
        return out
    }

    static func clause(_ t: Token) -> Clause? {
        switch t.prefix {
        case "type":
            return MediaType(rawValue: t.value.lowercased()).map { .type($0, excluded: t.excluded) }
        case "date":
            return dateRange(t.value).map { .date(from: $0.from, until: $0.until, excluded: t.excluded) }
        case "rating":
            return rating(t.value.hasPrefix(">=") ? String(t.value.dropFirst(2)) : t.value).map { .rating(atLeast: $0, excluded: t.excluded) }
        default:
            // `rating>=N` has no colon.
            if t.prefix == nil, !t.quoted, t.value.lowercased().hasPrefix("rating>=") {
                return rating(String(t.value.dropFirst(8))).map { .rating(atLeast: $0, excluded: t.excluded) }
            }
            let field = t.prefix.flatMap(Field.init(rawValue:)) ?? .any
            let words = t.value.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            // A term with no letter or digit matches nothing the tokenizer keeps (`*`, `^`, `:`).
            guard words.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil }) else { return nil }
            return .words(field: field, text: words, prefix: false, excluded: t.excluded)
        }
    }

    static func rating(_ text: String) -> Int? {
        guard text.utf8.count == 1, let n = Int(text), (0...5).contains(n) else { return nil }
        return n
    }

    /// "2024", "2024-07", "2024-07-15", and ranges of them with "..": the half-open range of
    /// date texts, the end one past the last day, month or year named (as text: "2024:13"
    /// sorts after every day of 2024 and before "2025").
    static func dateRange(_ text: String) -> (from: String, until: String)? {
        let parts = text.components(separatedBy: "..")
        switch parts.count {
        case 1:
            guard let d = DatePrefix(parts[0]) else { return nil }
            return (d.text, d.next)
        case 2:
            guard let a = DatePrefix(parts[0]), let b = DatePrefix(parts[1]), a.text < b.next else { return nil }
            return (a.text, b.next)
        default:
            return nil
        }
    }

    /// A year, month or day as typed ("2024", "2024-07", "2024-07-15").
    struct DatePrefix {
        var numbers: [Int]

        init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...3).contains(parts.count) else { return nil }
            let widths = [4, 2, 2], ranges = [1000...9998, 1...12, 1...31]
            var numbers: [Int] = []
            for (i, part) in parts.enumerated() {
                guard (1...widths[i]).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let n = Int(part), ranges[i].contains(n), i > 0 || part.utf8.count == 4 else { return nil }
                numbers.append(n)
            }
            self.numbers = numbers
        }

        static func format(_ numbers: [Int]) -> String {
            numbers.enumerated().map { i, n in
                let s = String(n)
                return String(repeating: "0", count: max(0, (i == 0 ? 4 : 2) - s.count)) + s
            }.joined(separator: ":")
        }

        /// "2024:07": what dates of this prefix start with.
        var text: String { Self.format(numbers) }
        /// The first text after every date of this prefix.
        var next: String {
            var n = numbers
            n[n.count - 1] += 1
            return Self.format(n)
        }
    }
}
