import Foundation

/// A `SearchQuery` as one SQL statement over the library index with its bound values. User
/// text reaches SQLite only as bound parameters, and reaches FTS5 only inside a MATCH
/// expression in which every term is a double-quoted string (inner quotes doubled), so no
/// FTS operator (`NEAR`, `*`, `^`, `:`, `AND`, parentheses) typed by a user is ever an operator.
struct SearchSQL {
    var sql: String
    var values: [SQLValue]
    /// `type:` clauses, applied to the rows after the query (raw and live need the catalog).
    var types: [(type: SearchQuery.MediaType, excluded: Bool)]

    /// Rows read at most: a query matching more shows the newest this many.
    static let maxRows = 20_000

    /// The statement answering (path, name, format) rows, newest first, then by name.
    /// `albums`, when given, limits rows to those folders (a share link's view).
    init(_ query: SearchQuery, albums: [String]?) {
        var included: [String] = []
        var excluded: [String] = []
        var conditions = ["p.failure IS NULL"]
        var conditionValues: [SQLValue] = []
        types = []
        for clause in query.clauses {
            switch clause {
            case .words(let field, let text, let prefix, let isExcluded):
                let term = Self.ftsTerm(field: field, text: text, prefix: prefix)
                if isExcluded { excluded.append(term) } else { included.append(term) }
            case .type(let type, let isExcluded):
                types.append((type, isExcluded))
            case .rating(let n, let isExcluded):
                conditions.append(isExcluded ? "coalesce(p.rating, 0) < ?" : "p.rating >= ?")
                conditionValues.append(.int(n))
            case .date(let from, let until, let isExcluded):
                conditions.append(isExcluded ? "(p.date_taken IS NULL OR p.date_taken < ? OR p.date_taken >= ?)"
                                             : "(p.date_taken >= ? AND p.date_taken < ?)")
                conditionValues += [.text(from), .text(until)]
            }
        }
        if let albums {
            conditions.append("p.album IN (SELECT value FROM json_each(?))")
            conditionValues.append(.text(Self.jsonArray(albums)))
        }
        if !excluded.isEmpty {
            conditions.append("""
                p.path NOT IN (SELECT s.path FROM photos_fts JOIN search_rows s ON s.id = photos_fts.rowid \
                WHERE photos_fts MATCH ?)
                """)
            conditionValues.append(.text(excluded.joined(separator: " OR ")))
        }
        let columns = "p.path, p.name, p.format"
        let order = "ORDER BY p.date_taken IS NULL, p.date_taken DESC, p.name LIMIT \(Self.maxRows)"
        if included.isEmpty {
            sql = "SELECT \(columns) FROM photos p WHERE \(conditions.joined(separator: " AND ")) \(order)"
            values = conditionValues
        } else {
            // Driven by the FTS index: only the matching rows are looked up in `photos`.
            sql = """
                SELECT \(columns) FROM photos_fts JOIN search_rows s ON s.id = photos_fts.rowid JOIN photos p ON p.path = s.path \
                WHERE photos_fts MATCH ? AND \(conditions.joined(separator: " AND ")) \(order)
                """
            values = [.text(included.joined(separator: " AND "))] + conditionValues
        }
    }

    /// `"text"` with inner quotes doubled (an FTS5 string: a phrase of the words the tokenizer
    /// finds in it), `*` after it for a prefix, and the column filter `{column} :` before it.
    static func ftsTerm(field: SearchQuery.Field, text: String, prefix: Bool) -> String {
        // FTS5 reads the expression only up to a NUL: one inside a term would unbalance its quotes.
        let clean = text.replacingOccurrences(of: "\u{0}", with: " ").replacingOccurrences(of: "\"", with: "\"\"")
        let quoted = "\"" + clean + "\"" + (prefix ? " *" : "")
        switch field {
        case .any: return quoted
        case .keyword, .person, .place, .camera, .album, .file, .title, .caption: return "{\(field.rawValue)} : \(quoted)"
        }
    }

    /// A JSON array of strings, for `json_each(?)`.
    static func jsonArray(_ strings: [String]) -> String {
        let data = (try? JSONEncoder().encode(strings)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// One photo a search found: the index row's key, and what the type filters need.
public struct SearchHit: Sendable, Equatable {
    public var relativePath: String
    public var name: String
    public var format: String?
}

extension LibraryIndex {
    /// The photos matching `query`, newest first (then by name), at most `SearchSQL.maxRows`;
    /// limited to photos in `albums` (folders relative to the root) when given. Type filters
    /// that need the catalog (raw, live) are left to the caller. nil when the index failed.
    public func search(_ query: SearchQuery, albums: [String]? = nil) -> [SearchHit]? {
        let statement = SearchSQL(query, albums: albums)
        return read { db throws(SQLiteError) -> [SearchHit] in
            var hits: [SearchHit] = []
            try db.run(statement.sql, statement.values) { row in
                hits.append(SearchHit(relativePath: row.text(0) ?? "", name: row.text(1) ?? "", format: row.text(2)))
            }
            return hits
        }
    }
}
