import ImagePipeline
import FastCGI

/// List pages: `/` (the root album) and `/album/<id>`: sub-albums, then a grid of square
/// thumbnails, `pageSize` photos and `albumsPerPage(pageSize)` albums per page.
extension GalleryApp {
    /// How many thumbnails load eagerly: about one row on a desktop screen.
    static let eagerThumbnails = 6

    /// Album tiles per page. A folder of a few hundred albums (years, events) stays on one page,
    /// while a library of 10,000 albums side by side no longer makes one page of 10,000 covers
    /// (1.2 s to render at a million photos, and megabytes of HTML for the browser).
    static func albumsPerPage(_ pageSize: Int) -> Int { 4 * pageSize }

    /// How many pages `count` entries fill at `size` a page (at least one, for an empty album).
    static func pageCount(_ count: Int, size: Int) -> Int { max(1, (count + size - 1) / size) }

    /// The positions of page `page` (counted from 1) of `count` entries at `size` a page;
    /// empty past the last page.
    static func pageRange(_ page: Int, size: Int, count: Int) -> Range<Int> {
        min(count, (page - 1) * size)..<min(count, page * size)
    }

    func albumPage(albumID: String, page: Int, catalog: Catalog) -> FastCGIResponse {
        guard let album = catalog.albums[albumID] else { return errors.response(404) }
        let pageSize = configuration.pageSize
        let albumPageSize = GalleryApp.albumsPerPage(pageSize)
        let itemCount = album.itemIDs.count
        let albumCount = album.albumIDs.count
        let pages = max(GalleryApp.pageCount(itemCount, size: pageSize), GalleryApp.pageCount(albumCount, size: albumPageSize))
        guard page <= pages else { return errors.response(404) }
        let items = album.itemIDs[GalleryApp.pageRange(page, size: pageSize, count: itemCount)].compactMap { catalog.items[$0] }
        let subalbums = album.albumIDs[GalleryApp.pageRange(page, size: albumPageSize, count: albumCount)]
            .compactMap { catalog.albums[$0] }
        let covers = subalbums.map { catalog.coverItem(of: $0.id) }
        let factsByID = photoFacts(of: items + covers.compactMap { $0 })

        var eagerLeft = GalleryApp.eagerThumbnails
        let webp = configuration.formats.contains(.webp)
        func thumbnail(_ item: CatalogItem?) -> TemplateValue {
            guard let item else { return .null }
            var img: [String: TemplateValue]
            let facts = factsByID[item.id]
            switch facts?.lookup ?? .failed {
            case .failed: return .null
            case .pending: img = ImageLinks.cover(id: item.id, version: nil, webp: webp, prefix: catalog.linkPrefix)
            case .version(let version):
                img = ImageLinks.cover(id: item.id, version: version, orientedWidth: facts?.width, orientedHeight: facts?.height,
                                       webp: webp, prefix: catalog.linkPrefix)
                img["placeholder"] = .optional(facts?.placeholder ?? pipeline.placeholderColour(url: item.sourceURL, version: version))
                img["preview"] = .optional(pipeline.placeholderImage(url: item.sourceURL, version: version) ?? facts?.preview?.dataURL())
            }
            img["lazy"] = .bool(eagerLeft <= 0)
            eagerLeft -= 1
            return .object(img)
        }

        let albumEntries: [TemplateValue] = zip(subalbums, covers).map { sub, cover in
            let counts = catalog.totalCounts(of: sub.id)
            return [
                "url": .string(albumURL(sub.id, catalog: catalog)),
                "title": .string(sub.title),
                "count": .string(GalleryApp.countText(items: counts.items, videos: counts.videos)),
                "img": thumbnail(cover),
            ]
        }
        let firstIndex = (page - 1) * pageSize
        let itemEntries: [TemplateValue] = items.enumerated().map { offset, item in
            tileEntry(item, facts: factsByID[item.id], index: firstIndex + offset, img: thumbnail(item), catalog: catalog,
                      showsCaptions: album.showsCaptions)
        }

        var context = chrome()
        let isRoot = albumID == catalog.rootID
        context["pageTitle"] = .string(isRoot ? catalog.siteTitle : album.title)
        context["breadcrumbs"] = breadcrumbs(albumID: albumID, catalog: catalog)
        context["hasCrumbs"] = .bool(!isRoot)
        let (total, videos) = catalog.totalCounts(of: albumID)
        context["album"] = [
            "title": .string(album.title),
            "caption": .optional(album.caption),
            "isRoot": .bool(isRoot),
            "summary": .string(summary(albums: album.albumIDs.count, items: total, videos: videos)),
        ]
        context["albums"] = .list(albumEntries)
        context["items"] = .list(itemEntries)
        context["hasAlbums"] = .bool(!albumEntries.isEmpty)
        context["hasItems"] = .bool(!itemEntries.isEmpty)
        context["viewer"] = viewerAttributes(albumID: albumID, catalog: catalog)
        context["download"] = downloadLinks(album: album, totalPhotos: total, prefix: catalog.linkPrefix)
        context["homeURL"] = .string(catalog.linkPrefix + "/")
        context["empty"] = .bool(albumEntries.isEmpty && itemEntries.isEmpty)
        context["pagination"] = pagination(base: albumURL(albumID, catalog: catalog), page: page, pages: pages)
        context["mapURL"] = catalog.showLocation ? .string(catalog.linkPrefix + (isRoot ? "/map" : "/album/\(albumID)/map")) : .null
        let onThisDay = isRoot && page == 1 && !onThisDayItems(catalog: catalog).isEmpty
        context["onThisDayURL"] = onThisDay ? .string(catalog.linkPrefix + "/on-this-day") : .null
        return HTTPResponses.html(200, templates.renderPage("album", context: .object(context)))
    }

