import FastCGI
#if canImport(Glibc)
import Glibc
#endif

/// A day of the calendar, as "on this day" asks for it. The app takes today from
/// `GalleryConfiguration.today` (the server's local date by default; tests inject one).
public struct CalendarDay: Equatable, Sendable {
    public var year: Int, month: Int, day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Today in the server's local time zone (dates taken are the camera's local time too).
    public static func localToday() -> CalendarDay {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return CalendarDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    /// "MM:DD", as characters 6-10 of an index date ("YYYY:MM:DD HH:MM:SS").
    var monthDay: String { (month < 10 ? "0" : "") + "\(month):" + (day < 10 ? "0" : "") + "\(day)" }
}

extension LibraryIndex {
    /// Photos taken on `day`'s month and day in years before its year, as (path, year), the
    /// newest first (then by name); at most 5,000. nil when the index failed.
    public func takenOnThisDay(_ day: CalendarDay) -> [(relativePath: String, year: Int)]? {
        read { db throws(SQLiteError) -> [(relativePath: String, year: Int)] in
            var out: [(relativePath: String, year: Int)] = []
            try db.run("""
                SELECT path, substr(date_taken, 1, 4) FROM photos
                WHERE substr(date_taken, 6, 5) = ? AND date_taken < ? AND date_taken >= '1000' AND failure IS NULL
                ORDER BY date_taken DESC, name LIMIT 5000
                """, [.text(day.monthDay), .text(String(day.year))]) { row in
                if let path = row.text(0), let year = row.text(1).flatMap({ Int($0) }) { out.append((path, year)) }
            }
            return out
        }
    }
}

extension GalleryApp {
    /// The photos of the request's view taken on today's month and day in earlier years.
    func onThisDayItems(catalog: Catalog) -> [(year: Int, items: [CatalogItem])] {
        guard let rows = index?.takenOnThisDay(configuration.today()) else { return [] }
        var groups: [(year: Int, items: [CatalogItem])] = []
        for row in rows {
            guard let item = catalog.item(relativePath: row.relativePath) else { continue }
            if groups.last?.year == row.year { groups[groups.count - 1].items.append(item) } else { groups.append((row.year, [item])) }
        }
        return groups
    }

    /// `/on-this-day`: one section per year, newest first, each a grid of at most `pageSize`
    /// photos (the rest are counted under it).
    func onThisDayPage(catalog: Catalog) -> FastCGIResponse {
        let today = configuration.today()
        let groups = onThisDayItems(catalog: catalog)
        var index = 0
        let sections: [TemplateValue] = groups.map { group in
            let shown = Array(group.items.prefix(configuration.pageSize))
            defer { index += shown.count }
            let ago = today.year - group.year
            return [
                "year": .int(group.year),
                "ago": .string(ago == 1 ? "1 year ago" : "\(ago) years ago"),
                "items": .list(resultTiles(shown, firstIndex: index, catalog: catalog)),
                "hasItems": .bool(!shown.isEmpty),
                "more": group.items.count > shown.count ? .string("and \(group.items.count - shown.count) more") : .null,
            ]
        }
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                      "November", "December"]
        let dayName = "\(today.day) \(months[max(0, min(11, today.month - 1))])"
        var context = chrome()
        context["pageTitle"] = .string("On this day")
        context["homeURL"] = .string(catalog.linkPrefix + "/")
        context["searchURL"] = .string(catalog.linkPrefix + "/search")
        context["breadcrumbs"] = .list([["title": "On this day", "url": .null]])
        context["hasCrumbs"] = true
        context["day"] = .string(dayName)
        context["years"] = .list(sections)
        context["empty"] = .bool(sections.isEmpty)
        return HTTPResponses.html(200, templates.renderPage("onthisday", context: .object(context)))
    }
}
