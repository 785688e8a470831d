import Foundation
import Testing
@testable import ImagePipeline

/// Revalidation of cached remote originals against a local origin: conditional requests, 304,
/// replacement, stale-if-error with back-off, coalescing, and the validation time on disk.
/// Time is a `ManualClock` each test moves past an age with `expire`; nothing sleeps.
@Suite(.serialized) struct RevalidationTests {
    let jpeg: [UInt8]
    let changed: [UInt8]
    let time = ManualClock()
    static let changedPath = "jpeg/generated/flower_420_q75.jpg"
    static let spec = SizeSpec(mode: .fit(maxEdge: 120))

    init() throws {
        jpeg = try fixtureBytes("jpeg/generated/orient_1.jpg")
        changed = try fixtureBytes(Self.changedPath)
    }

    func configuration(_ dir: String, age: Double, backoff: Double = 60, log: LogSink = LogSink()) -> PipelineConfiguration {
        var c = testConfiguration(cacheDir: dir, log: log)
        c.clock = time.clock
        c.remoteRevalidateAfter = age
        c.remoteRevalidateBackoff = backoff
        return c
    }

    func expire(_ age: Double) { time.advance(by: age + 0.1) }

    static func idle(_ p: ImagePipeline) -> Bool { p.engine.revalidator.waitUntilIdle(timeout: 10) }

