import FastCGI
import Foundation
import Gallery
import ImagePipeline

// libFuzzer entry point for everything a request line reaches before any image work: the
// router, the query-string decoder, the size-spec parser and the whole app's answer (pages,
// error pages, redirects). This file must hold declarations only: top-level statements would
// make Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

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
            let pipeline = try ImagePipeline(configuration: pipelineConfiguration)
            let configuration = GalleryConfiguration(libraryRoot: root, templatesDirectory: repository.path + "/templates",
                                                     publicDirectory: repository.path + "/public")
            let app = try GalleryApp(configuration: configuration, pipeline: pipeline, watchLibrary: false, log: { _ in })
            atexit { try? FileManager.default.removeItem(atPath: RequestFuzzHarness.base) }
            return app
        } catch {
            fatalError("fuzz-request: cannot set up the test library under \(base): \(error)")
        }
    }()

    /// Statuses the app may answer a GET or HEAD with; anything else (a 500) is a finding.
    static let expectedStatuses: Set<Int> = [200, 301, 302, 303, 304, 307, 308, 400, 404, 405, 414]
}

/// Input layout: byte 0 picks the method (GET, HEAD, or an odd one), the rest is the request
/// target as the browser sent it ("/img/<id>/480?v=…"). Traps and failed preconditions are
/// findings: a route naming an id that is not 12 hex digits, a size spec that does not read
/// back to itself, a path outside the safe alphabet that is not a 404, a 5xx answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1, size <= 4096 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let method = ["GET", "HEAD", "POST", "get", "PUT", "OPTIONS", "TRACE", ""][Int(bytes[0] & 7)]
    let target = String(decoding: bytes.dropFirst(), as: UTF8.self)

    let request = FastCGIRequest(params: ["REQUEST_METHOD": method, "REQUEST_URI": target])
    let route = Router.route(path: request.path, query: request.query)
    checkRoute(route, path: request.path)

    _ = QueryString.parse(request.query)
    if let spec = SizeSpec(parsing: target) {
        precondition(SizeSpec(parsing: spec.description) == spec, "size spec does not read back: \(target)")
        precondition(spec.description.utf8.count <= target.utf8.count, "canonical spec longer than its input")
    }

    let response = RequestFuzzHarness.app.handle(request)
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
    return 0
}

/// Invariants every route must keep, whatever the input.
func checkRoute(_ route: Route, path: String) {
    let safe = path.utf8.allSatisfy { b in
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2F || b == 0x2D || b == 0x5F
    }
    if !safe { precondition(route == .notFound, "path with unsafe bytes routed: \(path)") }
    switch route {
    case .album(let id, let page):
        precondition(StableID.isWellFormed(id) && page >= 1 && page <= Router.maxPage, "bad album route")
    case .photo(let id), .original(let id):
        precondition(StableID.isWellFormed(id), "bad id \(id)")
    case .image(let id, let spec, let version):
        precondition(StableID.isWellFormed(id), "bad id \(id)")
        precondition(spec.utf8.count <= 11 && !spec.isEmpty, "spec shape \(spec)")
        if let version { precondition(version.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) }
    case .index(let page):
        precondition(page >= 1 && page <= Router.maxPage, "bad page")
    case .healthz, .metrics, .notFound:
        break
    }
}