    /// The album's page in `catalog`'s view: its root is "/" (the share link's own path under
    /// a share), other albums "/album/<id>".
    func albumURL(_ id: String, catalog: Catalog) -> String {
        catalog.linkPrefix + (id == catalog.rootID ? "/" : "/album/\(id)")
    }

    /// The albums below the root down to `albumID`, each with its URL, then `current` (the
    /// page's own title, unlinked) if given; without it the album itself is the current page.
    /// The root is left out: the site title beside the crumbs already links to it.
    func breadcrumbs(albumID: String, catalog: Catalog, current: String? = nil) -> TemplateValue {
        let chain = catalog.ancestry(of: albumID).filter { $0.id != catalog.rootID }
        var crumbs: [TemplateValue] = chain.enumerated().map { index, album in
            let isLast = index == chain.count - 1 && current == nil
            return ["title": .string(album.title), "url": isLast ? .null : .string(albumURL(album.id, catalog: catalog))]
        }
        if let current { crumbs.append(["title": .string(current), "url": .null]) }
        return .list(crumbs)
    }

    /// The album's "Download" link (its own photos) and, when albums below it hold photos, the
    /// one with them as folders; nil when neither would hold a photo.
    private func downloadLinks(album: CatalogAlbum, totalPhotos: Int, prefix: String) -> TemplateValue {
        let own = album.itemIDs.count
        guard totalPhotos > 0 else { return .null }
        let base = prefix + "/album/\(album.id)/download"
        return [
            "url": own > 0 ? .string(base) : .null,
            "label": .string(own == 1 ? "Download 1 photo" : "Download \(own) photos"),
            "subURL": totalPhotos > own ? .string(base + "?sub=1") : .null,
            "subLabel": .string(own > 0 ? "with sub-albums (\(totalPhotos))" : "Download all \(totalPhotos) photos"),
        ]
    }

    private func summary(albums: Int, items: Int, videos: Int) -> String {
        var parts: [String] = []
        if albums > 0 { parts.append(albums == 1 ? "1 album" : "\(albums) albums") }
        parts.append(GalleryApp.countText(items: items, videos: videos))
        return parts.joined(separator: " · ")
    }

    /// "12 photos, 3 videos", "1 photo", "2 videos": `items` counted as photos and videos
    /// (videos are among the items); "0 photos" for none.
    static func countText(items: Int, videos: Int) -> String {
        let photos = items - videos
        var parts: [String] = []
        if photos > 0 || videos == 0 { parts.append(photos == 1 ? "1 photo" : "\(photos) photos") }
        if videos > 0 { parts.append(videos == 1 ? "1 video" : "\(videos) videos") }
        return parts.joined(separator: ", ")
    }

    /// Previous/next links and a compact list of page numbers (first, last, and two around the current).
    /// `separator` joins `page=N` to `base` ("&" when `base` has a query already).
    func pagination(base: String, page: Int, pages: Int, separator: String = "?") -> TemplateValue {
        guard pages > 1 else { return .null }
        func link(_ n: Int) -> String { n == 1 ? base : base + separator + "page=\(n)" }
        var numbers: [TemplateValue] = []
        var last = 0
        for n in 1...pages where n == 1 || n == pages || abs(n - page) <= 2 {
            if n - last > 1 { numbers.append(["gap": true]) }
            numbers.append(["number": .int(n), "url": .string(link(n)), "current": .bool(n == page)])
            last = n
        }
        return [
            "page": .int(page), "pages": .int(pages),
            "prevURL": page > 1 ? .string(link(page - 1)) : .null,
            "nextURL": page < pages ? .string(link(page + 1)) : .null,
            "numbers": .list(numbers),
        ]
    }
}

extension GalleryApp {
    /// One tile of `itemgrid.html` (album pages, search results, "on this day"): link, title,
    /// image, viewer position and the badges (video with its duration, motion, GIF, Live).
    func tileEntry(_ item: CatalogItem, facts: PhotoFacts?, index: Int, img: TemplateValue, catalog: Catalog,
                   showsCaptions: Bool) -> TemplateValue {
        let isMovie = ImageFiles.isMovie(name: item.fileName)
        return ["url": .string(catalog.linkPrefix + "/photo/\(item.id)"), "title": .string(item.title), "caption": .optional(item.caption),
                "img": img, "index": .int(index), "video": .bool(isMovie),
                "duration": .optional(isMovie ? facts?.duration : nil),
                "motion": .bool(!isMovie && facts?.duration != nil),
                "animated": .bool(facts?.isAnimated ?? false), "live": .bool(item.companion(.live) != nil),
                "captionLine": .optional(showsCaptions ? item.caption ?? facts?.caption : nil)]
    }
}
