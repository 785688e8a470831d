import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two app processes (each with its own cache folder) behind one nginx, using the shipped
/// deploy/nginx/gallery-scale-out.conf.in: image URLs split between them by
/// `hash $request_uri consistent`, and when one is killed the other answers everything.
/// The test turns nginx's image cache off so that every request reaches an app, and adds
/// `X-Upstream-Addr` to see which one answered.
@Suite(.serialized) struct ScaleOutTests {
    final class TwoHosts: @unchecked Sendable {
        let base: String
        let port: Int
        let ports: [Int]
        var pids: [pid_t] = []
        var nginxPID: pid_t = 0

        init(library: TestLibrary) throws {
            base = (library.root as NSString).deletingLastPathComponent
            let run = base + "/run"
            try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
            let repo = Fixtures.repoRoot.path
            let binary = try FaultPaths.gallery.orThrow("gallery binary not built")
            port = try FaultNet.freePort()
            ports = [try FaultNet.freePort(), try FaultNet.freePort()]
            for (k, appPort) in ports.enumerated() {
                try Subprocess.run("/usr/bin/spawn-fcgi", ["-a", "127.0.0.1", "-p", String(appPort), "-F", "1", "-P", run + "/app\(k).pid", "--",
                    binary, "serve", "--root", library.root, "--cache-dir", base + "/cache\(k)", "--templates", repo + "/templates",
                    "--public", repo + "/public", "--log", base + "/app\(k).log", "--threads", "4", "--page-wait", "60"])
                pids.append(try FaultStack.readPID(run + "/app\(k).pid"))
            }
            try Subprocess.run("/bin/bash", ["-c", "source \"$0\"/deploy/lib.sh && render_nginx_conf \"$1\" \"$2\" \"$3\" \"$4\"",
                                             repo, run + "/nginx", String(port), "UNUSED", repo + "/public"])
            // The shipped scale-out upstream in place of the single-socket one.
            let upstream = try String(contentsOfFile: repo + "/deploy/nginx/gallery-scale-out.conf.in", encoding: .utf8)
                .replacingOccurrences(of: "@SERVER_A@", with: "127.0.0.1:\(ports[0])")
                .replacingOccurrences(of: "@SERVER_B@", with: "127.0.0.1:\(ports[1])")
            try upstream.write(toFile: run + "/nginx/upstream.conf", atomically: true, encoding: .utf8)
            let confPath = run + "/nginx/nginx.conf"
            let conf = try String(contentsOfFile: confPath, encoding: .utf8)
            let single = "    upstream gallery_app {\n        server unix:UNUSED;\n    }\n"
            guard conf.contains(single) else { throw FaultFailure(description: "nginx.conf.in's upstream block changed") }
            try conf.replacingOccurrences(of: single, with: "    include \(run)/nginx/upstream.conf;\n")
                .write(toFile: confPath, atomically: true, encoding: .utf8)
            let locationsPath = run + "/nginx/locations.conf"
            let locations = try String(contentsOfFile: locationsPath, encoding: .utf8)
            try locations.replacingOccurrences(of: "fastcgi_cache gallery_img;", with: "fastcgi_cache off;")
                .replacingOccurrences(of: "add_header X-Cache-Status $upstream_cache_status always;",
                                      with: "add_header X-Cache-Status $upstream_cache_status always;\n    add_header X-Upstream-Addr $upstream_addr always;")
                .write(toFile: locationsPath, atomically: true, encoding: .utf8)
            try Subprocess.run("/usr/sbin/nginx", ["-p", run + "/nginx", "-c", confPath, "-e", run + "/nginx/error.log"])
            nginxPID = try FaultStack.readPID(run + "/nginx/nginx.pid")
            for _ in 0..<100 {
                if let r = try? RawHTTP.request(port: port, target: "/healthz", timeoutSeconds: 2), r.status == 200 { return }
                usleep(100_000)
            }
            throw FaultFailure(description: "stack did not become healthy")
        }

