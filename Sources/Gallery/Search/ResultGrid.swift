import Foundation
import FastCGI
import ImagePipeline

/// The grid of a list of photos that is not one album (search results, "on this day"): the
/// same tiles as album pages (square thumbnails with placeholders, WebP `<picture>`, badges)
/// from `itemgrid.html`, and the photo of a row of the index found in the request's view.
extension GalleryApp {
    /// Template entries of `items`, numbered from `firstIndex` for the viewer.
    func resultTiles(_ items: [CatalogItem], firstIndex: Int, catalog: Catalog) -> [TemplateValue] {
        let factsByID = photoFacts(of: items)
        let webp = configuration.formats.contains(.webp)
        return items.enumerated().map { offset, item in
            let facts = factsByID[item.id]
            var img: TemplateValue = .null
            switch facts?.lookup ?? .failed {
            case .failed: break
            case .pending: img = .object(ImageLinks.cover(id: item.id, version: nil, webp: webp, prefix: catalog.linkPrefix))
            case .version(let version):
                var cover = ImageLinks.cover(id: item.id, version: version, orientedWidth: facts?.width, orientedHeight: facts?.height,
                                             webp: webp, prefix: catalog.linkPrefix)
                cover["placeholder"] = .optional(facts?.placeholder ?? pipeline.placeholderColour(url: item.sourceURL, version: version))
                cover["preview"] = .optional(pipeline.placeholderImage(url: item.sourceURL, version: version) ?? facts?.preview?.dataURL())
                img = .object(cover)
            }
            if case .object(var cover) = img {
                cover["lazy"] = .bool(offset >= GalleryApp.eagerThumbnails)
                img = .object(cover)
            }
            return tileEntry(item, facts: facts, index: firstIndex + offset, img: img, catalog: catalog, showsCaptions: false)
        }
    }

    /// The viewer's JSON page of `items` (positions from `firstIndex`), as `/album/<id>/photos` answers.
    func resultFeed(_ items: [CatalogItem], firstIndex: Int, total: Int, page: Int, title: String, backURL: String,
                    catalog: Catalog) -> FastCGIResponse {
        let facts = photoFacts(of: items)
        let photos = items.enumerated().map { offset, item in
            viewerPhoto(item, facts: facts[item.id] ?? PhotoFacts(lookup: .pending), index: firstIndex + offset, catalog: catalog)
        }
        let pageSize = configuration.pageSize
        let feed = ViewerFeed(album: "", albumURL: backURL, title: title, total: total, page: page,
                              pages: max(1, (total + pageSize - 1) / pageSize), pageSize: pageSize, photos: photos)
        return jsonResponse(feed)
    }

    /// `value` as a JSON response (sorted keys, slashes unescaped); 500 if it cannot be encoded.
    func jsonResponse<T: Encodable>(_ value: T) -> FastCGIResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        guard let data = try? encoder.encode(value) else { return errors.response(500) }
        return HTTPResponses.text(200, String(decoding: data, as: UTF8.self), contentType: "application/json; charset=utf-8")
    }
}

extension Catalog {
    /// The item of the library file at `relativePath` when this view holds it, else nil: a
    /// photo of an album outside the view (a private one, another share's) is never found.
    /// Item ids are the hash of "item:<path>" (re-hashed with "#n" on a collision, which the
    /// lookup follows a few steps).
    public func item(relativePath: String) -> CatalogItem? {
        let key = "item:" + relativePath
        for n in 0..<4 {
            let id = StableID.make(n == 0 ? key : key + "#\(n)")
            guard let item = items[id] else { continue }
            if item.relativePath == relativePath { return item }
        }
        return nil
    }
}
