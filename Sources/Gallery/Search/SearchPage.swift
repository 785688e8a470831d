import FastCGI
import ImagePipeline

/// `/search?q=…&page=N` (and `/s/<token>/search` under a share link): the photos of the
/// request's view that match the query, as an album-style grid with the viewer, and
/// `/search/photos?q=…&page=N`, the same pages as the viewer's JSON.
///
/// Privacy: the index knows every photo, private or not, so its rows are only candidates.
/// The SQL is limited to the folders of the request's view (the public view leaves private
/// albums out, a share link's view holds that album), so a private photo is never read, counted
/// or paged; every row read is then resolved to the item of the view
/// (`Catalog.item(relativePath:)`), and a row without one is not shown.
extension GalleryApp {
    /// Matches counted at most: a search matching more says "more than" this many, and its
    /// pages stop there. Counting is the one part of a search whose cost grows with the
    /// matches (a page reads 60 rows): 1,001 rows cost 2-15 ms at 100,000 photos on the loaded
    /// development machine, 10,001 rows 86-200 ms.
    static let searchCountLimit = 1_000

    /// What a search found in `catalog`'s view: one page of items, in order, how many match
    /// (up to `searchCountLimit`, `more` when there are more), and why the query could not run
    /// when it could not (shown on the page instead of results).
    struct SearchOutcome {
        var query: SearchQuery
        var items: [CatalogItem] = []
        var total = 0
        var more = false
        var problem: String?
    }

    /// The `page`th page (from 1) of the search `text` in `catalog`'s view.
    func runSearch(_ text: String, page: Int, catalog: Catalog) -> SearchOutcome {
        let query = SearchQuery(parsing: text)
        var outcome = SearchOutcome(query: query)
        if query.tooLong {
            outcome.problem = "That search is too long: use at most \(SearchQuery.maxBytes) characters."
            return outcome
        }
        guard !query.isEmpty else {
            outcome.problem = text.isEmpty ? nil : "Nothing in that search can be looked for: try words, or keyword:, date:2024, type:video."
            return outcome
        }
        guard let index else {
            outcome.problem = "Search needs the library index, which this gallery runs without."
            return outcome
        }
        let albums = viewFolders(catalog: catalog, below: catalog.rootID)
        let pageSize = configuration.pageSize
        let start = (page - 1) * pageSize
        let statement = SearchSQL(query, albums: albums)
        if statement.catalogTypes.isEmpty {
            guard let found = index.search(statement, offset: start, limit: pageSize, countLimit: Self.searchCountLimit) else {
                outcome.problem = "Search is not available right now; try again in a moment."
                return outcome
            }
            outcome.items = found.hits.compactMap { catalog.item(relativePath: $0.relativePath) }
            outcome.total = found.total
            outcome.more = found.more
            return outcome
        }
        // Raw and live are known to the catalog's items only: the rows are read (at most
        // `SearchSQL.maxRows`) and filtered here, then paged.
        guard let hits = index.search(statement, offset: 0, limit: SearchSQL.maxRows, countLimit: 0)?.hits else {
            outcome.problem = "Search is not available right now; try again in a moment."
            return outcome
        }
        let matching = hits.compactMap { hit -> CatalogItem? in
            guard let item = catalog.item(relativePath: hit.relativePath) else { return nil }
            for (type, excluded) in statement.catalogTypes where Self.isOfType(type, item: item, format: hit.format) == excluded { return nil }
            return item
        }
        outcome.total = min(matching.count, Self.searchCountLimit)
        outcome.more = matching.count > Self.searchCountLimit || hits.count == SearchSQL.maxRows
        outcome.items = Array(matching[min(matching.count, start)..<min(matching.count, start + pageSize, outcome.total)])
        return outcome
    }

    /// Whether the item is of `type`: photo and video by file name (as the grid's badge),
    /// animated by the index's format, raw by the file or its raw companion, live by its movie.
    static func isOfType(_ type: SearchQuery.MediaType, item: CatalogItem, format: String?) -> Bool {
        let name = item.fileName.lowercased()
        switch type {
        case .video: return ImageFiles.isMovie(name: item.fileName)
        case .photo: return !ImageFiles.isMovie(name: item.fileName)
        case .animated: return format.map(isAnimation) ?? false
        case .raw: return item.companion(.raw) != nil || ImageFiles.rawExtensions.contains { name.hasSuffix($0) }
        case .live: return item.companion(.live) != nil
        }
    }

    /// "1 photo", "12 photos", "more than 1,000 photos".
    static func searchSummary(_ outcome: SearchOutcome) -> String {
        if outcome.more { return "more than \(grouped(outcome.total)) photos (the newest \(grouped(outcome.total)) are shown)" }
        return outcome.total == 1 ? "1 photo" : "\(grouped(outcome.total)) photos"
    }

    /// 10000 as "10,000".
    static func grouped(_ n: Int) -> String {
        var digits = Array(String(n))
        var i = digits.count - 3
        while i > 0 {
            digits.insert(",", at: i)
            i -= 3
        }
        return String(digits)
    }

    func searchPage(text: String, page: Int, catalog: Catalog) -> FastCGIResponse {
        let outcome = runSearch(text, page: page, catalog: catalog)
        let pageSize = configuration.pageSize
        let total = outcome.total
        let pages = max(1, (total + pageSize - 1) / pageSize)
        guard page <= pages else { return errors.response(404) }
        let start = (page - 1) * pageSize
        let items = outcome.items
        let base = catalog.linkPrefix + "/search?q=" + Self.formEncoded(text)

        var context = chrome()
        context["pageTitle"] = .string(text.isEmpty ? "Search" : "Search: \(text)")
        context["homeURL"] = .string(catalog.linkPrefix + "/")
        context["searchQuery"] = .string(text)
        context["breadcrumbs"] = .list([["title": "Search", "url": .null]])
        context["hasCrumbs"] = true
        context["search"] = [
            "query": .string(text),
            "problem": .optional(outcome.problem),
            "summary": outcome.problem == nil && !outcome.query.isEmpty ? .string(Self.searchSummary(outcome)) : .null,
            "none": .bool(outcome.problem == nil && !outcome.query.isEmpty && total == 0),
            "ignored": outcome.query.ignored.isEmpty ? .null : .string(outcome.query.ignored.joined(separator: " ")),
            "help": .bool(outcome.query.isEmpty),
        ]
        context["items"] = .list(resultTiles(items, firstIndex: start, catalog: catalog))
        context["hasItems"] = .bool(!items.isEmpty)
        context["viewer"] = total > 0 ? [
            "feed": .string(catalog.linkPrefix + "/search/photos?q=" + Self.formEncoded(text)),
            "total": .int(total), "pageSize": .int(pageSize),
        ] : .null
        context["pagination"] = pagination(base: base, page: page, pages: pages, separator: "&")
        return HTTPResponses.html(200, templates.renderPage("search", context: .object(context)))
    }

    func searchFeed(text: String, page: Int, catalog: Catalog) -> FastCGIResponse {
        let outcome = runSearch(text, page: page, catalog: catalog)
        let pageSize = configuration.pageSize
        let total = outcome.total
        let start = (page - 1) * pageSize
        guard start < max(total, 1) else { return errors.response(404) }
        return resultFeed(outcome.items, firstIndex: start, total: total, page: page, title: "Search: \(text)",
                          backURL: catalog.linkPrefix + "/search?q=" + Self.formEncoded(text), catalog: catalog)
    }

    /// `text` as a query value: letters, digits and `-._~` as they are, spaces as `+`, the
    /// rest percent-encoded (UTF-8).
    static func formEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x20: out += "+"
            default: out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
