import FastCGI
import Foundation
import Gallery
import ImagePipeline

// libFuzzer entry point for everything request text reaches before any image work: the router, the
// query-string decoder, the size-spec parser, the template engine and the whole app's answer
// (pages, error pages, redirects). Merges the web branch's router/query/template fuzzer with the
// hardening one's app-level checks. This file must hold declarations only: top-level statements
// would make Swift emit its own `main` and the fuzzer would silently never run (docs/toolchain.md
// "Fuzzing").

/// A tiny library (one small JPEG in one album) and an app over it, made once per process.
/// The item id is `StableID.make("item:Album/tiny.jpg")`: seeds in Tests/FuzzSeeds/fuzz-request
/// use it so the fuzzer reaches /photo, /img and /original of a real item.
enum RequestFuzzHarness {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let base = NSTemporaryDirectory() + "fuzz-request-\(getpid())"

    static let app: GalleryApp = {
        let fm = FileManager.default
        let root = base + "/photos"
        do {
            try fm.createDirectory(atPath: root + "/Album", withIntermediateDirectories: true)
            let tiny = repository.path + "/Tests/Fixtures/jpeg/generated/odd_17x9_422.jpg"
            try fm.copyItem(atPath: tiny, toPath: root + "/Album/tiny.jpg")
            var pipelineConfiguration = PipelineConfiguration(cacheDirectory: base + "/cache", libraryRoot: root)
            pipelineConfiguration.log = { _ in }
            let pipeline = ImagePipeline(configuration: pipelineConfiguration)
            let configuration = GalleryConfiguration(libraryRoot: root, templatesDirectory: repository.path + "/templates",
                                                     publicDirectory: repository.path + "/public", indexPath: indexPath)
            let app = try GalleryApp(configuration: configuration, pipeline: pipeline, watchLibrary: false, log: { _ in })
            // Indexed, so /search, /on-this-day and the map's points run their SQL.
            app.refreshLibrary()
            atexit { try? FileManager.default.removeItem(atPath: RequestFuzzHarness.base) }
            return app
        } catch {
            fatalError("fuzz-request: cannot set up the test library under \(base): \(error)")
        }
    }()

    static let indexPath = base + "/index.sqlite"

    /// A second handle on the app's index (a reader: the app holds the writer lock), for
    /// running fuzzed searches directly, where a failed statement is visible.
    static let index: LibraryIndex = {
        _ = app
        guard let index = LibraryIndex.open(path: indexPath, log: { _ in }) else { fatalError("fuzz-request: no index at \(indexPath)") }
        return index
    }()

    /// Statuses the app may answer a GET or HEAD with; anything else (a 500) is a finding.
    static let expectedStatuses: Set<Int> = [200, 301, 302, 303, 304, 307, 308, 400, 404, 405, 414]
}

/// Input layout: the low two bits of byte 0 pick what the rest is fed to:
/// 0: a request target ("/img/<id>/480?v=…") with the method in bits 2-4 of byte 0, through
///    the router's invariants and then the whole app (pages, error pages, redirects);
/// 1: a query string, through the decoder, and as a search query through the parser and the
///    index's SQL (a statement that fails, e.g. FTS5 syntax leaking through, is a finding); 2: a template, rendered with hostile values (a
///    template author's mistake must give an error, never a trap, and values stay escaped);
/// 3: a size spec, which must read back to itself.
/// Traps and failed preconditions are findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1, size <= 8192 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    switch bytes[0] & 3 {
    case 0: fuzzRequest(method: ["GET", "HEAD", "POST", "get", "PUT", "OPTIONS", "TRACE", ""][Int(bytes[0] >> 2 & 7)], target: text)
    case 1: fuzzQuery(text)
    case 2: fuzzTemplate(text)
    default: fuzzSizeSpec(text)
    }
    return 0
}

func fuzzRequest(method: String, target: String) {
    let request = FastCGIRequest(params: ["REQUEST_METHOD": method, "REQUEST_URI": target])
    let route = Router.route(path: request.path, query: request.query)
    checkRoute(route, path: request.path)
    if let share = Router.shareScope(path: request.path) {
        precondition(!share.token.isEmpty && !share.token.contains("/") && share.rest.hasPrefix("/"), "bad share split of \(request.path)")
    }
    let response = RequestFuzzHarness.app.handle(request)
    // A streamed body (an album ZIP) holds a download slot until the transport finishes it.
    defer { response.stream?.finished() }
    if method == "GET" || method == "HEAD" {
        precondition(RequestFuzzHarness.expectedStatuses.contains(response.status) || response.status == 415
                     || response.status == 422 || response.status == 503,
                     "unexpected status \(response.status) for \(method) \(target)")
    } else if target.utf8.count <= RequestFuzzHarness.app.configuration.maxURIBytes {
        precondition(response.status == 405, "method \(method) answered \(response.status)")
    }
    if response.status >= 300 && response.status < 400 && response.status != 304 {
        let location = response.header("Location") ?? ""
        precondition(location.hasPrefix("/") && !location.hasPrefix("//"), "redirect off site: \(location)")
    }
}

