import FastCGI
import ImagePipeline

/// `/search?q=…&page=N` (and `/s/<token>/search` under a share link): the photos of the
/// request's view that match the query, as an album-style grid with the viewer, and
/// `/search/photos?q=…&page=N`, the same pages as the viewer's JSON.
///
/// Privacy: the index knows every photo, private or not, so its rows are only candidates.
/// Under a share link the query is limited to the view's folders; every row is then resolved
/// to the item of the request's catalog view (`Catalog.item(relativePath:)`), and rows without
/// one are dropped before anything is counted, so a private photo is never listed, counted or
/// hinted at (a page of results is made from what remains).
extension GalleryApp {
    /// What a search found in `catalog`'s view: the items, in order, and why the query could
    /// not run when it could not (shown on the page instead of results).
    struct SearchOutcome {
        var query: SearchQuery
        var items: [CatalogItem] = []
        var problem: String?
    }

    func runSearch(_ text: String, catalog: Catalog) -> SearchOutcome {
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
        let shared = !catalog.linkPrefix.isEmpty
        let albums = shared ? catalog.albums.values.map(\.relativePath) : nil
        guard let hits = index.search(query, albums: albums) else {
            outcome.problem = "Search is not available right now; try again in a moment."
            return outcome
        }
        let types = query.clauses.compactMap { clause -> (SearchQuery.MediaType, Bool)? in
            if case .type(let type, let excluded) = clause { return (type, excluded) }
            return nil
        }
        outcome.items = hits.compactMap { hit in
            guard let item = catalog.item(relativePath: hit.relativePath) else { return nil }
            for (type, excluded) in types where Self.isOfType(type, item: item, format: hit.format) == excluded { return nil }
            return item
        }
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

    func searchPage(text: String, page: Int, catalog: Catalog) -> FastCGIResponse {
        let outcome = runSearch(text, catalog: catalog)
        let pageSize = configuration.pageSize
        let total = outcome.items.count
        let pages = max(1, (total + pageSize - 1) / pageSize)
        guard page <= pages else { return errors.response(404) }
        let start = (page - 1) * pageSize
        let items = Array(outcome.items[min(total, start)..<min(total, start + pageSize)])
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
            "summary": outcome.problem == nil && !outcome.query.isEmpty ? .string(total == 1 ? "1 photo" : "\(total) photos") : .null,
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
        let outcome = runSearch(text, catalog: catalog)
        let pageSize = configuration.pageSize
        let total = outcome.items.count
        let start = (page - 1) * pageSize
        guard start < max(total, 1) else { return errors.response(404) }
        let items = Array(outcome.items[min(total, start)..<min(total, start + pageSize)])
        return resultFeed(items, firstIndex: start, total: total, page: page, title: "Search: \(text)",
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
