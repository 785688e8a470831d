import Foundation
import ImagePipeline

/// A `SearchQuery` as SQL over the library index with its bound values. User text reaches
/// SQLite only as bound parameters, and reaches FTS5 only inside a MATCH expression in which
/// every term is a double-quoted string (inner quotes doubled), so no FTS operator (`NEAR`,
/// `*`, `^`, `:`, `AND`, parentheses) typed by a user is ever an operator.
///
/// Rows come newest first by walking ids in descending order (`search_rows` ids sort like the
/// date taken, and are the FTS rowids), so a page reads its own rows and those before it,
/// never every match: `date:` ranges are id ranges, and the count is a separate statement that
/// stops after `countLimit` rows.
struct SearchSQL {
    /// The tables, conditions and their values (the MATCH expression first, when there is one).
    var from: String
    var conditions: [String]
    var values: [SQLValue]
    /// The id the rows are walked by: the FTS rowid when words drive the query.
    var key: String
    /// `type:` clauses the index cannot answer (raw and live come from the catalog's items).
    var catalogTypes: [(type: SearchQuery.MediaType, excluded: Bool)]

    /// Rows read at most when the catalog must filter them (`type:raw`, `type:live`).
    static let maxRows = 20_000

    /// `albums`, when given, limits rows to those folders (the request's view).
    init(_ query: SearchQuery, albums: [String]?) {
        var included: [String] = []
        var excluded: [String] = []
        conditions = ["p.failure IS NULL"]
        var conditionValues: [SQLValue] = []
        catalogTypes = []
        var ranges: [(from: String, until: String)] = []
        for clause in query.clauses {
            switch clause {
            case .words(let field, let text, let prefix, let isExcluded):
                let term = Self.ftsTerm(field: field, text: text, prefix: prefix)
                if isExcluded { excluded.append(term) } else { included.append(term) }
            case .type(let type, let isExcluded):
                if let condition = Self.typeCondition(type, excluded: isExcluded) {
                    conditions.append(condition)
                } else {
                    catalogTypes.append((type, isExcluded))
                }
            case .rating(let n, let isExcluded):
                conditions.append(isExcluded ? "coalesce(p.rating, 0) < ?" : "p.rating >= ?")
                conditionValues.append(.int(n))
            case .date(let from, let until, let isExcluded):
                if isExcluded {
                    conditions.append("(p.date_taken IS NULL OR p.date_taken < ? OR p.date_taken >= ?)")
                    conditionValues += [.text(from), .text(until)]
                } else {
                    ranges.append((from, until))
                }
            }
        }
        key = included.isEmpty ? "s.id" : "f.rowid"
        // Ids sort like dates: a date range is an id range, which the id's B-tree (or FTS5's
        // rowid order) seeks to instead of testing each row.
        for range in ranges {
            conditions.append("\(key) >= ? AND \(key) < ?")
            conditionValues += [.int(LibraryIndex.dateRowID(range.from)), .int(LibraryIndex.dateRowID(range.until))]
        }
        if let albums {
            conditions.append("p.album IN (SELECT value FROM json_each(?))")
            conditionValues.append(.text(Self.jsonArray(albums)))
        }
        if !excluded.isEmpty {
            conditions.append("s.id NOT IN (SELECT rowid FROM photos_fts WHERE photos_fts MATCH ?)")
            conditionValues.append(.text(excluded.joined(separator: " OR ")))
        }
        if included.isEmpty {
            from = "search_rows s CROSS JOIN photos p ON p.path = s.path"
            values = conditionValues
        } else {
            from = "photos_fts f CROSS JOIN search_rows s ON s.id = f.rowid CROSS JOIN photos p ON p.path = s.path"
            conditions.insert("photos_fts MATCH ?", at: 0)
            values = [.text(included.joined(separator: " AND "))] + conditionValues
        }
    }

