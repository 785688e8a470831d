import Foundation
import Testing
@testable import Gallery

/// The query language: what the parser makes of what people type, hostile input included,
/// and the SQL it becomes (user text only as bound values, every FTS term quoted).
@Suite struct SearchQueryTests {
    typealias Q = SearchQuery

    @Test func wordsPrefixesAndPhrases() {
        let q = Q(parsing: #"beach keyword:"summer day" -rain person:Ada place:Zürich camera:canon album:trips file:IMG_1 be"#)
        #expect(q.clauses == [
            .words(field: .any, text: "beach", prefix: false, excluded: false),
            .words(field: .keyword, text: "summer day", prefix: false, excluded: false),
            .words(field: .any, text: "rain", prefix: false, excluded: true),
            .words(field: .person, text: "Ada", prefix: false, excluded: false),
            .words(field: .place, text: "Zürich", prefix: false, excluded: false),
            .words(field: .camera, text: "canon", prefix: false, excluded: false),
            .words(field: .album, text: "trips", prefix: false, excluded: false),
            .words(field: .file, text: "IMG_1", prefix: false, excluded: false),
            .words(field: .any, text: "be", prefix: true, excluded: false),
        ])
        #expect(q.ignored.isEmpty)
        // A finished last word (a space after it) is no prefix; nor is a phrase.
        #expect(Q(parsing: "beach ").clauses == [.words(field: .any, text: "beach", prefix: false, excluded: false)])
        #expect(Q(parsing: #""beach""#).clauses == [.words(field: .any, text: "beach", prefix: false, excluded: false)])
        // Prefix names are case-insensitive; an unknown one is text.
        #expect(Q(parsing: "Keyword:x ").clauses == [.words(field: .keyword, text: "x", prefix: false, excluded: false)])
        #expect(Q(parsing: "foo:bar ").clauses == [.words(field: .any, text: "foo:bar", prefix: false, excluded: false)])
    }

    @Test func filters() {
        let q = Q(parsing: "type:video -type:live rating>=4 date:2024 date:2024-07 date:2019..2021 -date:2020-02-29 rating:3")
        #expect(q.clauses == [
            .type(.video, excluded: false), .type(.live, excluded: true), .rating(atLeast: 4, excluded: false),
            .date(from: "2024", until: "2025", excluded: false), .date(from: "2024:07", until: "2024:08", excluded: false),
            .date(from: "2019", until: "2022", excluded: false), .date(from: "2020:02:29", until: "2020:02:30", excluded: true),
            .rating(atLeast: 3, excluded: false),
        ])
        // December's end sorts after every December date and before the next year.
        #expect(Q(parsing: "date:2024-12").clauses == [.date(from: "2024:12", until: "2024:13", excluded: false)])
        #expect("2024:12:31 23:59:59" < "2024:13" && "2024:13" < "2025:01:01 00:00:00")
        for bad in ["type:gif", "rating>=6", "rating>=x", "date:24", "date:2024-13", "date:2024-07-32", "date:2021..2019", "date:1..2",
                    "date:2024-7-1x", "date:", "date:..", "date:2019..2020..2021"] {
            let parsed = Q(parsing: bad)
            #expect(parsed.clauses.isEmpty && parsed.ignored == [bad], "\(bad)")
        }
    }

    @Test func hostileInput() {
        // Unbalanced quotes run to the end.
        #expect(Q(parsing: #"keyword:"beach day"#).clauses == [.words(field: .keyword, text: "beach day", prefix: false, excluded: false)])
        #expect(Q(parsing: #"""#).clauses.isEmpty)
        #expect(Q(parsing: #"a"b"#).clauses.count == 2)
        // FTS syntax characters are text, and terms without a letter or digit are left out.
        let fts = Q(parsing: #"* ^ : NEAR(a b) ( ) {title}:x "" - -- col:"#)
        #expect(fts.clauses.allSatisfy { if case .words = $0 { return true } else { return false } })
        #expect(fts.ignored.contains("*") && fts.ignored.contains("^") && fts.ignored.contains(":"))
        // Ten kilobytes: refused whole, nothing parsed.
        let long = Q(parsing: String(repeating: "word ", count: 2048))
        #expect(long.tooLong && long.clauses.isEmpty)
        // At most 16 clauses.
        let many = Q(parsing: (1...40).map { "w\($0)" }.joined(separator: " "))
        #expect(many.clauses.count == Q.maxClauses && many.ignored.count == 24)
        // Control characters, NULs and odd scalars do not trap.
        _ = Q(parsing: "\u{0}\u{1}\"\u{FEFF}-\u{202E}type:\u{0}")
        // A NUL separates terms (FTS5 would stop reading its expression there; fuzz-request found it).
        #expect(Q(parsing: "a\u{0}b").clauses.count == 2)
        #expect(SearchSQL.ftsTerm(field: .any, text: "a\u{0}b", prefix: false) == #""a b""#)
        _ = Q(parsing: "-\"")
        _ = Q(parsing: "- \"")
    }

    @Test func sqlBindsEveryUserText() {
        let q = Q(parsing: #"beach" OR 1=1; DROP TABLE photos; -- keyword:"x"" NEAR ^ date:2024 -rain rating>=2 be"#)
        let statement = SearchSQL(q, albums: ["Trips", "a'b"])
        for sql in [statement.rowsSQL, statement.countSQL(limit: 10)] {
            #expect(!sql.contains("DROP") && !sql.contains("beach") && !sql.contains("a'b"))
        }
        let texts = statement.values.compactMap { value -> String? in if case .text(let t) = value { return t } else { return nil } }
        let match = texts[0]
        // Every term is a quoted FTS string: an even number of quotes, doubled inside.
        #expect(match.filter { $0 == "\"" }.count % 2 == 0)
        #expect(match.hasPrefix(#""beach" AND "#))
        #expect(match.hasSuffix(#""be" *"#))
        #expect(SearchSQL.ftsTerm(field: .keyword, text: #"a"b"#, prefix: false) == #"{keyword} : "a""b""#)
    }
}
