import FastCGI
import Foundation
import Gallery
import ImageCodec
import ImagePipeline

/// `gallery serve`: reads flags (and GALLERY_* environment variables), builds the pipeline and
/// the web app, and runs the FastCGI server until SIGTERM.
enum ServeCommand {
    static func run(_ args: [String]) -> Int32 {
        FastCGIServer.blockStopSignals()
        // glibc gives each thread that allocates its own arena (up to 8 per core), and memory
        // freed into one is not reused by another: with a few dozen worker and lookup threads
        // the heap grew with every thread that rendered. Two arenas keep contention low on
        // the machines we run on and RSS bounded (deploy/run also sets MALLOC_ARENA_MAX).
        if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { limitMallocArenas(2) }
        let options: ServeOptions
        do { options = try ServeOptions.parse(args, environment: ProcessInfo.processInfo.environment) } catch {
            printError("gallery: \(error)\n\(usageText)")
            return 2
        }
        let logger = LineLogger(path: options.logFile)
        let log: @Sendable (String) -> Void = { logger.write($0) }
        do {
            try FileManager.default.createDirectory(atPath: options.cacheDirectory, withIntermediateDirectories: true)
            var pipelineConfiguration = PipelineConfiguration(cacheDirectory: options.cacheDirectory, libraryRoot: options.root)
            pipelineConfiguration.log = { log("image-pipeline: " + $0) }
            options.tuning.apply(to: &pipelineConfiguration)
            pipelineConfiguration.colour = options.colour
            let pipeline = ImagePipeline(configuration: pipelineConfiguration)
            let app = try GalleryApp(configuration: GalleryConfiguration(
                libraryRoot: options.root, templatesDirectory: options.templates, publicDirectory: options.publicDirectory,
                siteTitle: options.title, rescanInterval: options.rescanSeconds, pageLookupBudget: options.pageWaitSeconds,
                maxDownloads: options.maxDownloads, shareKeyFile: options.shareKeyFile, formats: options.formats,
                indexPath: options.indexPath, defaultSort: options.sort, originalsRedirect: options.originalsRedirect,
                mapTiles: options.mapTiles, mapAttribution: options.mapAttribution),
                pipeline: pipeline, log: log)
            log("gallery: library \(options.root): \(app.catalog.albums.count) albums, \(app.catalog.items.count) items")
            let server = FastCGIServer(configuration: FastCGIConfiguration(address: options.address, threads: options.threads),
                                       handler: app, log: log)
            let status = server.run()
            if !app.stop(timeout: 10) { log("gallery: the library indexer did not stop within 10 s; exiting anyway") }
            return status
        } catch {
            log("gallery: cannot start: \(error)")
            return 1
        }
    }
}

/// Flags of `gallery serve`; each has a GALLERY_* environment fallback.
struct ServeOptions {
    var root: String
    var address: FastCGIListenAddress = .inherited
    var threads = FastCGIConfiguration.defaultThreads
    var cacheDirectory: String
    var templates: String
    var publicDirectory: String
    var title = GalleryConfiguration.defaultSiteTitle
    var logFile: String?
    var rescanSeconds = GalleryConfiguration.defaultRescanInterval
    var pageWaitSeconds = GalleryConfiguration.defaultPageLookupBudget
    /// The library index file; nil with `--index off`.
    var indexPath: String?
    var sort = AlbumSort.name
    var maxDownloads = GalleryConfiguration.defaultMaxDownloads
    var shareKeyFile: String?
    var tuning = PipelineTuning()
    var formats = GalleryConfiguration.defaultFormats
    var colour = ColourOutput.srgb
    /// nginx's internal location of the library (`--originals-redirect /_library/`).
    var originalsRedirect: String?
    /// The map's tile URL template and its attribution (`--map-tiles`, `--map-attribution`).
    var mapTiles = GalleryConfiguration.defaultMapTiles
    var mapAttribution = GalleryConfiguration.defaultMapAttribution

    struct Problem: Error, CustomStringConvertible { var description: String }