    /// (path, name, format) of `limit` rows from `offset`, newest first.
    var rowsSQL: String {
        "SELECT p.path, p.name, p.format FROM \(from) WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(key) DESC LIMIT ? OFFSET ?"
    }

    /// The number of matching rows, counting no further than `limit`.
    func countSQL(limit: Int) -> String {
        "SELECT count(*) FROM (SELECT 1 FROM \(from) WHERE \(conditions.joined(separator: " AND ")) LIMIT \(limit))"
    }

    /// The condition for a type the index answers: photo and video by file name (as the grid's
    /// badge), animated by format (as `GalleryApp.isAnimation`), all three through
    /// `search_rows.kind`; nil for raw and live.
    /// (`kind = n` for a kind, so that the partial index on kinds applies; `IS NOT` for its
    /// opposite, which also holds where the kind is NULL.)
    static func typeCondition(_ type: SearchQuery.MediaType, excluded: Bool) -> String? {
        let kind: LibraryIndex.Kind, wanted: Bool
        switch type {
        case .video: (kind, wanted) = (.movie, !excluded)
        case .photo: (kind, wanted) = (.movie, excluded)
        case .animated: (kind, wanted) = (.animation, !excluded)
        case .raw, .live: return nil
        }
        return wanted ? "s.kind = \(kind.rawValue)" : "s.kind IS NOT \(kind.rawValue)"
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

    /// A JSON array of strings, for `json_each(?)`: written by hand, since a view's folder list
    /// (10,000 at a million photos) goes with every search and map request, and JSONEncoder
    /// took several milliseconds over it. Quotes, backslashes and control characters are escaped.
    static func jsonArray(_ strings: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(strings.reduce(2) { $0 + $1.utf8.count + 3 })
        let hex = Array("0123456789abcdef".utf8)
        for (n, string) in strings.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
                case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
}
}

/// One photo a search found: the index row's key, and what the type filters need.
public struct SearchHit: Sendable, Equatable {
    public var relativePath: String
    public var name: String
    public var format: String?
}

/// A page of search results and how many there are.
public struct SearchResults: Sendable, Equatable {
    /// The page's rows, newest first.
    public var hits: [SearchHit]
    /// Matching rows, counted up to the limit asked for.
    public var total: Int
    /// Whether more rows match than `total` says (the count stopped at its limit).
    public var more: Bool
}

extension LibraryIndex {
    /// The photos matching `query` from `offset` on, at most `limit`, newest first; limited to
    /// photos in `albums` (folders relative to the root) when given. Counted up to
    /// `countLimit`. `type:raw` and `type:live` are left to the caller. nil when the index failed.
    public func search(_ query: SearchQuery, albums: [String]? = nil, offset: Int, limit: Int, countLimit: Int) -> SearchResults? {
        search(SearchSQL(query, albums: albums), offset: offset, limit: limit, countLimit: countLimit)
    }

    func search(_ statement: SearchSQL, offset: Int, limit: Int, countLimit: Int) -> SearchResults? {
        read { db throws(SQLiteError) -> SearchResults in
            var hits: [SearchHit] = []
            try db.run(statement.rowsSQL, statement.values + [.int(limit), .int(offset)]) { row in
                hits.append(SearchHit(relativePath: row.text(0) ?? "", name: row.text(1) ?? "", format: row.text(2)))
            }
            guard countLimit > 0 else { return SearchResults(hits: hits, total: hits.count, more: false) }
            let counted = try db.scalar(statement.countSQL(limit: countLimit + 1), statement.values) ?? 0
            return SearchResults(hits: hits, total: min(counted, countLimit), more: counted > countLimit)
        }
    }

    /// The first `SearchSQL.maxRows` photos matching `query`, newest first (see the paged
    /// `search`).
    public func search(_ query: SearchQuery, albums: [String]? = nil) -> [SearchHit]? {
        search(query, albums: albums, offset: 0, limit: SearchSQL.maxRows, countLimit: 0)?.hits
    }
}
