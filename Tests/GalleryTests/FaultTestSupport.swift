import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import ImagePipeline

// Harness for the end-to-end fault and security tests: the real product (spawn-fcgi + the
// `gallery` binary + a private nginx from the shipped templates) on loopback, an origin
// server we can make misbehave, a raw HTTP client and an auditor for the disk cache. Every
// process is stopped by its PID, also when a test fails.

/// Paths of the repository and of the binary `swift test` built.
enum FaultPaths {
    static let repo: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent()
    }()

    static func fixture(_ relative: String) -> String { repo.appendingPathComponent("Tests/Fixtures/" + relative).path }

    /// The `gallery` binary beside the test bundle (the configuration being tested).
    static let gallery: String? = {
        var candidates: [String] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent().appendingPathComponent("gallery").path) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery").path)
        candidates += ["release", "debug"].map { repo.appendingPathComponent(".build/\($0)/gallery").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether the tools the stack needs are installed.
    static var stackAvailable: Bool {
        gallery != nil && FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/spawn-fcgi")
    }
}

struct FaultFailure: Error, CustomStringConvertible { var description: String }

/// The product on loopback: `start()` runs spawn-fcgi (one gallery process) and nginx on a
/// free port; `killGallery()` and `startGallery()` simulate a crash and the supervisor's
/// restart; `stop()` (also from deinit) ends everything by PID.
final class FaultStack: @unchecked Sendable {
    let base: String
    let root: String
    let cacheDirectory: String
    let run: String
    let port: Int
    private(set) var galleryPID: pid_t = 0
    private(set) var nginxPID: pid_t = 0
    private var stopped = false

    var socket: String { run + "/gallery.sock" }
    var galleryLog: String { (try? String(contentsOfFile: base + "/gallery.log", encoding: .utf8)) ?? "" }
    var accessLog: String { (try? String(contentsOfFile: run + "/nginx/access.log", encoding: .utf8)) ?? "" }

