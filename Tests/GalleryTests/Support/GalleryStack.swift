import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The whole product on loopback for one test: spawn-fcgi starts the `gallery` binary that
/// `swift test` built on a Unix socket, and a private nginx (rendered from the shipped
/// deploy/nginx templates) listens on a free port. `stop()` (also run by deinit) ends both by
/// PID, so nothing outlives a failing test.
final class GalleryStack: @unchecked Sendable {
    let base: String
    let run: String
    let port: Int
    let library: TestLibrary
    private(set) var galleryPID: pid_t = 0
    private(set) var nginxPID: pid_t = 0
    private var stopped = false

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `probeScript`: JavaScript added to every HTML page (through nginx's sub_filter) for browser checks.
    /// `arguments`: more `gallery serve` flags (`--formats jpeg`, `--colour wide`).
    init(library: TestLibrary, probeScript: String? = nil, arguments: [String] = []) throws {
        self.library = library
        base = (library.root as NSString).deletingLastPathComponent
        run = base + "/run"
        port = try FaultNet.freePort()
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let repo = Fixtures.repoRoot.path
        let binary = try FaultPaths.gallery.orThrow("gallery binary not built; run `swift build` first")
        let socket = run + "/gallery.sock"

        try Subprocess.run("/usr/bin/spawn-fcgi", ["-s", socket, "-M", "0666", "-F", "1", "-P", run + "/gallery.pid", "--",
            binary, "serve", "--root", library.root, "--cache-dir", base + "/cache", "--templates", repo + "/templates",
            "--public", repo + "/public", "--log", base + "/gallery.log", "--threads", "4", "--rescan", "0.5",
            "--page-wait", "60", "--originals-redirect", "/_library/"] + arguments)
        galleryPID = try FaultStack.readPID(run + "/gallery.pid")

        try Subprocess.run("/bin/bash", ["-c", "source \"$0\"/deploy/lib.sh && render_nginx_conf \"$1\" \"$2\" \"$3\" \"$4\" \"$5\"",
                                              repo, run + "/nginx", String(port), socket, repo + "/public", library.root])
        if let probeScript {
            try probeScript.write(toFile: base + "/probe.js", atomically: true, encoding: .utf8)
            chmod(base, 0o755)
            let conf = run + "/nginx/nginx.conf"
            var text = try String(contentsOfFile: conf, encoding: .utf8)
            text = text.replacingOccurrences(of: "        include " + run + "/nginx/locations.conf;", with: """
                        sub_filter '</body>' '<script src="/__probe.js"></script></body>';
                        sub_filter_once on;
                        location = /__probe.js { alias \(base)/probe.js; default_type application/javascript; }
                        include \(run)/nginx/locations.conf;
                """)
            try text.write(toFile: conf, atomically: true, encoding: .utf8)
        }
        try Subprocess.run("/usr/sbin/nginx", ["-p", run + "/nginx", "-c", run + "/nginx/nginx.conf", "-e", run + "/nginx/error.log"])
        nginxPID = try FaultStack.readPID(run + "/nginx/nginx.pid")

        for _ in 0..<100 {
            if let r = try? RawHTTP.request(port: port, target: "/healthz", timeoutSeconds: 2), r.status == 200 { return }
            usleep(100_000)
        }
        stop()
        throw Failure(description: "gallery did not become healthy on port \(port); log: \(galleryLog)")
    }

    deinit { stop() }

    var galleryLog: String { (try? String(contentsOfFile: base + "/gallery.log", encoding: .utf8)) ?? "" }

    func get(_ target: String, method: String = "GET", headers: [String: String] = [:]) throws -> HTTPReply {
        try RawHTTP.request(port: port, method: method, target: target, headers: headers)
    }

    /// SIGTERM to the app (it finishes requests and exits 0), then nginx. Returns whether the
    /// app logged a clean stop.
    @discardableResult
    func stop() -> Bool {
        guard !stopped else { return galleryLog.contains("stopped cleanly") }
        stopped = true
        if galleryPID > 0 { GalleryStack.terminate(galleryPID) }
        if nginxPID > 0 { GalleryStack.terminate(nginxPID) }
        return galleryLog.contains("stopped cleanly")
    }

    private static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        FaultStack.waitGone(pid, seconds: 15)
        if FaultStack.running(pid) { kill(pid, SIGKILL) }
    }
}
