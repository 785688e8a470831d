import FastCGI
import Foundation
import ImagePipeline

/// `/album/<id>/photos?page=N`: the photos of one album page (the same `pageSize` photos, in
/// the same order, as the grid page N) as JSON, for the full-screen viewer (public/viewer.js).
///
/// Why pages: an album of thousands of photos would make one list too big to embed or send;
/// the viewer loads the page that holds the photo it shows and fetches a neighbouring page
/// when it steps near the edge. Each photo carries the fit sizes of the detail image with
/// their true widths (only sizes the source can fill, when its size is known in time) and the
/// largest size for zoom, each also as WebP when the gallery serves it (the viewer takes those
/// when the browser shows WebP).
extension GalleryApp {
    struct ViewerFeed: Encodable {
        var album: String
        var albumURL: String
        var title: String
        var total: Int
        var page: Int
        var pages: Int
        var pageSize: Int
        var photos: [ViewerPhoto]
    }

    struct ViewerPhoto: Encodable {
        /// Position in the album, from 0.
        var index: Int
        var id: String
        var url: String
        var title: String
        /// Displayed (oriented) size of the original; nil when not known in time.
        var width: Int?
        var height: Int?
        /// Fit sizes, smallest first; empty when the photo cannot be shown.
        var srcset: [Candidate]
        /// The largest size, loaded when the viewer zooms in.
        var large: String?
        /// `large` as WebP; nil when WebP is not served.
        var largeWebp: String?
        /// A movie's original (the viewer plays it over its poster); nil for photos.
        var video: String?
        /// The MIME codecs string the viewer asks `canPlayType` about; nil when unknown.
        var codec: String?
        /// A Live Photo's or motion photo's clip, played on press or hover; nil for others.
        var motion: String?
    }

    struct Candidate: Encodable {
        var src: String
        /// The same size as WebP; nil when WebP is not served.
        var webp: String?
        /// Pixel width of the rendered image (nominal, the longest edge, when the size is unknown).
        var width: Int
    }

    func viewerFeed(albumID: String, page: Int, catalog: Catalog) -> FastCGIResponse {
        guard let album = catalog.albums[albumID] else { return errors.response(404) }
        let pageSize = configuration.pageSize
        let total = album.itemIDs.count
        let pages = GalleryApp.pageCount(total, size: pageSize)
        guard page <= pages else { return errors.response(404) }
        let range = GalleryApp.pageRange(page, size: pageSize, count: total)
        let start = range.lowerBound
        let slice = album.itemIDs[range]
        let items = slice.compactMap { catalog.items[$0] }
        let facts = photoFacts(of: items)
        var photos: [ViewerPhoto] = []
        for (offset, id) in slice.enumerated() {
            guard let item = catalog.items[id] else { continue }
            let f = facts[id] ?? PhotoFacts(lookup: .pending)
            let photo = viewerPhoto(item, facts: f, index: start + offset, catalog: catalog)
            photos.append(photo)
        }
        let feed = ViewerFeed(album: albumID, albumURL: albumURL(albumID, catalog: catalog), title: album.title,
                              total: total, page: page, pages: pages, pageSize: pageSize, photos: photos)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        guard let data = try? encoder.encode(feed) else { return errors.response(500) }
        return HTTPResponses.text(200, String(decoding: data, as: UTF8.self), contentType: "application/json; charset=utf-8")
    }

    /// The codecs string a page asks `canPlayType` about for a movie of `codec` ("HEVC",
    /// "H.264"): Main-profile strings, since the answer is about the codec family; nil when
    /// the codec is unknown or another.
    static func codecTest(_ codec: String?) -> String? {
        switch codec {
        case "HEVC": return "hvc1.1.6.L93.B0"
        case "H.264": return "avc1.4D401E"
        default: return nil
        }
    }

    /// The detail edges (960, 1920, 2560) as fit renders, without the ones that would come out
    /// the same size as a smaller one (a source never gets enlarged).
    static func viewerCandidates(id: String, version: String?, width: Int?, height: Int?, webp: Bool = false,
                                 prefix: String = "") -> [Candidate] {
        var seen = Set<Int>()
        var out: [Candidate] = []
        for edge in ImageLinks.detailEdges {
            var w = edge
            if let width, let height, width > 0, height > 0 {
                w = ImageLinks.fitSize(width: width, height: height, maxEdge: edge).width
            }
            guard seen.insert(w).inserted else { continue }
            let spec = String(edge)
            out.append(Candidate(src: ImageLinks.url(id: id, spec: spec, version: version, prefix: prefix),
                                 webp: webp ? ImageLinks.url(id: id, spec: spec, version: version, format: .webp, prefix: prefix) : nil,
                                 width: w))
        }
        return out
    }

    /// Data attributes the viewer reads from a list or detail page: where the album's pages
    /// of photos are, how many photos it has and how many a page holds.
    func viewerAttributes(albumID: String, catalog: Catalog) -> TemplateValue {
        guard let album = catalog.albums[albumID] else { return .null }
        return [
            "feed": .string(catalog.linkPrefix + "/album/\(albumID)/photos"),
            "total": .int(album.itemIDs.count),
            "pageSize": .int(configuration.pageSize),
        ]
    }
}

extension GalleryApp {
    /// One slide of the viewer's feed: the image candidates, and for a movie its original
    /// (with the codec to test), for a Live Photo or motion photo its clip. Album feeds and
    /// search feeds make slides the same way.
    func viewerPhoto(_ item: CatalogItem, facts f: PhotoFacts, index: Int, catalog: Catalog) -> ViewerPhoto {
        let id = item.id
        var photo = ViewerPhoto(index: index, id: id, url: catalog.linkPrefix + "/photo/\(id)", title: item.title,
                                width: f.width, height: f.height, srcset: [], large: nil)
        if f.lookup != .failed {
            photo.srcset = GalleryApp.viewerCandidates(id: id, version: f.version, width: f.width, height: f.height,
                                                       webp: configuration.formats.contains(.webp), prefix: catalog.linkPrefix)
            photo.large = photo.srcset.last?.src
            photo.largeWebp = photo.srcset.last?.webp
        }
        let original = catalog.linkPrefix + "/original/\(id)"
        if ImageFiles.isMovie(name: item.fileName) {
            photo.video = original
            photo.codec = GalleryApp.codecTest(f.codec)
        } else if item.companion(.live) != nil {
            photo.motion = original + "/live"
        } else if f.duration != nil, item.relativePath != nil {
            photo.motion = original + "/motion"
        }
        return photo
    }
}
