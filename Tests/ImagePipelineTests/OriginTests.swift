import Foundation
import Testing
@testable import ImagePipeline

/// Fetching, validation and coalescing against a local HTTP origin. These need no pixels:
/// `original(url:)` only sniffs the bytes.
@Suite(.serialized) struct OriginTests {
    let jpeg: [UInt8]

    init() throws {
        jpeg = try fixtureBytes("jpeg/generated/orient_1.jpg")
    }

    @Test func tenCallersOneOriginRequest() throws {
        let origin = try TestOrigin()
        origin.set("/slow.jpg", .ok(jpeg, "image/jpeg"), delay: 0.5)
        let dir = makeTempDir("coalesce")
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let results = Collector<[UInt8]?>()
        runConcurrently(10) { _ in results.add(try? pipeline.original(url: origin.url("/slow.jpg")).bytes) }
        #expect(origin.count("/slow.jpg") == 1)
        #expect(results.all.count == 10)
        #expect(results.all.allSatisfy { $0 == jpeg })
        #expect(pipeline.metricsText().contains("pipeline_origin_fetches_total 1\n"))
        #expect(pipeline.metricsText().contains("pipeline_coalesced_waits_total 9\n"))
        #expect(cachedDataFiles(dir).count == 1)
    }

    @Test func serverErrorIsNotCached() throws {
        let origin = try TestOrigin()
        origin.set("/a.jpg", .status(500))
        let dir = makeTempDir("500")
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        #expect(throws: PipelineError.originFailed(origin.url("/a.jpg") + ": status 500")) {
            try pipeline.original(url: origin.url("/a.jpg"))
        }
        #expect(cachedDataFiles(dir).isEmpty)
        origin.set("/a.jpg", .ok(jpeg, "image/jpeg"))
        let o = try pipeline.original(url: origin.url("/a.jpg"))
        #expect(o.bytes == jpeg)
        #expect(o.contentType == "image/jpeg")
        #expect(origin.count("/a.jpg") == 2)
        #expect(cachedDataFiles(dir).count == 1)
        let stored = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + cachedDataFiles(dir)[0]))
        #expect([UInt8](stored) == jpeg)
    }

    @Test func overTheDecodeLimitIsTooLargeAndNeverRefetched() throws {
        // A cached original refused by the memory limit is intact, unlike one that does not
        // decode: the next pipeline (a restart) must answer from the disk cache, not download it again.
        let origin = try TestOrigin()
        origin.set("/big.jpg", .ok(jpeg, "image/jpeg"))
        let dir = makeTempDir("limit")
        var configuration = testConfiguration(cacheDir: dir)
        configuration.decodeLimits.maxMemoryBytes = 100_000
        configuration.allowedSizes = [SizeSpec(mode: .fit(maxEdge: 240)), SizeSpec(mode: .fit(maxEdge: 24))]
        for _ in 0..<2 {
            let pipeline = ImagePipeline(configuration: configuration)
            do {
                _ = try pipeline.render(url: origin.url("/big.jpg"), spec: SizeSpec(mode: .fit(maxEdge: 240)))
                Issue.record("a full 192x288 decode fitted in 100,000 bytes")
            } catch {
                #expect(error.kind == .tooLarge)
            }
            // The same original at a size that decodes at 1/8 fits the limit.
            let small = try pipeline.render(url: origin.url("/big.jpg"), spec: SizeSpec(mode: .fit(maxEdge: 24)))
            #expect(!small.bytes.isEmpty)
        }
        #expect(origin.count("/big.jpg") == 1)
        #expect(cachedDataFiles(dir).count == 1)
    }

    @Test func htmlWithStatus200IsNotAnImageAndNotCached() throws {
        let origin = try TestOrigin()
        origin.set("/p.jpg", .html)
        let dir = makeTempDir("html")
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        do {
            _ = try pipeline.original(url: origin.url("/p.jpg"))
            Issue.record("HTML was accepted")
        } catch {
            #expect(error.kind == .notAnImage)
        }
        #expect(cachedDataFiles(dir).isEmpty)
        origin.set("/p.jpg", .ok(jpeg, "image/jpeg"))
        #expect(try pipeline.original(url: origin.url("/p.jpg")).bytes == jpeg)
        #expect(cachedDataFiles(dir).count == 1)
    }

    @Test func truncatedOversizedHangingAndRedirectLoops() throws {
        let origin = try TestOrigin()
        origin.set("/short.jpg", .truncated(jpeg, sent: 1000))
        origin.set("/huge.jpg", .oversized(count: 3 << 20))
        origin.set("/hang.jpg", .hang(seconds: 4))
        for i in 0..<7 { origin.set("/r\(i)", .redirect("/r\(i + 1)")) }
        origin.set("/r7", .ok(jpeg, "image/jpeg"))
        origin.set("/r3ok", .redirect("/r5"))
        let dir = makeTempDir("bad")
        var config = testConfiguration(cacheDir: dir)
        config.maxOriginBytes = 1 << 20
        let pipeline = ImagePipeline(configuration: config)

        func kind(_ path: String) -> String {
            do { _ = try pipeline.original(url: origin.url(path)); return "ok" } catch { return error.kind.rawValue }
        }
        #expect(kind("/short.jpg") == "origin_failed")
        #expect(kind("/huge.jpg") == "origin_failed")
        let start = Date()
        #expect(kind("/hang.jpg") == "origin_timed_out")
        #expect(Date().timeIntervalSince(start) < 3.9)
        #expect(kind("/r0") == "origin_failed", "7 redirects is more than 5")
        #expect(kind("/r3ok") == "ok", "3 redirects are followed")
        #expect(cachedDataFiles(dir).count == 1)
        #expect(kind("/missing.jpg") == "origin_failed")
    }

    /// An origin that keeps sending, too slowly to ever finish, hits the total timeout even
    /// though the idle (connect) timeout never fires.
    @Test func slowDripHitsTheTotalTimeout() throws {
        let origin = try TestOrigin()
        origin.set("/drip.jpg", .drip(count: 10_000, interval: 0.2))
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: makeTempDir("drip")))
        let start = Date()
        do {
            _ = try pipeline.original(url: origin.url("/drip.jpg"))
            Issue.record("drip finished")
        } catch {
            #expect(error.kind == .originTimedOut)
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 2.5 && elapsed < 6, "total timeout is 3 s, took \(elapsed)")
    }

    @Test func fileURLsStayInsideTheLibrary() throws {
        let dir = makeTempDir("files")
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let inside = "file://" + fixturesDir + "/jpeg/generated/orient_1.jpg"
        #expect(try pipeline.original(url: inside).bytes == jpeg)
        func refused(_ url: String) -> Bool {
            do { _ = try pipeline.original(url: url); return false } catch { return error.kind == .sourceNotAllowed }
        }
        #expect(refused("file:///etc/passwd"))
        #expect(refused("file://" + fixturesDir + "/../Package.swift"))
        #expect(refused("file://" + fixturesDir + "/jpeg/../../../Package.swift"))
        #expect(refused("file://" + fixturesDir + "/jpeg/generated/missing.jpg"))
        #expect(refused("ftp://example.com/a.jpg"))
        #expect(refused("not a url"))
        // A symlink inside the library that points outside is refused too.
        let root = makeTempDir("root")
        try FileManager.default.createSymbolicLink(atPath: root + "/escape.jpg", withDestinationPath: fixturesDir + "/jpeg/generated/orient_1.jpg")
        var config = testConfiguration(cacheDir: dir)
        config.libraryRoot = root
        let confined = ImagePipeline(configuration: config)
        do {
            _ = try confined.original(url: "file://" + root + "/escape.jpg")
            Issue.record("symlink out of the library was followed")
        } catch {
            #expect(error.kind == .sourceNotAllowed)
        }
    }

    @Test func versionIsTheContentHashPrefix() throws {
        let origin = try TestOrigin()
        origin.set("/v.jpg", .ok(jpeg, "image/jpeg"))
        let dir = makeTempDir("version")
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let expected = String(SHA256.hex(jpeg).prefix(12))
        #expect(try pipeline.version(url: origin.url("/v.jpg")) == expected)
        #expect(try pipeline.version(url: "file://" + fixturesDir + "/jpeg/generated/orient_1.jpg") == expected)
        #expect(try pipeline.version(url: origin.url("/v.jpg")) == expected)
        #expect(origin.count("/v.jpg") == 1)
        // A local file that changes gets a new version.
        let root = makeTempDir("vroot")
        var config = testConfiguration(cacheDir: dir)
        config.libraryRoot = root
        let local = ImagePipeline(configuration: config)
        let path = root + "/x.jpg"
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        #expect(try local.version(url: "file://" + path) == expected)
        let other = try fixtureBytes("jpeg/generated/orient_2.jpg")
        try Data(other).write(to: URL(fileURLWithPath: path))
        #expect(try local.version(url: "file://" + path) == String(SHA256.hex(other).prefix(12)))
    }
}