    static func parse(_ args: [String], environment env: [String: String]) throws -> ServeOptions {
        var values: [String: String] = [:]
        var rest = args[...]
        let known = ["--root", "--socket", "--listen", "--threads", "--cache-dir", "--templates", "--public", "--title", "--log", "--rescan", "--page-wait",
                     "--max-downloads", "--share-key", "--formats", "--colour", "--index", "--sort", "--originals-redirect",
                     "--map-tiles", "--map-attribution"]
            + PipelineTuning.flags.map(\.flag)
        while let flag = rest.popFirst() {
            guard known.contains(flag) else { throw Problem(description: "unknown option \(flag)") }
            guard let value = rest.popFirst() else { throw Problem(description: "\(flag) needs a value") }
            values[flag] = value
        }
        func pick(_ flag: String, _ variable: String) -> String? { values[flag] ?? env[variable].flatMap { $0.isEmpty ? nil : $0 } }

        guard let root = pick("--root", "GALLERY_ROOT") else { throw Problem(description: "--root DIR is required") }
        let base = resourceBase()
        var options = ServeOptions(
            root: absolute(root),
            cacheDirectory: absolute(pick("--cache-dir", "GALLERY_CACHE_DIR") ?? defaultCacheDirectory),
            templates: absolute(pick("--templates", "GALLERY_TEMPLATES") ?? base + "/templates"),
            publicDirectory: absolute(pick("--public", "GALLERY_PUBLIC") ?? base + "/public"))
        if let socket = pick("--socket", "GALLERY_SOCKET") { options.address = .unixSocket(absolute(socket)) }
        if let listen = pick("--listen", "GALLERY_LISTEN") {
            guard listen.contains(":") else { throw Problem(description: "--listen wants HOST:PORT or :PORT") }
            options.address = .tcp(listen)
        }
        if let t = pick("--threads", "GALLERY_THREADS") {
            guard let n = Int(t), n >= 1, n <= 1024 else { throw Problem(description: "--threads wants 1...1024") }
            options.threads = n
        }
        if let r = pick("--rescan", "GALLERY_RESCAN_SECONDS") {
            guard let s = Double(r), s > 0 else { throw Problem(description: "--rescan wants seconds > 0") }
            options.rescanSeconds = s
        }
        if let w = pick("--page-wait", "GALLERY_PAGE_WAIT") {
            guard let s = Double(w), s >= 0, s <= 600 else { throw Problem(description: "--page-wait wants seconds in [0, 600]") }
            options.pageWaitSeconds = s
        }
        switch pick("--index", "GALLERY_INDEX") {
        case "off"?: options.indexPath = nil
        case let path?: options.indexPath = absolute(path)
        case nil: options.indexPath = defaultIndexPath(cacheDirectory: options.cacheDirectory)
        }
        if let word = pick("--sort", "GALLERY_SORT") {
            guard let sort = AlbumSort(rawValue: word) else { throw Problem(description: "--sort wants date or name") }
            options.sort = sort
        }
        if let d = pick("--max-downloads", "GALLERY_MAX_DOWNLOADS") {
            guard let n = Int(d), n >= 1, n <= 1024 else { throw Problem(description: "--max-downloads wants 1...1024") }
            options.maxDownloads = n
        }
        options.shareKeyFile = pick("--share-key", "GALLERY_SHARE_KEY").map(absolute)
        if let prefix = pick("--originals-redirect", "GALLERY_ORIGINALS_REDIRECT") {
            guard prefix.hasPrefix("/"), prefix.hasSuffix("/"), prefix.count >= 3,
                  prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "%") }) else {
                throw Problem(description: "--originals-redirect wants an nginx location like /_library/")
            }
            options.originalsRedirect = prefix
        }
        if let tiles = pick("--map-tiles", "GALLERY_MAP_TILES") {
            guard tiles.hasPrefix("https://") || tiles.hasPrefix("http://") || tiles.hasPrefix("/"), tiles.contains("{z}"),
                  tiles.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "'") }) else {
                throw Problem(description: "--map-tiles wants a URL template like https://tile.openstreetmap.org/{z}/{x}/{y}.png")
            }
            options.mapTiles = tiles
            // Another server's tiles carry their own attribution: the default names OpenStreetMap's.
            if tiles != GalleryConfiguration.defaultMapTiles { options.mapAttribution = "" }
        }
        if let attribution = pick("--map-attribution", "GALLERY_MAP_ATTRIBUTION") { options.mapAttribution = attribution }
        if let f = pick("--formats", "GALLERY_FORMATS") { options.formats = try formats(f) }
        if let c = pick("--colour", "GALLERY_COLOUR") {
            guard let mode = ColourOutput(rawValue: c) else { throw Problem(description: "--colour wants srgb or wide") }
            options.colour = mode
        }
        options.title = pick("--title", "GALLERY_TITLE") ?? options.title
        options.logFile = pick("--log", "GALLERY_LOG")
        for knob in PipelineTuning.flags {
            guard let text = pick(knob.flag, knob.variable) else { continue }
            if let word = knob.words[text] {
                options.tuning.values[knob.flag] = word
                continue
            }
            guard let value = Double(text), value > 0, value <= knob.maximum else {
                let words = knob.words.keys.sorted().map { " or \($0)" }.joined()
                throw Problem(description: "\(knob.flag) wants a number in (0, \(Int(knob.maximum))]\(words)")
            }
            options.tuning.values[knob.flag] = value
        }
        try options.tuning.validate()
        return options
    }

    /// `$TMPDIR/gallery-cache`.
    static var defaultCacheDirectory: String { NSTemporaryDirectory() + "gallery-cache" }

    /// The index lives in the cache folder unless `--index` moves it.
    static func defaultIndexPath(cacheDirectory: String) -> String {
        (cacheDirectory.hasSuffix("/") ? cacheDirectory : cacheDirectory + "/") + "library-index.sqlite"
    }

    /// "jpeg,webp" (any order) or "jpeg": JPEG is the fallback every browser shows, so it is
    /// always served.
    static func formats(_ text: String) throws -> Set<RenderFormat> {
        var set = Set<RenderFormat>()
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let format = RenderFormat(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw Problem(description: "--formats wants jpeg or jpeg,webp (not \(name))")
            }
            set.insert(format)
        }
        guard set.contains(.standard) else { throw Problem(description: "--formats must include jpeg, the format every browser shows") }
        return set
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The repository (or install prefix) holding templates/ and public/: the current folder
    /// when it has templates/, else the folder above the binary's .build/ tree.
    private static func resourceBase() -> String {
        let cwd = FileManager.default.currentDirectoryPath
        if FileManager.default.fileExists(atPath: cwd + "/templates") { return cwd }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            if FileManager.default.fileExists(atPath: url.path + "/templates") { return url.path }
            url = url.deletingLastPathComponent()
        }
        return cwd
    }
}

