import Foundation
import Gallery
#if canImport(Glibc)
import Glibc
#endif

/// The web section: the release `gallery` behind a private nginx on loopback, measured with wrk
/// in one run:
///   (a) a warm /img/ URL answered from nginx's fastcgi_cache,
///   (b) the same URL through nginx with its cache off (our in-memory render cache answers),
///   (c) nginx serving the same bytes as a static file (the ceiling),
/// plus a cold pass: 50 distinct photos at two sizes (100 renders), each requested once by 4
/// concurrent clients. Reports req/s, the ratios (a)/(c) and (b)/(c), and non-2xx counts.
enum WebBench {
    static let seconds = 4
    static let connections = 16

    static func run(_ context: BenchContext) {
        for tool in ["/usr/sbin/nginx", "/usr/bin/wrk"] where !FileManager.default.isExecutableFile(atPath: tool) {
            print("\n## web\nskipped: \(tool) is not installed")
            return
        }
        let dir = context.scratchDir + "/web"
        do {
            let setup = try WebSetup(dir: dir, photoDir: context.photoDir, galleryBinary: context.galleryBinary)
            defer { setup.stop() }
            try measure(setup)
        } catch {
            print("\n## web\nfailed: \(error)")
        }
    }

    private static func measure(_ setup: WebSetup) throws {
        let index = try setup.fetch(port: setup.cachedPort, path: "/")
        let albumPaths = matches(in: index.text, prefix: "/album/", allowed: "0123456789abcdef")
        var covers: [String] = []
        for album in albumPaths.isEmpty ? ["/"] : albumPaths {
            let page = try setup.fetch(port: setup.cachedPort, path: album)
            covers += matches(in: page.text, prefix: "/img/", allowed: "0123456789abcdefx/?v=").filter { $0.contains("/240x240?v=") }
        }
        covers = Array(Set(covers)).sorted()
        guard let warm = covers.first else { throw WebSetup.Failure(description: "no thumbnail URL on the pages") }

        // Warm both caches, and write the same bytes as a static file for (c).
        let bytes = try setup.fetch(port: setup.cachedPort, path: warm).body
        _ = try setup.fetch(port: setup.cachedPort, path: warm)
        _ = try setup.fetch(port: setup.uncachedPort, path: warm)
        try Data(bytes).write(to: URL(fileURLWithPath: setup.dir + "/static/thumb.jpg"))

        var table = Table(title: "web: wrk -t2 -c\(connections) -d\(seconds)s on loopback, \(bytes.count)-byte 240x240 JPEG",
                          columns: ["case", "req/s", "vs static", "non-2xx", "requests"])
        let staticRun = try wrk(url: "http://127.0.0.1:\(setup.cachedPort)/static/thumb.jpg")
        let cachedRun = try wrk(url: "http://127.0.0.1:\(setup.cachedPort)\(warm)")
        let appRun = try wrk(url: "http://127.0.0.1:\(setup.uncachedPort)\(warm)")
        table.add(["(a) nginx fastcgi_cache", String(format: "%.0f", cachedRun.rps), ratio(cachedRun.rps, staticRun.rps), "\(cachedRun.non2xx)", "\(cachedRun.requests)"])
        table.add(["(b) app render cache", String(format: "%.0f", appRun.rps), ratio(appRun.rps, staticRun.rps), "\(appRun.non2xx)", "\(appRun.requests)"])
        table.add(["(c) nginx static file", String(format: "%.0f", staticRun.rps), "1.00x", "\(staticRun.non2xx)", "\(staticRun.requests)"])

        // Cold: every photo at two sizes, once, through nginx without its cache.
        let coldURLs = covers.prefix(50).flatMap { [$0, $0.replacingOccurrences(of: "/240x240?", with: "/480x480?")] }
        let cold = try setup.fetchAll(port: setup.uncachedPort, paths: Array(coldURLs), clients: 4)
        table.add(["cold: \(coldURLs.count / 2) photos x 2 sizes", String(format: "%.1f", Double(coldURLs.count) / cold.seconds),
                   "-", "\(cold.failures)", "\(coldURLs.count) in \(String(format: "%.2f", cold.seconds)) s"])
        print(table.render(), terminator: "")
        print("cold renders: median \(ms(cold.medianLatency)) ms, max \(ms(cold.maxLatency)) ms per request (4 clients)")
    }