    /// A stack over a fresh library folder; `populate` fills it before the gallery starts.
    init(populate: (String) throws -> Void) throws {
        base = NSTemporaryDirectory() + "gallery-hard-\(getpid())-\(UUID().uuidString.prefix(8))"
        root = base + "/photos"
        cacheDirectory = base + "/cache"
        run = base + "/run"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: run + "/nginx", withIntermediateDirectories: true)
        chmod(base, 0o755)
        do {
            try populate(root)
            port = try FaultNet.freePort()
        } catch {
            try? FileManager.default.removeItem(atPath: base)
            throw error
        }
        do {
            try startGallery()
            try FaultStack.tool("/bin/bash", ["-c", "source \"$0\"/deploy/lib.sh && render_nginx_conf \"$1\" \"$2\" \"$3\" \"$4\"",
                                              FaultPaths.repo.path, run + "/nginx", String(port), socket, FaultPaths.repo.path + "/public"])
            try FaultStack.tool("/usr/sbin/nginx", ["-p", run + "/nginx", "-c", run + "/nginx/nginx.conf", "-e", run + "/nginx/error.log"])
            nginxPID = try FaultStack.readPID(run + "/nginx/nginx.pid")
            try waitHealthy()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// spawn-fcgi starts one gallery process on the Unix socket (as the supervisor would).
    func startGallery() throws {
        let binary = try FaultPaths.gallery.orThrow("gallery binary not built")
        unlink(socket)
        try FaultStack.tool("/usr/bin/spawn-fcgi", ["-s", socket, "-M", "0666", "-F", "1", "-P", run + "/gallery.pid", "--",
            binary, "serve", "--root", root, "--cache-dir", cacheDirectory, "--templates", FaultPaths.repo.path + "/templates",
            "--public", FaultPaths.repo.path + "/public", "--log", base + "/gallery.log", "--threads", "4", "--rescan", "0.5",
            "--page-wait", "60"])
        galleryPID = try FaultStack.readPID(run + "/gallery.pid")
    }

    /// SIGKILL, as a crash would: no handler runs, nothing is flushed.
    func killGallery() {
        guard galleryPID > 0 else { return }
        kill(galleryPID, SIGKILL)
        FaultStack.waitGone(galleryPID, seconds: 5)
        galleryPID = 0
    }

    var galleryAlive: Bool { galleryPID > 0 && FaultStack.running(galleryPID) }

    func waitHealthy() throws {
        for _ in 0..<150 {
            if let r = try? FaultHTTP.get(port: port, "/healthz", timeout: 2), r.status == 200 { return }
            usleep(100_000)
        }
        throw FaultFailure(description: "gallery not healthy on \(port); log:\n\(galleryLog)")
    }

    func get(_ target: String, method: String = "GET", headers: [String: String] = [:], from source: String? = nil,
             timeout: Int = 30) throws -> FaultReply {
        try FaultHTTP.request(port: port, method: method, target: target, headers: headers, source: source, timeout: timeout)
    }

    /// GET `/img/<id>/<spec>`, following the app's redirect to the versioned URL once.
    func image(_ id: String, spec: String = "480", timeout: Int = 30) throws -> FaultReply {
        let first = try get("/img/\(id)/\(spec)", timeout: timeout)
        guard (300..<400).contains(first.status), let location = first.header("Location") else { return first }
        let path = location.hasPrefix("http") ? String(location[(location.range(of: "/img/")?.lowerBound ?? location.startIndex)...]) : location
        return try get(path, timeout: timeout)
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        if nginxPID > 0 {
            kill(nginxPID, SIGTERM)
            FaultStack.waitGone(nginxPID, seconds: 10)
            if FaultStack.running(nginxPID) { kill(nginxPID, SIGKILL) }
        }
        if galleryPID > 0 {
            kill(galleryPID, SIGTERM)
            FaultStack.waitGone(galleryPID, seconds: 10)
            if FaultStack.running(galleryPID) { kill(galleryPID, SIGKILL) }
        }
        FaultCacheFolder.makeWritable(cacheDirectory)
        try? FileManager.default.removeItem(atPath: base)
    }

    /// Runs a tool to completion with posix_spawn and waitpid. Not Foundation's Process: from
    /// test threads its waitUntilExit sometimes never saw spawn-fcgi exit, and nginx's daemon
    /// keeps inherited descriptors open, so stdout/stderr go to a file, never a pipe.
    static func tool(_ path: String, _ args: [String]) throws {
        let errPath = NSTemporaryDirectory() + "fault-tool-\(getpid())-\(UUID().uuidString.prefix(8)).err"
        defer { unlink(errPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw FaultFailure(description: "cannot run \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var waited: pid_t
        repeat { waited = waitpid(pid, &status, 0) } while waited < 0 && errno == EINTR
        // WIFEXITED and WEXITSTATUS are macros Swift cannot import.
        let exited = waited == pid && (status & 0x7f) == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw FaultFailure(description: "\(path) \(args.joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }

    static func readPID(_ file: String) throws -> pid_t {
        for _ in 0..<50 {
            if let text = try? String(contentsOfFile: file, encoding: .utf8),
               let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 { return pid }
            usleep(100_000)
        }
        throw FaultFailure(description: "no pid in \(file)")
    }

    /// Alive and not a zombie (spawn-fcgi's children are reparented and may not be reaped).
    static func running(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        return state != "Z" && state != "X"
    }

    static func waitGone(_ pid: pid_t, seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while running(pid) && Date() < end { usleep(20_000) }
    }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw FaultFailure(description: message) }
        return self
    }
}

/// One HTTP answer (the same client as the other end-to-end tests).
typealias FaultReply = HTTPReply

enum FaultNet {
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FaultFailure(description: "socket") }
        defer { close(fd) }
        var addr = RawHTTP.loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw FaultFailure(description: "bind") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Writes everything; false when the peer went away (never raises SIGPIPE).
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }
}

/// A minimal HTTP/1.1 client that sends the target byte for byte (no normalising), from an
/// optional source address (127.0.0.2 looks like a non-loopback-allowed client to nginx).
enum FaultHTTP {
    static func get(port: Int, _ target: String, timeout: Int = 30) throws -> FaultReply {
        try request(port: port, target: target, timeout: timeout)
    }

    static func request(port: Int, method: String = "GET", target: String, headers: [String: String] = [:],
                        source: String? = nil, timeout: Int = 30) throws -> FaultReply {
        var headers = headers
        if method == "POST" || method == "PUT" { headers["Content-Length"] = "0" }
        return try RawHTTP.request(port: port, method: method, target: target, headers: headers,
                                   source: source, timeoutSeconds: timeout)
    }
}

/// How the test origin answers one path.
enum OriginBehavior: Sendable {
    case image([UInt8])
    case status(Int)
    /// Accepts, reads the request, then says nothing until the test ends.
    case hang
    /// Promises all the bytes, sends half, closes.
    case closeMidBody([UInt8])
    /// 200 with an HTML page.
    case html
    /// Declares (or, when `declared` is false, streams without a length) more than `bytes`.
    case tooLarge(bytes: Int, declared: Bool)
    /// Sends the image in small pieces spread over `seconds`.
    case slow([UInt8], seconds: Double)
}

/// An HTTP origin on 127.0.0.1 that answers each path as told, counting requests per path.
final class FaultOrigin: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let state = Mutex<(behaviors: [String: OriginBehavior], hits: [String: Int], sent: [String: Int], stopping: Bool)>(([:], [:], [:], false))

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FaultFailure(description: "socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = RawHTTP.loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw FaultFailure(description: "origin bind/listen") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread.detachNewThread { [self] in acceptLoop(fd) }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func set(_ path: String, _ behavior: OriginBehavior) { state.withLock { $0.behaviors[path] = behavior } }

    func hits(_ path: String) -> Int { state.withLock { $0.hits[path] ?? 0 } }
    /// Body bytes a `.slow` answer for `path` has sent so far.
    func sent(_ path: String) -> Int { state.withLock { $0.sent[path] ?? 0 } }

    var allHits: [String: Int] { state.withLock { $0.hits } }

    var stopping: Bool { state.withLock { $0.stopping } }

    func stop() {
        state.withLock { $0.stopping = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { if !stopping { stop() } }

    private func acceptLoop(_ fd: Int32) {
        while !stopping {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16384 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            head += buffer[0..<n]
            if String(decoding: head, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let requestLine = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        let path = parts.count >= 2 ? String(parts[1]) : "/"
        let behavior = state.withLock { s -> OriginBehavior? in
            s.hits[path, default: 0] += 1
            return s.behaviors[path]
        }
        func headers(_ status: String, _ type: String, length: Int?) -> [UInt8] {
            var text = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nConnection: close\r\n"
            if let length { text += "Content-Length: \(length)\r\n" }
            return Array((text + "\r\n").utf8)
        }
        switch behavior {
        case nil:
            FaultNet.sendAll(fd, headers("404 Not Found", "text/plain", length: 9) + Array("not found".utf8))
        case .image(let bytes):
            FaultNet.sendAll(fd, headers("200 OK", "image/jpeg", length: bytes.count) + bytes)
        case .status(let code):
            let body = Array("<html><body>error \(code)</body></html>".utf8)
            FaultNet.sendAll(fd, headers("\(code) Oops", "text/html", length: body.count) + body)
        case .hang:
            for _ in 0..<600 where !stopping { usleep(50_000) }
        case .closeMidBody(let bytes):
            FaultNet.sendAll(fd, headers("200 OK", "image/jpeg", length: bytes.count) + Array(bytes.prefix(bytes.count / 2)))
            usleep(50_000)
        case .html:
            let body = Array("<!doctype html><html><head><title>Login</title></head><body>Please sign in</body></html>".utf8)
            FaultNet.sendAll(fd, headers("200 OK", "text/html; charset=utf-8", length: body.count) + body)
        case .tooLarge(let bytes, let declared):
            let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
            guard FaultNet.sendAll(fd, headers("200 OK", "image/jpeg", length: declared ? bytes + 1 : nil) + jpegStart) else { return }
            let chunk = [UInt8](repeating: 0x41, count: 256 << 10)
            var sent = 4
            while sent <= bytes, !stopping {
                guard FaultNet.sendAll(fd, chunk) else { return }
                sent += chunk.count
            }
        case .slow(let bytes, let seconds):
            guard FaultNet.sendAll(fd, headers("200 OK", "image/jpeg", length: bytes.count)) else { return }
            let pieces = 40
            let step = max(1, (bytes.count + pieces - 1) / pieces)
            var offset = 0
            while offset < bytes.count, !stopping {
                let end = min(bytes.count, offset + step)
                guard FaultNet.sendAll(fd, Array(bytes[offset..<end])) else { return }
                state.withLock { $0.sent[path, default: 0] += end - offset }
                offset = end
                usleep(useconds_t(seconds / Double(pieces) * 1e6))
            }
        }
    }
}

/// The disk cache of originals as found on disk, checked entry by entry.
enum FaultCacheFolder {
    struct Audit: CustomStringConvertible {
        /// Complete entries (data + metadata) that verified.
        var entries: [String] = []
        /// Anything partial or wrong.
        var problems: [String] = []
        /// Temp files a killed writer left (never read; swept after an hour).
        var temps: [String] = []
        var description: String { "\(entries.count) entries, problems \(problems), temps \(temps)" }
    }

    /// Every data file has metadata whose URL hashes to its name, whose length is its size and
    /// whose version is the SHA-256 of its bytes; every metadata file has its data.
    static func audit(_ directory: String) -> Audit {
        var audit = Audit()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasPrefix(".tmp-") { audit.temps.append(name); continue }
            if name.hasSuffix(".lock") { continue }
            // The library index lives in the cache folder too (docs/library-index.md).
            if name.hasPrefix("library-index.sqlite") { continue }
            // The share-link secret lives in the cache folder too (the disk cache ignores it).
            if name == "share.key" { continue }
            if name.hasSuffix(".json") {
                let key = String(name.dropLast(5))
                if !FileManager.default.fileExists(atPath: directory + "/" + key) { audit.problems.append("\(name): metadata without data") }
                continue
            }
            guard name.utf8.count == 64 else { audit.problems.append("\(name): unexpected file"); continue }
            guard let meta = FileManager.default.contents(atPath: path + ".json"),
                  let json = try? JSONSerialization.jsonObject(with: meta) as? [String: Any],
                  let url = json["url"] as? String, let length = json["length"] as? Int,
                  let version = json["version"] as? String else {
                audit.problems.append("\(name): data without readable metadata")
                continue
            }
            let bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            if SHA256.hex(url) != name { audit.problems.append("\(name): name is not SHA-256 of \(url)") }
            if bytes.count != length { audit.problems.append("\(name): \(bytes.count) bytes, metadata says \(length)") }
            if !SHA256.hex(bytes).hasPrefix(version) { audit.problems.append("\(name): bytes do not hash to version \(version)") }
            if bytes.count == length { audit.entries.append(url) }
        }
        return audit
    }

    /// Makes the folder refuse writes even to root: chmod first, then a read-only bind mount.
    /// Returns false when neither works here.
    static func makeReadOnly(_ directory: String) -> Bool {
        chmod(directory, 0o555)
        if !writable(directory) { return true }
        try? FaultStack.tool("/bin/mount", ["--bind", "-o", "ro", directory, directory])
        return !writable(directory)
    }

    static func makeWritable(_ directory: String) {
        while !writable(directory), (try? FaultStack.tool("/bin/umount", [directory])) != nil {}
        chmod(directory, 0o755)
    }

    static func writable(_ directory: String) -> Bool {
        let probe = directory + "/.write-probe-\(getpid())"
        let fd = open(probe, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        close(fd)
        unlink(probe)
        return true
    }
}
