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
    /// Album ZIP downloads streaming now (at most `configuration.maxDownloads`).
    let downloads: DownloadSlots
    let zipChecksums = ZipChecksums()
    let shares: ShareLinks
    /// Shared views by catalog fingerprint and album, so the images of a shared album do not
    /// copy its part of the catalog once per request.
    private let sharedViews = BoundedMap<String, Catalog>(limit: 64)
    let log: @Sendable (String) -> Void
    /// The library index (nil without one, or when its file cannot be opened for writing),
    /// and its writer when this process is the one that indexes (it may become it later).
    let index: LibraryIndex?
    var indexer: LibraryIndexer? { store.indexer }
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
        downloads = DownloadSlots(limit: configuration.maxDownloads)
        let keyPath = configuration.shareKeyFile ?? pipeline.configuration.cacheDirectory + "/" + ShareKey.defaultFileName
        shares = ShareLinks(keyPath: keyPath, log: log)
        do { _ = try ShareKey.loadOrCreate(keyPath) } catch { log("share: links disabled: \(error)") }
        if ShareKey.isExposed(keyPath) { log("share: warning: \(keyPath) is readable by other users; chmod 600 it") }
        let index = configuration.indexPath.flatMap { LibraryIndex.open(path: $0, log: log) }
        self.index = index
        let limits = pipeline.configuration.decodeLimits, maxBytes = pipeline.configuration.maxOriginBytes
        let root = configuration.libraryRoot
        let makeIndexer: @Sendable (LibraryIndex) -> LibraryIndexer = { index in
            LibraryIndexer(index: index) { path throws(PipelineError) in
                try FileIndexing.read(path: path, root: root, maxBytes: maxBytes, limits: limits)
            }
        }
        let indexer = index.flatMap { $0.claimWriter() ? makeIndexer($0) : nil }
        var scanner = CatalogScanner(root: configuration.libraryRoot, siteTitle: configuration.siteTitle)
        scanner.defaultSort = configuration.defaultSort
        if let index {
            scanner.datesTaken = { index.datesTaken(folder: $0) }
            scanner.contentIdentifiers = { index.contentIdentifiers(folder: $0) }
        }
        store = CatalogStore(scanner: scanner, refreshInterval: configuration.rescanInterval, index: index, indexer: indexer,
                             makeIndexer: makeIndexer, log: log)
        if watchLibrary { store.startWatching() }
    }

    /// Scans the library and brings the index in line with it now (tests; the watcher does
    /// this on its own thread).
    @discardableResult
    public func refreshLibrary() -> LibraryIndexer.Summary? {
        store.refreshAndIndex(force: true)
    }

    /// Stops the library watcher and indexer before the process exits (see `WorkGate`), and
    /// writes the placeholders still queued. Waits up to `timeout` seconds for the step under
    /// way; false when it was still running then.
    @discardableResult
    public func stop(timeout: Double) -> Bool {
        let stopped = store.stopWatching(timeout: timeout)
        if stopped { index?.flushPlaceholders() }
        return stopped
    }

    /// The current catalog snapshot.
    public var catalog: Catalog { store.catalog }

    public func handle(_ request: FastCGIRequest) -> FastCGIResponse {
        let start = DispatchTime.now().uptimeNanoseconds
        metrics.inFlight.add(1, ordering: .relaxed)
        defer { metrics.inFlight.subtract(1, ordering: .relaxed) }
        var (label, final) = answer(request)
        if request.method == "HEAD" { final.omitBody = true }
        if Router.shareScope(path: request.path) != nil { ScopePolicy.applyShared(to: &final, route: label) }
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
        var path = request.path
        var catalog = store.publicCatalog
        var shared = false
        if let share = Router.shareScope(path: path) {
            guard let view = sharedView(token: share.token) else { return ("share", errors.response(404)) }
            // "/s/<token>" as pasted without its slash: relative links on the page need the slash.
            if !path.hasSuffix("/"), share.rest == "/" {
                let query = request.query.isEmpty ? "" : "?" + request.query
                return ("share", HTTPResponses.redirect(to: path + "/" + query))
            }
            path = share.rest
            catalog = view
            shared = true
        }
        let route = Router.route(path: path, query: request.query)
        switch route {
        case .index(let page):
            return ("index", albumPage(albumID: catalog.rootID, page: page, catalog: catalog))
        case .album(let id, let page):
            guard catalog.albums[id] != nil else { return ("album", errors.response(404)) }
            return ("album", albumPage(albumID: id, page: page, catalog: catalog))
        case .photo(let id):
            return ("photo", photoPage(itemID: id, catalog: catalog))
        case .albumPhotos(let id, let page):
            return ("album_photos", viewerFeed(albumID: id, page: page, catalog: catalog))
        case .albumDownload(let id, let subalbums):
            return ("album_download", albumDownload(albumID: id, subalbums: subalbums, catalog: catalog, request: request))
        case .original(let id):
            return ("original", original(itemID: id, catalog: catalog, request: request))
        case .companionOriginal(let id, let role):
            return ("original", companionOriginal(itemID: id, role: role, catalog: catalog))
        case .motionOriginal(let id):
            return ("original", motionOriginal(itemID: id, catalog: catalog, request: request))
        case .image(let id, let spec, let format, let version):
            return ("img", image(itemID: id, spec: spec, format: format, requestedVersion: version, catalog: catalog, request: request))
        case .badImageSize(let id):
            return ("img", catalog.items[id] == nil ? errors.response(404) : sizeRefused())
        case .search(let query, let page):
            return ("search", searchPage(text: query, page: page, catalog: catalog))
        case .searchPhotos(let query, let page):
            return ("search_photos", searchFeed(text: query, page: page, catalog: catalog))
        case .onThisDay:
            return ("on_this_day", onThisDayPage(catalog: catalog))
        case .map(let albumID):
            return ("map", mapPage(albumID: albumID, catalog: catalog))
        case .mapPoints(let box, let zoom, let albumID):
            return ("map_points", mapPoints(box: box, zoom: zoom, albumID: albumID, catalog: catalog))
        case .healthz where !shared:
            return ("healthz", healthz())
        case .metrics where !shared:
            return ("metrics", HTTPResponses.text(200, metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
        case .healthz, .metrics, .notFound:
            return ("unknown", errors.response(404))
        }
    }

    /// The catalog a share token opens, or nil (404) for a token that opens nothing.
    private func sharedView(token: String) -> Catalog? {
        let (full, fingerprint) = store.versioned
        guard let album = shares.album(forToken: token, in: full) else { return nil }
        let key = "\(fingerprint)|\(token)"
        if let view = sharedViews[key] { return view }
        guard let view = full.sharedView(of: album.id, linkPrefix: "/s/" + token) else { return nil }
        sharedViews.set(view, for: key)
        return view
    }

    /// Counts of the public view only: a private album is not even counted where anyone can look.
    private func healthz() -> FastCGIResponse {
        let snapshot = store.publicCatalog
        let body = "ok\nalbums \(snapshot.albums.count)\nitems \(snapshot.items.count)\n"
        return HTTPResponses.text(200, body)
    }

    func metricsText() -> String {
        let snapshot = store.publicCatalog
        var out = metrics.text()
        out += "# HELP gallery_catalog_items Photos in the catalog.\n# TYPE gallery_catalog_items gauge\n"
        out += "gallery_catalog_items \(snapshot.items.count)\n"
        out += "# HELP gallery_catalog_albums Albums in the catalog.\n# TYPE gallery_catalog_albums gauge\n"
        out += "gallery_catalog_albums \(snapshot.albums.count)\n"
        if let indexer { out += indexer.progress.text() }
        out += "# HELP gallery_library_scan_held_back 1 while scans are held back (they would drop much of the library at once).\n"
        out += "# TYPE gallery_library_scan_held_back gauge\ngallery_library_scan_held_back \(store.heldBack == nil ? 0 : 1)\n"
        let pipelineText = pipeline.metricsText()
        if !pipelineText.isEmpty { out += pipelineText.hasSuffix("\n") ? pipelineText : pipelineText + "\n" }
        return out
    }

    /// Fields every page's layout uses: site title, asset URLs.
    func chrome() -> [String: TemplateValue] {
        [
            "siteTitle": .string(catalog.siteTitle),
            "homeURL": .string("/"),
            "cssURL": .string(assets.url("gallery.css")),
            "jsURL": .string(assets.url("gallery.js")),
            "viewerAlbumJSURL": .string(assets.url("viewer-album.js")),
            "viewerGesturesJSURL": .string(assets.url("viewer-gestures.js")),
            "viewerJSURL": .string(assets.url("viewer.js")),
            "webp": .bool(configuration.formats.contains(.webp)),
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