        func stop() {
            for pid in pids + [nginxPID] where pid > 0 && FaultStack.running(pid) {
                kill(pid, SIGTERM)
                FaultStack.waitGone(pid, seconds: 10)
                if FaultStack.running(pid) { kill(pid, SIGKILL) }
            }
        }
    }

    /// The app port that answered (the last address nginx tried).
    static func node(_ reply: HTTPReply) -> Int? {
        reply.header("X-Upstream-Addr")?.split(separator: ",").last?.split(separator: ":").last.flatMap { Int($0) }
    }

    @Test(.enabled(if: FaultPaths.stackAvailable)) func urlsSplitAndTheSurvivorAnswersEverything() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let hosts = try TwoHosts(library: library)
        defer { hosts.stop() }

        var pages = ["/"], seen: Set<String> = ["/"], images = Set<String>()
        while let page = pages.popLast() {
            let reply = try RawHTTP.request(port: hosts.port, target: page)
            #expect(reply.status == 200, "\(page)")
            images.formUnion(WarmEndToEndTests.imageURLs(in: reply.text))
            for next in WarmEndToEndTests.pageURLs(in: reply.text, page: page) where seen.insert(next).inserted { pages.append(next) }
        }
        let urls = images.sorted()
        var perNode: [Int: Int] = [:]
        var first: [String: Int] = [:]
        for url in urls {
            let reply = try RawHTTP.request(port: hosts.port, target: url)
            #expect(reply.status == 200, "\(url)")
            if let n = Self.node(reply) { perNode[n, default: 0] += 1; first[url] = n }
        }
        let counts = hosts.ports.map { perNode[$0] ?? 0 }
        print("scale-out: \(urls.count) image URLs split \(counts[0]) / \(counts[1]) between the two apps")
        #expect(counts[0] > 0 && counts[1] > 0, "\(counts)")
        // The same URL goes to the same app again.
        for url in urls.prefix(10) { #expect(Self.node(try RawHTTP.request(port: hosts.port, target: url)) == first[url]) }

        // Load from 4 clients over pages and images; app 0 is killed (SIGKILL by PID) meanwhile.
        let targets = urls + seen.sorted()
        let statuses = StatusLog()
        let killAt = DispatchTime.now().uptimeNanoseconds + 700_000_000
        let endAt = killAt + 2_000_000_000
        DispatchQueue.concurrentPerform(iterations: 5) { client in
            if client == 4 {
                while DispatchTime.now().uptimeNanoseconds < killAt { usleep(10_000) }
                kill(hosts.pids[0], SIGKILL)
                return
            }
            var i = client * 7
            while DispatchTime.now().uptimeNanoseconds < endAt {
                let status = (try? RawHTTP.request(port: hosts.port, target: targets[i % targets.count]).status) ?? 0
                statuses.add(status)
                i += 1
            }
        }
        let (total, failed) = statuses.summary()
        print("scale-out: \(total) requests while app 0 was killed, \(failed) answered 5xx or not at all")
        #expect(failed <= 4, "more failures than requests in flight: \(failed)")
        #expect(total > 20)

        // Afterwards the survivor answers every URL.
        var survivor = 0, errors = 0
        for url in targets {
            let reply = try RawHTTP.request(port: hosts.port, target: url)
            if reply.status != 200 { errors += 1 }
            if urls.contains(url), Self.node(reply) == hosts.ports[1] { survivor += 1 }
        }
        print("scale-out: after the kill \(targets.count - errors) of \(targets.count) pages and images answered 200; \(survivor) of \(urls.count) images came from the survivor")
        #expect(errors == 0)
        #expect(survivor == urls.count)
    }

    final class StatusLog: @unchecked Sendable {
        private let lock = NSLock()
        private var total = 0, failed = 0
        func add(_ status: Int) {
            lock.lock()
            total += 1
            if status == 0 || status >= 500 { failed += 1 }
            lock.unlock()
        }
        func summary() -> (Int, Int) { lock.lock(); defer { lock.unlock() }; return (total, failed) }
    }
}
