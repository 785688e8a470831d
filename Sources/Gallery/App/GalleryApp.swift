import FastCGI
import Foundation
import ImagePipeline

/// The gallery as a FastCGI handler: checks the request line, routes, and renders pages or
/// images. Safe to call from many worker threads; a request never takes the process down
/// (every failure becomes a short error page).
public final class GalleryApp: FastCGIHandler, Sendable {
    public let configuration: GalleryConfiguration
    let store: CatalogStore
    let templates: TemplateLibrary
    let pipeline: ImagePipeline
    let metrics = RequestMetrics()
    let assets: StaticAssets
    let log: @Sendable (String) -> Void
    /// The library index (nil without one, or when its file cannot be opened for writing),
    /// and its writer when this process is the one that indexes.
    let index: LibraryIndex?
    let indexer: LibraryIndexer?
    var errors: ErrorPages { ErrorPages(templates: templates, chrome: { [self] in self.chrome() }) }

    /// Loads the templates (throws on a syntax error), takes the catalog from the library
    /// index (or scans the library once without one) and starts watching it for changes.
    public init(configuration: GalleryConfiguration, pipeline: ImagePipeline, watchLibrary: Bool = true,
                log: @escaping @Sendable (String) -> Void) throws {
        self.configuration = configuration
        self.pipeline = pipeline
        self.log = log
        templates = try TemplateLibrary(directory: configuration.templatesDirectory)
        assets = StaticAssets(directory: configuration.publicDirectory, prefix: configuration.staticPrefix)
        let index = configuration.indexPath.flatMap { LibraryIndex.open(path: $0, log: log) }
        self.index = index
        if let index, index.claimWriter() {
            let limits = pipeline.configuration.decodeLimits, maxBytes = pipeline.configuration.maxOriginBytes
            indexer = LibraryIndexer(index: index) { path throws(PipelineError) in
                try FileIndexing.read(path: path, maxBytes: maxBytes, limits: limits)
            }
        } else {
            indexer = nil
        }
        var scanner = CatalogScanner(root: configuration.libraryRoot, siteTitle: configuration.siteTitle)
        scanner.defaultSort = configuration.defaultSort
        if let index { scanner.datesTaken = { index.datesTaken(folder: $0) } }
        store = CatalogStore(scanner: scanner, refreshInterval: configuration.rescanInterval, index: index, indexer: indexer, log: log)
        if watchLibrary { store.startWatching() }
    }

    /// Scans the library and brings the index in line with it now (tests; the watcher does
    /// this on its own thread).
    @discardableResult
    public func refreshLibrary() -> LibraryIndexer.Summary? {
        store.refreshAndIndex(force: true)
    }

    /// The current catalog snapshot.
    public var catalog: Catalog { store.catalog }

    public func handle(_ request: FastCGIRequest) -> FastCGIResponse {
        let start = DispatchTime.now().uptimeNanoseconds
        metrics.inFlight.add(1, ordering: .relaxed)
        defer { metrics.inFlight.subtract(1, ordering: .relaxed) }
        let (label, response) = answer(request)
        var final = response
        if request.method == "HEAD" { final.omitBody = true }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        metrics.record(route: label, status: final.status, seconds: seconds)
        return final
    }

    /// The route label (for metrics) and the response.
    private func answer(_ request: FastCGIRequest) -> (String, FastCGIResponse) {
        let uri = request.requestURI
        if uri.utf8.count > configuration.maxURIBytes { return ("invalid", errors.response(414)) }
        let method = request.method
        guard method == "GET" || method == "HEAD" else {
            return ("invalid", errors.response(405, extraHeaders: [("Allow", "GET, HEAD")]))
        }
        let route = Router.route(path: request.path, query: request.query)
        switch route {
        case .index(let page):
            return ("index", albumPage(albumID: catalog.rootID, page: page, catalog: catalog))
        case .album(let id, let page):
            let snapshot = catalog
            guard snapshot.albums[id] != nil else { return ("album", errors.response(404)) }
            return ("album", albumPage(albumID: id, page: page, catalog: snapshot))
        case .photo(let id):
            return ("photo", photoPage(itemID: id, catalog: catalog))
        case .albumPhotos(let id, let page):
            return ("album_photos", viewerFeed(albumID: id, page: page, catalog: catalog))
        case .original(let id):
            return ("original", original(itemID: id, request: request))
        case .image(let id, let spec, let version):
            return ("img", image(itemID: id, spec: spec, requestedVersion: version, request: request))
        case .badImageSize(let id):
            return ("img", catalog.items[id] == nil ? errors.response(404) : sizeRefused())
        case .healthz:
            return ("healthz", healthz())
        case .metrics:
            return ("metrics", HTTPResponses.text(200, metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
        case .notFound:
            return ("unknown", errors.response(404))
        }
    }

    private func healthz() -> FastCGIResponse {
        let snapshot = catalog
        let body = "ok\nalbums \(snapshot.albums.count)\nitems \(snapshot.items.count)\n"
        return HTTPResponses.text(200, body)
    }

    func metricsText() -> String {
        let snapshot = catalog
        var out = metrics.text()
        out += "# HELP gallery_catalog_items Photos in the catalog.\n# TYPE gallery_catalog_items gauge\n"
        out += "gallery_catalog_items \(snapshot.items.count)\n"
        out += "# HELP gallery_catalog_albums Albums in the catalog.\n# TYPE gallery_catalog_albums gauge\n"
        out += "gallery_catalog_albums \(snapshot.albums.count)\n"
        if let indexer { out += indexer.progress.text() }
        let pipelineText = pipeline.metricsText()
        if !pipelineText.isEmpty { out += pipelineText.hasSuffix("\n") ? pipelineText : pipelineText + "\n" }
        return out
    }

    /// Fields every page's layout uses: site title, asset URLs.
    func chrome() -> [String: TemplateValue] {
        [
            "siteTitle": .string(catalog.siteTitle),
            "cssURL": .string(assets.url("gallery.css")),
            "jsURL": .string(assets.url("gallery.js")),
            "viewerAlbumJSURL": .string(assets.url("viewer-album.js")),
            "viewerGesturesJSURL": .string(assets.url("viewer-gestures.js")),
            "viewerJSURL": .string(assets.url("viewer.js")),
            "iconURL": .string(assets.url("favicon.svg")),
        ]
    }

    /// The content version of each item by id. Versions the pipeline already knows are
    /// answered at once; the others (a first look hashes the file or fetches it) are looked up
    /// in parallel for at most `configuration.pageLookupBudget` seconds.
    func versions(of items: [CatalogItem]) -> [String: VersionLookup.Outcome] {
        var out: [String: VersionLookup.Outcome] = [:]
        var unknown: [CatalogItem] = []
        for item in items {
            if let v = pipeline.knownVersion(url: item.sourceURL) { out[item.id] = .version(v) } else { unknown.append(item) }
        }
        let pipeline = self.pipeline
        let outcomes = VersionLookup.shared.run(unknown.map(\.sourceURL), budget: configuration.pageLookupBudget) { url in
            try? pipeline.version(url: url)
        }
        for (item, outcome) in zip(unknown, outcomes) { out[item.id] = outcome }
        return out
    }
}