func fuzzQuery(_ text: String) {
    for (key, value) in QueryString.parse(text) {
        precondition(!key.isEmpty, "empty query key")
        _ = value.utf8.count
    }
    _ = QueryString.percentDecode(text)
    let query = SearchQuery(parsing: text)
    precondition(query.clauses.count <= SearchQuery.maxClauses, "too many clauses")
    precondition(RequestFuzzHarness.index.search(query) != nil, "search failed for \(text)")
}

/// Most section and partial tags a fuzzed template may have. Mustache sections over a list
/// nest multiplicatively (k nested sections over a 2-element list render 2^k times), which is
/// the template language working as designed, not a bug: templates are trusted files of the
/// repository, never request input. The first fuzz run spent its time on such templates.
let maxTemplateTags = 8

func fuzzTemplate(_ text: String) {
    guard text.utf8.count <= 2048, templateTagCount(text) <= maxTemplateTags else { return }
    guard let library = try? TemplateLibrary(sources: ["page": text, "part": "<i>{{a}}</i>"]) else { return }
    let hostile = "<script>alert(1)</script>\"'&"
    let context: TemplateValue = ["a": .string(hostile), "b": .list([.string(hostile), .bool(true)]),
                                  "c": .object(["d": .string(hostile)]), "e": .html("<b>trusted</b>")]
    let out = library.renderPage("page", context: context)
    precondition(!out.contains("<script>alert(1)</script>") || text.contains("<script>alert(1)</script>"),
                 "a value was emitted without escaping")
}

/// Opening section, inverted-section and partial tags in `text`.
func templateTagCount(_ text: String) -> Int {
    var count = 0
    var previous: UInt8 = 0
    var beforePrevious: UInt8 = 0
    for b in text.utf8 {
        if beforePrevious == UInt8(ascii: "{") && previous == UInt8(ascii: "{")
            && (b == UInt8(ascii: "#") || b == UInt8(ascii: "^") || b == UInt8(ascii: ">")) {
            count += 1
        }
        beforePrevious = previous
        previous = b
    }
    return count
}

func fuzzSizeSpec(_ text: String) {
    guard let spec = SizeSpec(parsing: text) else { return }
    precondition(SizeSpec(parsing: spec.description) == spec, "size spec does not read back: \(text)")
    precondition(spec.description == text, "two spellings of one size: \(text) and \(spec.description)")
}

/// A version is lowercase hex, then optionally "-" and a short tag of lowercase letters and digits.
func checkVersion(_ version: String) {
    let parts = version.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    let hex = parts[0].utf8.allSatisfy { b in (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }
    let tag = parts.count == 1 || parts[1].utf8.allSatisfy { b in (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7A) }
    precondition(!parts[0].isEmpty && hex && tag, "bad version \(version)")
}

/// Invariants every route must keep, whatever the input.
func checkRoute(_ route: Route, path: String) {
    let safe = path.utf8.allSatisfy { b in
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2F || b == 0x2D || b == 0x5F
            || b == 0x2E
    }
    if !safe { precondition(route == .notFound, "path with unsafe bytes routed: \(path)") }
    switch route {
    case .album(let id, let page), .albumPhotos(let id, let page):
        precondition(StableID.isWellFormed(id) && page >= 1 && page <= Router.maxPage, "bad album route")
    case .photo(let id), .original(let id), .badImageSize(let id), .albumDownload(let id, _), .companionOriginal(let id, _),
         .motionOriginal(let id):
        precondition(StableID.isWellFormed(id), "bad id \(id)")
    case .image(let id, let spec, let format, let version):
        precondition(StableID.isWellFormed(id), "bad id \(id)")
        precondition(SizeSpec(parsing: spec.description) == spec, "size does not read back: \(spec)")
        precondition(RenderFormat.split(spec.description + format.urlSuffix).map { $0.format } == format, "format does not read back")
        if let version { checkVersion(version) }
    case .index(let page), .search(_, let page), .searchPhotos(_, let page):
        precondition(page >= 1 && page <= Router.maxPage, "bad page")
    case .map(let album):
        precondition(album.map { StableID.isWellFormed($0) } ?? true, "bad map album")
    case .mapPoints(let box, let zoom, let album):
        precondition(album.map { StableID.isWellFormed($0) } ?? true, "bad map album")
        precondition(box.west <= box.east && box.south <= box.north && abs(box.west) <= 180 && abs(box.north) <= 90
                     && (0...22).contains(zoom), "bad map box")
    case .onThisDay:
        break
    case .healthz, .metrics, .notFound:
        break
    }
}