    /// Paths in `html` that start with `prefix` and continue with `allowed` characters.
    static func matches(in html: String, prefix: String, allowed: String) -> [String] {
        // Over the UTF-8 bytes in one pass: the root page of a million photos links 10,000
        // albums, and a substring search per link from where the last one ended made this
        // quadratic (minutes of the library section at a million photos).
        let ok = Set(allowed.utf8)
        let needle = Array(prefix.utf8)
        let bytes = Array(html.utf8)
        var out = Set<String>()
        var i = 1
        while i + needle.count <= bytes.count {
            if (bytes[i - 1] == UInt8(ascii: "\"") || bytes[i - 1] == UInt8(ascii: " ")) && bytes[i] == needle[0]
                && bytes[i..<i + needle.count].elementsEqual(needle) {
                var end = i + needle.count
                while end < bytes.count, ok.contains(bytes[end]) { end += 1 }
                out.insert(String(decoding: bytes[i..<end], as: UTF8.self))
                i = end
            } else {
                i += 1
            }
        }
        return out.sorted()
    }

    struct WrkResult { var rps: Double; var non2xx: Int; var requests: Int }

    static func wrk(url: String) throws -> WrkResult {
        let text = try WebSetup.runTool("/usr/bin/wrk", ["-t2", "-c\(connections)", "-d\(seconds)s", url])
        var result = WrkResult(rps: 0, non2xx: 0, requests: 0)
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("Requests/sec:"), let v = words.last.flatMap({ Double($0) }) { result.rps = v }
            if line.contains("Non-2xx or 3xx responses:"), let v = words.last.flatMap({ Int($0) }) { result.non2xx = v }
            if line.contains("requests in"), let v = words.first.flatMap({ Int($0) }) { result.requests = v }
        }
        return result
    }
}