/// The pipeline's limits that an operator may need to change (tests and the soak shorten the
/// timeouts and shrink the caches). Unset knobs keep `PipelineConfiguration`'s defaults.
struct PipelineTuning {
    struct Knob: Sendable {
        var flag: String
        var variable: String
        var maximum: Double
        /// Words accepted besides numbers, with the value each stands for.
        var words: [String: Double] = [:]
        var set: @Sendable (inout PipelineConfiguration, Double) -> Void
    }

    static let flags: [Knob] = [
        Knob(flag: "--origin-connect-timeout", variable: "GALLERY_ORIGIN_CONNECT_TIMEOUT", maximum: 600) { $0.connectTimeout = $1 },
        Knob(flag: "--origin-timeout", variable: "GALLERY_ORIGIN_TIMEOUT", maximum: 3600) { $0.totalTimeout = $1 },
        Knob(flag: "--remote-revalidate-after", variable: "GALLERY_REMOTE_REVALIDATE_AFTER", maximum: 315_360_000,
             words: ["never": .infinity]) { $0.remoteRevalidateAfter = $1 },
        Knob(flag: "--origin-max-bytes", variable: "GALLERY_ORIGIN_MAX_BYTES", maximum: Double(1 << 34)) { $0.maxOriginBytes = Int($1) },
        Knob(flag: "--disk-cache-bytes", variable: "GALLERY_DISK_CACHE_BYTES", maximum: Double(1 << 46)) { $0.diskCacheBytes = Int($1) },
        Knob(flag: "--render-cache-bytes", variable: "GALLERY_RENDER_CACHE_BYTES", maximum: Double(1 << 40)) { $0.renderCacheBytes = Int($1) },
        Knob(flag: "--decode-max-bytes", variable: "GALLERY_DECODE_MAX_BYTES", maximum: Double(1 << 40)) { $0.decodeLimits.maxMemoryBytes = Int($1) },
        Knob(flag: "--decode-budget-bytes", variable: "GALLERY_DECODE_BUDGET_BYTES", maximum: Double(1 << 41)) { $0.decodeMemoryBudgetBytes = Int($1) },
        Knob(flag: "--decode-budget-wait", variable: "GALLERY_DECODE_BUDGET_WAIT", maximum: 600) { $0.decodeMemoryBudgetWait = $1 },
        Knob(flag: "--jpeg-quality", variable: "GALLERY_JPEG_QUALITY", maximum: 100) { $0.jpegQuality = Int($1) },
        Knob(flag: "--webp-quality", variable: "GALLERY_WEBP_QUALITY", maximum: 100,
             words: ["auto": 0]) { $0.webpQuality = $1 > 0 ? Int($1) : nil },
        Knob(flag: "--max-renders", variable: "GALLERY_MAX_RENDERS", maximum: 1024) { $0.maxConcurrentRenders = Int($1) },
    ]

    var values: [String: Double] = [:]

    func apply(to configuration: inout PipelineConfiguration) {
        for knob in PipelineTuning.flags { if let v = values[knob.flag] { knob.set(&configuration, v) } }
    }

    /// Refuses knob values that contradict each other: a decode budget below the per-decode
    /// limit would turn away, as too large, decodes the limit allows.
    func validate() throws {
        var configuration = PipelineConfiguration(cacheDirectory: "", libraryRoot: "")
        apply(to: &configuration)
        let limit = configuration.decodeLimits.maxMemoryBytes
        guard configuration.decodeMemoryBudget >= limit else {
            throw ServeOptions.Problem(description: "--decode-budget-bytes wants at least --decode-max-bytes (\(limit))")
        }
    }
}

/// Appends timestamped lines to a file (or stderr), one write(2) per line so threads never interleave.
final class LineLogger: Sendable {
    private let fd: Int32

    init(path: String?) {
        if let path, case let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644), fd >= 0 {
            self.fd = fd
        } else {
            fd = 2
        }
    }

    func write(_ message: String) {
        let stamp = ISO8601DateFormatter().string(from: Date())
        let bytes = Array("\(stamp) [\(getpid())] \(message)\n".utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    }
}

/// glibc's `mallopt(M_ARENA_MAX, n)`. Swift's Glibc module leaves out <malloc.h>, so the
/// function is looked up by name; M_ARENA_MAX is -8 in glibc's ABI. Does nothing elsewhere.
func limitMallocArenas(_ n: Int32) {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(nil, "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(-8, n)
}
