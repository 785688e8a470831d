import ImagePipeline

/// Settings of the web layer; every one but the folders has a default.
public struct GalleryConfiguration: Sendable {
    /// The photo library folder.
    public var libraryRoot: String
    /// Folder of the page templates (`*.html`).
    public var templatesDirectory: String
    /// Folder of the static files nginx serves under `staticPrefix` (used here to version their URLs).
    public var publicDirectory: String
    /// URL prefix of the static files. Default "/static/".
    public var staticPrefix: String
    /// Shown in the header and the title bar when the manifest names none. Default "Gallery".
    public var siteTitle: String
    /// Items on one list page. Default 60.
    public var pageSize: Int
    /// Seconds between checks of the library folder for changes. Default 3.
    public var rescanInterval: Double
    /// Requests whose URI is longer than this many bytes get 414. Default 2048.
    public var maxURIBytes: Int
    /// Seconds a page waits for the content versions of its images (a first look hashes a
    /// local file or fetches a remote one); images not known by then are linked without a
    /// version and redirect once they are (see `VersionLookup`). Default 1.
    public var pageLookupBudget: Double
    /// The library index file (SQLite); nil serves from scans alone, hashing each photo on its
    /// first page view in every process. Default nil here; `gallery serve` puts it in the cache folder.
    public var indexPath: String?
    /// The order of albums the manifest does not order (`--sort`). Default by name.
    public var defaultSort: AlbumSort
    /// Album ZIP downloads streamed at once by this process; more are answered 503 with
    /// Retry-After. Each holds a worker thread while its client reads, so keep it below the
    /// thread count. Default 2.
    public var maxDownloads: Int
    /// The file holding the secret of share links (`ShareKey`); nil means `share.key` in the
    /// pipeline's cache folder. Created with mode 0600 when missing.
    public var shareKeyFile: String?
    /// Formats image URLs are served in. `.standard` (JPEG, or PNG with transparency) always;
    /// with `.webp` too (the default), pages offer WebP through `<picture>` and the viewer
    /// takes it where the browser shows it. Without it, pages link JPEG only and `.webp`
    /// URLs are 404.
    public var formats: Set<RenderFormat>
    /// The internal nginx location that aliases the library's real root ("/_library/"): when
    /// set, `/original/<id>` of a library file is answered with `X-Accel-Redirect` to it and
    /// nginx streams the bytes (Range, sendfile, no app thread per download). nil (no nginx in
    /// front, as in tests of the handler alone): the app sends the bytes itself.
    public var originalsRedirect: String?
    /// The map's tile URL template (`--map-tiles`, `GALLERY_MAP_TILES`), `{z}/{x}/{y}` as Leaflet
    /// reads it. Default OpenStreetMap's standard tile server (mind its usage policy,
    /// docs/search.md); its origin is added to the map page's Content-Security-Policy.
    public var mapTiles: String
    /// The attribution shown on the map (HTML-escaped). Default "© OpenStreetMap contributors".
    public var mapAttribution: String
    /// Today's date for "on this day": the server's local date by default; tests inject one.
    public var today: @Sendable () -> CalendarDay

    /// The defaults, in one place for this initialiser and the command line.
    public static let defaultSiteTitle = "Gallery"
    public static let defaultRescanInterval: Double = 3
    public static let defaultPageLookupBudget: Double = 1
    public static let defaultMaxDownloads = 2
    public static let defaultFormats: Set<RenderFormat> = [.standard, .webp]
    public static let defaultMapTiles = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    public static let defaultMapAttribution = "© OpenStreetMap contributors"

    public init(libraryRoot: String, templatesDirectory: String, publicDirectory: String,
                staticPrefix: String = "/static/", siteTitle: String = defaultSiteTitle, pageSize: Int = 60,
                rescanInterval: Double = defaultRescanInterval, maxURIBytes: Int = 2048,
                pageLookupBudget: Double = defaultPageLookupBudget, maxDownloads: Int = defaultMaxDownloads,
                shareKeyFile: String? = nil, formats: Set<RenderFormat> = defaultFormats, indexPath: String? = nil,
                defaultSort: AlbumSort = .name, originalsRedirect: String? = nil, mapTiles: String = defaultMapTiles,
                mapAttribution: String = defaultMapAttribution, today: @escaping @Sendable () -> CalendarDay = CalendarDay.localToday) {
        self.libraryRoot = libraryRoot
        self.templatesDirectory = templatesDirectory
        self.publicDirectory = publicDirectory
        self.staticPrefix = staticPrefix
        self.siteTitle = siteTitle
        self.pageSize = max(1, pageSize)
        self.rescanInterval = rescanInterval
        self.maxURIBytes = maxURIBytes
        self.pageLookupBudget = pageLookupBudget
        self.indexPath = indexPath
        self.defaultSort = defaultSort
        self.maxDownloads = max(1, maxDownloads)
        self.shareKeyFile = shareKeyFile
        self.formats = formats.union([.standard])
        self.originalsRedirect = originalsRedirect
        self.mapTiles = mapTiles
        self.mapAttribution = mapAttribution
        self.today = today
    }
}