    static func metric(_ p: ImagePipeline, _ name: String) -> Int? {
        for line in p.metricsText().split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.dropFirst(name.count + 1))
        }
        return nil
    }

    static func metadata(_ dir: String, _ url: String) throws -> DiskDataCache.Metadata {
        let path = dir + "/" + DiskDataCache.key(url) + ".json"
        return try JSONDecoder().decode(DiskDataCache.Metadata.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func version(_ bytes: [UInt8]) -> String { String(SHA256.hex(bytes).prefix(12)) }

    @Test func notModifiedKeepsBytesAndVersion() throws {
        let origin = try TestOrigin()
        origin.set("/a.jpg", .validated(jpeg, etag: "\"a1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"))
        let dir = makeTempDir("reval304")
        let url = origin.url("/a.jpg")
        let p = ImagePipeline(configuration: configuration(dir, age: 0.5))
        let v1 = try p.version(url: url)
        #expect(v1 == Self.version(jpeg))
        expire(0.5)
        #expect(try p.version(url: url) == v1)
        #expect(Self.idle(p))
        #expect(origin.count("/a.jpg") == 2)
        let sent = origin.requestHeaders("/a.jpg")
        #expect(sent[0]["if-none-match"] == nil)
        #expect(sent[1]["if-none-match"] == "\"a1\"")
        #expect(sent[1]["if-modified-since"] == nil, "an ETag is the stronger validator; the date is not sent beside it")
        #expect(try p.version(url: url) == v1)
        #expect(try p.original(url: url).bytes == jpeg)
        #expect(Self.metric(p, "pipeline_revalidations_total") == 1)
        #expect(Self.metric(p, "pipeline_revalidation_not_modified_total") == 1)
        #expect(Self.metric(p, "pipeline_revalidation_replacements_total") == 0)
        let meta = try Self.metadata(dir, url)
        #expect(meta.version == v1 && meta.etag == "\"a1\"")
        #expect(try #require(meta.validatedAt) >= meta.fetchedAt + 0.5)
        // Validated again just now: nothing is due, so nothing more is sent.
        _ = try p.version(url: url)
        #expect(Self.idle(p))
        #expect(origin.count("/a.jpg") == 2)
    }

    @Test func lastModifiedAloneAndNoValidatorAtAll() throws {
        let origin = try TestOrigin()
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        origin.set("/lm.jpg", .validated(jpeg, etag: nil, lastModified: date))
        origin.set("/none.jpg", .validated(jpeg, etag: nil, lastModified: nil))
        let p = ImagePipeline(configuration: configuration(makeTempDir("revalLM"), age: 0.5))
        let v = Self.version(jpeg)
        #expect(try p.version(url: origin.url("/lm.jpg")) == v)
        #expect(try p.version(url: origin.url("/none.jpg")) == v)
        expire(0.5)
        _ = try p.version(url: origin.url("/lm.jpg"))
        _ = try p.version(url: origin.url("/none.jpg"))
        #expect(Self.idle(p))
        #expect(origin.requestHeaders("/lm.jpg").last?["if-modified-since"] == date)
        #expect(origin.requestHeaders("/lm.jpg").last?["if-none-match"] == nil)
        let plain = try #require(origin.requestHeaders("/none.jpg").last)
        #expect(plain["if-modified-since"] == nil && plain["if-none-match"] == nil)
        // The 304 and the 200 with the same bytes both keep the entry.
        #expect(Self.metric(p, "pipeline_revalidations_total") == 2)
        #expect(Self.metric(p, "pipeline_revalidation_not_modified_total") == 2)
        #expect(Self.metric(p, "pipeline_revalidation_replacements_total") == 0)
        #expect(try p.version(url: origin.url("/none.jpg")) == v)
    }

    @Test func changedImageGetsNewVersionBytesAndPixels() throws {
        let origin = try TestOrigin()
        origin.set("/c.jpg", .validated(jpeg, etag: "\"a1\"", lastModified: nil))
        let dir = makeTempDir("revalChanged")
        let url = origin.url("/c.jpg")
        let log = LogSink()
        let p = ImagePipeline(configuration: configuration(dir, age: 0.5, log: log))
        let oldRender = try p.render(url: url, spec: Self.spec)
        let v1 = try p.version(url: url)
        #expect(oldRender.version == v1)

        origin.set("/c.jpg", .validated(changed, etag: "\"a2\"", lastModified: nil))
        expire(0.5)
        // Stale-while-revalidate: the lookup that notices the expiry answers at once.
        #expect(try p.version(url: url) == v1)
        #expect(Self.idle(p))
        #expect(origin.requestHeaders("/c.jpg").last?["if-none-match"] == "\"a1\"")

        let v2 = try p.version(url: url)
        #expect(v2 == Self.version(changed))
        #expect(try p.original(url: url).bytes == changed)
        // The render under the new version is made from the new bytes, although a render of
        // the old ones at the same size is still in the render cache under the old version.
        let newRender = try p.render(url: url, spec: Self.spec)
        let reference = try p.render(url: "file://" + fixturesDir + "/" + Self.changedPath, spec: Self.spec)
        #expect(newRender.version == v2)
        #expect(newRender.bytes == reference.bytes)
        #expect((newRender.width, newRender.height) == (reference.width, reference.height))
        #expect(newRender.bytes != oldRender.bytes)
        #expect(newRender.etag.hasPrefix("\"\(v2)-"))

        let meta = try Self.metadata(dir, url)
        #expect(meta.version == v2 && meta.etag == "\"a2\"" && meta.length == changed.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + DiskDataCache.key(url))) == Data(changed))
        #expect(Self.metric(p, "pipeline_revalidation_replacements_total") == 1)
        #expect(log.all.contains { $0.contains("changed, version \(v1) -> \(v2)") })
        #expect(origin.count("/c.jpg") == 2)
    }

    @Test func failingOriginKeepsServingTheCachedBytesWithBackoff() throws {
        let origin = try TestOrigin()
        origin.set("/f.jpg", .validated(jpeg, etag: "\"a1\"", lastModified: nil))
        let dir = makeTempDir("revalFail")
        let url = origin.url("/f.jpg")
        let log = LogSink()
        let p = ImagePipeline(configuration: configuration(dir, age: 0.5, backoff: 60, log: log))
        let v1 = try p.version(url: url)
        let render = try p.render(url: url, spec: Self.spec)

        origin.set("/f.jpg", .status(503))
        expire(0.5)
        for _ in 0..<5 {
            #expect(try p.version(url: url) == v1)
            #expect(try p.render(url: url, spec: Self.spec).bytes == render.bytes)
            #expect(try p.original(url: url).bytes == jpeg)
            #expect(Self.idle(p))
        }
        #expect(origin.count("/f.jpg") == 2, "one attempt within the back-off")
        #expect(Self.metric(p, "pipeline_revalidation_failures_total") == 1)
        #expect(try #require(Self.metric(p, "pipeline_stale_served_on_error_total")) >= 8)
        #expect(log.all.contains { $0.contains("revalidating \(url) failed") && $0.contains("status 503") })
        let failed = try Self.metadata(dir, url)
        #expect(failed.version == v1 && failed.revalidationFailedAt != nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + DiskDataCache.key(url))) == Data(jpeg))

        // The failure is on disk: another process (or a restart) waits out the back-off too.
        let other = ImagePipeline(configuration: configuration(dir, age: 0.5, backoff: 60))
        #expect(try other.version(url: url) == v1)
        #expect(Self.idle(other))
        #expect(origin.count("/f.jpg") == 2)

        // With a short back-off: HTML, then a hanging origin, are failures too and never
        // replace the bytes; a request does not wait for the hanging revalidation.
        let short = ImagePipeline(configuration: configuration(dir, age: 0.5, backoff: 0.3))
        origin.set("/f.jpg", .html)
        expire(0.3)
        #expect(try short.version(url: url) == v1)
        #expect(Self.idle(short))
        #expect(origin.count("/f.jpg") == 3)
        origin.set("/f.jpg", .hang(seconds: 3))
        expire(0.3)
        let start = Date()
        #expect(try short.version(url: url) == v1)
        #expect(try short.render(url: url, spec: Self.spec).bytes == render.bytes)
        #expect(Date().timeIntervalSince(start) < 0.9, "the request waited for the revalidation (1 s idle timeout)")
        #expect(Self.idle(short))
        #expect(origin.count("/f.jpg") == 4)
        #expect(Self.metric(short, "pipeline_revalidation_failures_total") == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + DiskDataCache.key(url))) == Data(jpeg))

        // Once the origin is back, the next attempt after the back-off succeeds.
        origin.set("/f.jpg", .validated(jpeg, etag: "\"a1\"", lastModified: nil))
        expire(0.3)
        _ = try short.version(url: url)
        #expect(Self.idle(short))
        #expect(origin.count("/f.jpg") == 5)
        #expect(Self.metric(short, "pipeline_revalidation_not_modified_total") == 1)
        #expect(try Self.metadata(dir, url).revalidationFailedAt == nil)
    }

    @Test func concurrentCallersAfterExpirySendOneRequest() throws {
        let origin = try TestOrigin()
        origin.set("/k.jpg", .validated(jpeg, etag: "\"a1\"", lastModified: nil), delay: 0.3)
        let dir = makeTempDir("revalCoalesce")
        let url = origin.url("/k.jpg")
        // Two pipelines on one folder stand for two worker processes: only the entry lock and
        // the metadata on disk are shared between them.
        let a = ImagePipeline(configuration: configuration(dir, age: 0.5))
        let b = ImagePipeline(configuration: configuration(dir, age: 0.5))
        let v = try a.version(url: url)
        #expect(try b.version(url: url) == v)
        #expect(origin.count("/k.jpg") == 1)
        expire(0.5)
        let answers = Collector<String?>()
        runConcurrently(10) { i in
            let p = i < 5 ? a : b
            answers.add(try? p.version(url: url))
            answers.add((try? p.render(url: url, spec: Self.spec))?.version)
        }
        #expect(answers.all.count == 20 && answers.all.allSatisfy { $0 == v })
        #expect(Self.idle(a) && Self.idle(b))
        #expect(origin.count("/k.jpg") == 2)
        #expect((Self.metric(a, "pipeline_revalidations_total") ?? 0) + (Self.metric(b, "pipeline_revalidations_total") ?? 0) == 1)
    }

    @Test func validationTimeSurvivesANewPipeline() throws {
        let origin = try TestOrigin()
        origin.set("/s.jpg", .validated(jpeg, etag: "\"a1\"", lastModified: nil))
        let dir = makeTempDir("revalRestart")
        let url = origin.url("/s.jpg")
        let age = 1.0
        let first = ImagePipeline(configuration: configuration(dir, age: age))
        _ = try first.version(url: url)
        expire(age)
        _ = try first.version(url: url)
        #expect(Self.idle(first))
        #expect(origin.count("/s.jpg") == 2)

        // More than `age` after the fetch but less after the revalidation: not due.
        time.advance(by: 0.3)
        let second = ImagePipeline(configuration: configuration(dir, age: age))
        #expect(try second.version(url: url) == Self.version(jpeg))
        #expect(Self.idle(second))
        #expect(origin.count("/s.jpg") == 2)
        expire(age - 0.3)
        _ = try second.version(url: url)
        #expect(Self.idle(second))
        #expect(origin.count("/s.jpg") == 3)

        // Entries written before revalidation existed count their age from the fetch.
        let legacy = #"{"url":"u","length":1,"contentType":"image/jpeg","version":"v","fetchedAt":12.5}"#
        let meta = try JSONDecoder().decode(DiskDataCache.Metadata.self, from: Data(legacy.utf8))
        #expect(meta.validatedAt == nil && meta.lastValidated == 12.5)
    }

    @Test func neverAndTheMinimumAge() throws {
        let origin = try TestOrigin()
        origin.set("/n.jpg", .validated(jpeg, etag: "\"a1\"", lastModified: nil))
        let dir = makeTempDir("revalNever")
        let never = ImagePipeline(configuration: configuration(dir, age: .infinity))
        _ = try never.version(url: origin.url("/n.jpg"))
        expire(PipelineConfiguration.minimumRevalidateAfter)
        _ = try never.version(url: origin.url("/n.jpg"))
        #expect(Self.idle(never))
        #expect(origin.count("/n.jpg") == 1)
        let zero = ImagePipeline(configuration: configuration(dir, age: 0))
        #expect(zero.engine.revalidator.age == PipelineConfiguration.minimumRevalidateAfter)
    }
}
