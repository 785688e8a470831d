import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Gallery
import FastCGI
import ImagePipeline

/// The web layer's security promises, checked through the shipped nginx config and the real
/// binary: ids come only from the catalog, no URL path reaches the file system, no URL from a
/// request is ever fetched, sizes are allow-listed, every template value is escaped,
/// /metrics is loopback-only, odd methods get 405 and long URIs 414.
@Suite(.serialized, .enabled(if: FaultPaths.stackAvailable, "needs nginx, spawn-fcgi and the gallery binary"))
struct SecurityTests {
    /// "/" cannot be in a file name: U+2215 (division slash) stands in for it and reads the same.
    static let hostileFile = "<script>alert(1)<\u{2215}script>.jpg"
    static let hostileTitle = "\"><img onerror=alert(2) src=x>"
    static let hostileSiteTitle = "Site \"><img onerror=alert(3) src=x>"
    static let hostileAlbumTitle = "</title><script>alert(4)</script>"
    static let hostileCaption = "<iframe src=javascript:alert(5)>"

    /// Summer/ holds a normal photo and one with a hostile name; the manifest gives hostile
    /// titles; link.jpg points outside the library; one remote item lives on `origin`.
    static func library(_ origin: FaultOrigin?) -> (String) throws -> Void {
        { root in
            let fm = FileManager.default
            try fm.createDirectory(atPath: root + "/Summer", withIntermediateDirectories: true)
            try fm.copyItem(atPath: FaultPaths.fixture("jpeg/generated/odd_17x9_422.jpg"), toPath: root + "/Summer/plain.jpg")
            try fm.copyItem(atPath: FaultPaths.fixture("jpeg/generated/odd_33x7_411.jpg"), toPath: root + "/Summer/" + hostileFile)
            try fm.copyItem(atPath: FaultPaths.fixture("jpeg/generated/odd_7x13_420.jpg"), toPath: root + "/titled.jpg")
            try fm.createSymbolicLink(atPath: root + "/link.jpg", withDestinationPath: "/etc/passwd")
            var manifest: [String: Any] = [
                "title": hostileSiteTitle,
                "albums": ["Summer": ["title": hostileAlbumTitle, "caption": hostileCaption]],
                "items": ["titled.jpg": ["title": hostileTitle, "caption": hostileCaption]],
            ]
            if let origin {
                manifest["remote"] = [["url": origin.url("/remote.jpg"), "title": hostileTitle, "album": "Remote <b>"]]
            }
            try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: root + "/gallery.json"))
        }
    }

    static func itemID(_ relative: String) -> String { StableID.make("item:" + relative) }

    @Test func pathsFromTheURLNeverReachTheFileSystem() throws {
        let stack = try FaultStack(populate: SecurityTests.library(nil))
        defer { stack.stop() }
        let targets = [
            "/album/../../etc/passwd", "/album/..%2f..%2fetc%2fpasswd", "/album/%2e%2e/%2e%2e/etc/passwd",
            "/album/%252e%252e%252f%252e%252e%252fetc%252fpasswd", "/photo/..%5c..%5cetc%5cpasswd",
            "/photo/..\\..\\etc\\passwd", "/photo/abc%00def", "/photo/%00", "/original/..%2f..%2f..%2fetc%2fpasswd",
            "/original/../../../../etc/passwd", "/img/../../etc/passwd/480", "/img/%2e%2e%2f%2e%2e%2fetc%2fpasswd/480",
            "/static/../../../../etc/passwd", "/static/..%2f..%2f..%2f..%2fetc/passwd", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
            "//etc/passwd", "/etc/passwd", "/photo/Summer/plain.jpg", "/original/Summer%2fplain.jpg",
            "/photo/" + SecurityTests.itemID("link.jpg"), "/original/" + SecurityTests.itemID("link.jpg"),
            "/photo/000000000000", "/original/ffffffffffff", "/img/000000000000/480", "/album/000000000000",
            "/photo/" + SecurityTests.itemID("titled.jpg").uppercased(),
        ]
        var rows: [String] = []
        for target in targets {
            let reply = try stack.get(target)
            rows.append("\(target) → \(reply.status)")
            #expect(reply.status == 404, "\(target): \(reply.status)")
            #expect(!reply.text.contains("root:x:0:0"), "\(target) leaked /etc/passwd")
        }
        // The catalog's own ids do work, so the 404s above are not a broken stack.
        #expect(try stack.get("/photo/" + SecurityTests.itemID("Summer/plain.jpg")).status == 200)
        #expect(try stack.get("/original/" + SecurityTests.itemID("Summer/plain.jpg")).status == 200)
        print("security: traversal and unknown ids\n" + rows.joined(separator: "\n"))
    }

    @Test func noURLFromARequestIsFetchedAndSizesAreAllowListed() throws {
        let origin = try FaultOrigin()
        defer { origin.stop() }
        origin.set("/remote.jpg", .image(FaultTests.photo))
        let stack = try FaultStack(populate: SecurityTests.library(origin))
        defer { stack.stop() }
        let plain = SecurityTests.itemID("Summer/plain.jpg")
        let canary = origin.url("/canary")
        let encoded = canary.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        for target in ["/?url=\(encoded)", "/?src=\(canary)", "/photo/\(plain)?url=\(encoded)", "/original/\(plain)?url=\(encoded)",
                       "/img/\(plain)/480?url=\(encoded)", "/img/\(plain)/480?v=0&url=\(encoded)&source=\(encoded)",
                       "/album/\(StableID.make("album:Summer"))?page=1&url=\(encoded)", "/healthz?url=\(encoded)"] {
            let reply = try stack.get(target, headers: ["Referer": canary, "X-Original-URL": canary, "X-Forwarded-Host": "127.0.0.1:\(origin.port)"])
            #expect(reply.status < 500, "\(target): \(reply.status)")
        }
        #expect(origin.hits("/canary") == 0, "a URL from a request was fetched")
        #expect(Set(origin.allHits.keys).isSubset(of: ["/remote.jpg"]), "origin saw \(origin.allHits)")

        for spec in ["481", "99999", "1", "2561", "240x241", "99999x99999", "480x480x480"] {
            let reply = try stack.get("/img/\(plain)/\(spec)")
            #expect(reply.status == 400 || (spec.filter { $0 == "x" }.count > 1 && reply.status == 404), "size \(spec): \(reply.status)")
        }
        for spec in ["0480", "480x", "x480", "-480", "480.0", "%34%38%30"] {
            let reply = try stack.get("/img/\(plain)/\(spec)")
            #expect(reply.status == 400 || reply.status == 404, "size \(spec): \(reply.status)")
        }
        let allowed = try stack.image(plain, spec: "480")
        #expect(allowed.status == 200, "an allowed size works: \(allowed.status)")
    }

    @Test func everyTemplateValueIsEscaped() throws {
        let origin = try FaultOrigin()
        defer { origin.stop() }
        origin.set("/remote.jpg", .image(FaultTests.photo))
        let stack = try FaultStack(populate: SecurityTests.library(origin))
        defer { stack.stop() }
        let summer = StableID.make("album:Summer")
        let pages = [
            "/", "/album/\(summer)", "/photo/\(SecurityTests.itemID("Summer/" + SecurityTests.hostileFile))",
            "/photo/\(SecurityTests.itemID("titled.jpg"))", "/photo/\(StableID.make("url:" + origin.url("/remote.jpg")))",
            "/photo/\(SecurityTests.itemID("Summer/plain.jpg"))", "/no-such-page",
        ]
        let raw = ["<script>alert(", "<img onerror", "</title><script>", "<iframe", "Remote <b>"]
        for page in pages {
            let reply = try stack.get(page)
            #expect(reply.status == 200 || page == "/no-such-page", "\(page): \(reply.status)")
            for needle in raw {
                #expect(!reply.text.contains(needle), "\(page) renders \(needle) unescaped")
            }
        }
        let album = try stack.get("/album/\(summer)").text
        #expect(album.contains("&lt;script&gt;alert(1)&lt;\u{2215}script&gt;"), "the hostile file name is shown, escaped")
        let detail = try stack.get("/photo/\(SecurityTests.itemID("titled.jpg"))").text
        #expect(detail.contains("&lt;img onerror=alert(2) src=x&gt;"), "the hostile title is shown, escaped")
        // The original's download name is quoted and percent-encoded, never a header break.
        let original = try stack.get("/original/\(SecurityTests.itemID("Summer/" + SecurityTests.hostileFile))")
        #expect(original.status == 200)
        let disposition = original.header("Content-Disposition") ?? ""
        #expect(disposition.contains("filename*=UTF-8''%3Cscript%3Ealert%281%29%3C%E2%88%95script%3E.jpg"), "\(disposition)")
        #expect(original.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func metricsAreLoopbackOnly() throws {
        let locations = try String(contentsOfFile: FaultPaths.repo.path + "/deploy/nginx/gallery-locations.conf.in", encoding: .utf8)
        let start = try #require(locations.range(of: "location = /metrics {"), "no /metrics location")
        let tail = locations[start.lowerBound...]
        let block = String(tail[..<(try #require(tail.range(of: "}"))).upperBound])
        #expect(block.contains("allow 127.0.0.1;") && block.contains("deny all;"), "metrics block: \(block)")
        let allowIndex = try #require(block.range(of: "allow 127.0.0.1;")).lowerBound
        let denyIndex = try #require(block.range(of: "deny all;")).lowerBound
        #expect(allowIndex < denyIndex, "allow must come before deny all")

        let stack = try FaultStack(populate: SecurityTests.library(nil))
        defer { stack.stop() }
        let local = try stack.get("/metrics")
        #expect(local.status == 200 && local.text.contains("gallery_"), "loopback /metrics: \(local.status)")
        guard (try? FaultHTTP.request(port: stack.port, target: "/healthz", source: "127.0.0.2")) != nil else {
            print("security: cannot send from 127.0.0.2 here; metrics checked by config text only")
            return
        }
        for target in ["/metrics", "/metrics?x=1", "//metrics", "/%6detrics", "/metrics/", "/METRICS", "/./metrics", "/static/../metrics"] {
            let reply = try FaultHTTP.request(port: stack.port, target: target, source: "127.0.0.2")
            #expect(reply.status == 403 || reply.status == 404, "\(target) from 127.0.0.2: \(reply.status)")
            #expect(!reply.text.contains("gallery_"), "\(target) from 127.0.0.2 leaked metrics")
        }
        #expect(try FaultHTTP.request(port: stack.port, target: "/healthz", source: "127.0.0.2").status == 200)
    }

    @Test func oddMethodsGet405AndLongURIs414() throws {
        let stack = try FaultStack(populate: SecurityTests.library(nil))
        defer { stack.stop() }
        let plain = SecurityTests.itemID("Summer/plain.jpg")
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"] {
            for target in ["/", "/photo/\(plain)", "/img/\(plain)/480", "/healthz"] {
                let reply = try stack.get(target, method: method)
                #expect(reply.status == 405, "\(method) \(target): \(reply.status)")
                if reply.status == 405 && !target.hasPrefix("/img/") {
                    #expect(reply.header("Allow")?.contains("GET") == true, "\(method) \(target): Allow \(reply.header("Allow") ?? "-")")
                }
            }
        }
        #expect(try stack.get("/", method: "TRACE").status == 405)
        let head = try stack.get("/photo/\(plain)", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        for length in [2100, 4000, 7000, 12_000] {
            let target = "/photo/" + String(repeating: "a", count: length)
            let reply = try stack.get(target)
            #expect(reply.status == 414, "URI of \(length) bytes: \(reply.status)")
        }
        let longQuery = try stack.get("/?page=1&" + String(repeating: "x=1&", count: 700))
        #expect(longQuery.status == 414, "long query: \(longQuery.status)")
        #expect(try stack.get("/healthz").status == 200)
    }

    /// Every input fuzz-request ever saved (Tests/FuzzFindings/fuzz-request/) replayed in process
    /// the way the fuzz target reads it: byte 0's low bits pick request, query, template or size
    /// spec. None may trap, answer 5xx or take a second. Templates with more section tags than
    /// the target allows are skipped as the target skips them: nested sections over a list
    /// multiply by design (the first findings were such templates), and templates are trusted.
    @Test func fuzzRequestFindingsStayFixed() throws {
        let dir = FaultPaths.repo.path + "/Tests/FuzzFindings/fuzz-request"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        let base = NSTemporaryDirectory() + "fuzz-replay-\(getpid())-\(UUID().uuidString.prefix(6))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/photos/Album", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: FaultPaths.fixture("jpeg/generated/odd_17x9_422.jpg"), toPath: base + "/photos/Album/tiny.jpg")
        var pipelineConfiguration = PipelineConfiguration(cacheDirectory: base + "/cache", libraryRoot: base + "/photos")
        pipelineConfiguration.log = { _ in }
        let app = try GalleryApp(configuration: GalleryConfiguration(libraryRoot: base + "/photos",
            templatesDirectory: FaultPaths.repo.path + "/templates", publicDirectory: FaultPaths.repo.path + "/public"),
            pipeline: ImagePipeline(configuration: pipelineConfiguration), watchLibrary: false, log: { _ in })
        var replayed = 0, skipped = 0
        for name in names {
            let bytes = [UInt8](FileManager.default.contents(atPath: dir + "/" + name) ?? Data())
            guard let first = bytes.first else { continue }
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            let start = Date()
            switch first & 3 {
            case 0:
                let methods = ["GET", "HEAD", "POST", "get", "PUT", "OPTIONS", "TRACE", ""]
                let response = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": methods[Int(first >> 2 & 7)], "REQUEST_URI": text]))
                #expect(response.status < 500 || response.status == 503, "\(name): \(response.status)")
            case 1:
                _ = QueryString.parse(text)
            case 2:
                let tags = ["{{#", "{{^", "{{>"].reduce(0) { $0 + text.components(separatedBy: $1).count - 1 }
                // Self-inclusion ("{{>page}}") is refused when the templates load; nested sections
                // over lists multiply by design (templates are trusted), so deep ones are skipped as the target does.
                guard tags <= 8, text.utf8.count <= 2048 else { skipped += 1; continue }
                if let library = try? TemplateLibrary(sources: ["page": text, "part": "<i>{{a}}</i>"]) {
                    let out = library.renderPage("page", context: ["a": .string("<script>alert(1)</script>"),
                                                                   "b": .list([.string("<x>"), .bool(true)])])
                    #expect(!out.contains("<script>alert(1)</script>") || text.contains("<script>alert(1)</script>"), "\(name)")
                }
            default:
                if let spec = SizeSpec(parsing: text) { #expect(spec.description == text, "\(name)") }
            }
            replayed += 1
            #expect(Date().timeIntervalSince(start) < 1, "\(name) took \(Date().timeIntervalSince(start)) s")
        }
        print("fuzz-request findings: \(replayed) replayed, \(skipped) over-nested templates skipped as the target does")
    }
}