/// The stack under test: a library of hard links to the benchmark photos (50 distinct items),
/// the gallery on a Unix socket, and one nginx with two servers: with and without fastcgi_cache.
final class WebSetup: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let dir: String
    let cachedPort: Int
    let uncachedPort: Int
    private let galleryPID: pid_t
    private var nginxStarted = false

    init(dir: String, photoDir: String, galleryBinary: String) throws {
        self.dir = dir
        let fm = FileManager.default
        try? fm.removeItem(atPath: dir)
        for sub in ["photos", "cache", "static"] {
            try fm.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        let sources = ((try? fm.contentsOfDirectory(atPath: photoDir)) ?? [])
            .filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        guard !sources.isEmpty else { throw Failure(description: "no photos in \(photoDir)") }
        for i in 0..<50 {
            let name = sources[i % sources.count]
            let target = dir + "/photos/" + String(format: "p%02d_", i) + name
            if link(photoDir + "/" + name, target) != 0 { try fm.copyItem(atPath: photoDir + "/" + name, toPath: target) }
        }
        let repo = WebSetup.repoRoot(binary: galleryBinary)
        let socket = dir + "/gallery.sock"
        galleryPID = try WebSetup.spawn(galleryBinary, [
            "serve", "--root", dir + "/photos", "--socket", socket, "--cache-dir", dir + "/cache",
            "--templates", repo + "/templates", "--public", repo + "/public", "--log", dir + "/gallery.log"])
        cachedPort = try WebSetup.freePort()
        uncachedPort = try WebSetup.freePort()
        // The deployment's own nginx configuration (deploy/lib.sh renders it from
        // deploy/nginx/), twice: as deployed, and with the image cache off so that (b) measures
        // the app. The static file for (c) is served from its /static/ location.
        for (name, port, cache) in [("nginx", cachedPort, true), ("nginx-nocache", uncachedPort, false)] {
            let run = dir + "/" + name
            try WebSetup.runTool("/bin/bash", ["-c", "source \"$0\"/deploy/lib.sh && render_nginx_conf \"$1\" \"$2\" \"$3\" \"$4\"",
                                               repo, run, String(port), socket, dir + "/static"])
            if !cache {
                let path = run + "/locations.conf"
                let text = try String(contentsOfFile: path, encoding: .utf8)
                try text.replacingOccurrences(of: "fastcgi_cache gallery_img;", with: "fastcgi_cache off;")
                    .write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
        for _ in 0..<100 where !fm.fileExists(atPath: socket) { usleep(50_000) }
        for name in ["nginx", "nginx-nocache"] {
            let run = dir + "/" + name
            try WebSetup.runTool("/usr/sbin/nginx", ["-p", run, "-c", run + "/nginx.conf", "-e", run + "/error.log"])
        }
        nginxStarted = true
    }

    func stop() {
        for name in ["nginx", "nginx-nocache"] where nginxStarted {
            guard let text = try? String(contentsOfFile: dir + "/" + name + "/nginx.pid", encoding: .utf8),
                  let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
            kill(pid, SIGTERM)
            for _ in 0..<100 where kill(pid, 0) == 0 { usleep(50_000) }
        }
        kill(galleryPID, SIGTERM)
        var status: Int32 = 0
        waitpid(galleryPID, &status, 0)
    }

    struct Reply: Sendable { var status: Int; var body: [UInt8]; var text: String { String(decoding: body, as: UTF8.self) } }

    /// One GET; throws unless the answer is 2xx.
    func fetch(port: Int, path: String) throws -> Reply {
        let reply = WebSetup.get("http://127.0.0.1:\(port)\(path)")
        guard (200..<300).contains(reply.status) else { throw Failure(description: "GET \(path): status \(reply.status)") }
        return reply
    }

    /// Each path once, `clients` at a time; wall time, failures and latency spread.
    func fetchAll(port: Int, paths: [String], clients: Int) throws -> (seconds: Double, failures: Int, medianLatency: Double, maxLatency: Double) {
        let next = Counter()
        let latencies = Collector()
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: clients) { _ in
            while true {
                let i = next.take()
                guard i < paths.count else { return }
                let t0 = DispatchTime.now().uptimeNanoseconds
                let reply = WebSetup.get("http://127.0.0.1:\(port)\(paths[i])")
                latencies.add(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9, failed: reply.status != 200)
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let (values, failures) = latencies.snapshot()
        let sorted = values.sorted()
        return (seconds, failures, sorted.isEmpty ? 0 : sorted[sorted.count / 2], sorted.last ?? 0)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func take() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value - 1 }
    }

    private final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Double] = []
        private var failures = 0
        func add(_ v: Double, failed: Bool) { lock.lock(); values.append(v); if failed { failures += 1 }; lock.unlock() }
        func snapshot() -> ([Double], Int) { lock.lock(); defer { lock.unlock() }; return (values, failures) }
    }

    /// One GET of `url` (http://host:port/path) on a connection of its own; status 0 when
    /// there was no answer.
    static func get(_ url: String) -> Reply {
        guard let parts = URLComponents(string: url), let host = parts.host, let port = parts.port else { return Reply(status: 0, body: []) }
        var target = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { target += "?" + query }
        let connection = HTTPConnection(host: host, port: port, timeoutSeconds: 120)
        defer { connection.close() }
        guard let answer = try? connection.get(target, hostHeader: "\(host):\(port)", keepBody: { _ in true }) else {
            return Reply(status: 0, body: [])
        }
        return Reply(status: answer.status, body: answer.body)
    }

    static func repoRoot(binary: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        if FileManager.default.fileExists(atPath: cwd + "/templates") { return cwd }
        var url = URL(fileURLWithPath: binary).deletingLastPathComponent()
        for _ in 0..<5 {
            if FileManager.default.fileExists(atPath: url.path + "/templates") { return url.path }
            url = url.deletingLastPathComponent()
        }
        return cwd
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw Failure(description: "no free port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Starts a process with posix_spawn, output to `outputFile` (Foundation's Process waits
    /// forever for EOF when a daemon such as nginx keeps the output pipe open).
    static func spawn(_ path: String, _ args: [String], outputFile: String = "/dev/null") throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { throw Failure(description: "cannot start \(path)") }
        return pid
    }

    /// Runs to completion and returns the output; throws on a non-zero exit.
    @discardableResult
    static func runTool(_ path: String, _ args: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "web-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { unlink(output) }
        let pid = try spawn(path, args, outputFile: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(description: "\(path) failed: \(text)") }
        return text
    }
}
