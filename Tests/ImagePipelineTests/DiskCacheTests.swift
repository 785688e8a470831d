import Foundation
import Testing
@testable import ImagePipeline

@Suite(.serialized) struct DiskCacheTests {
    let jpeg: [UInt8]

    init() throws {
        jpeg = try fixtureBytes("jpeg/generated/orient_1.jpg")
    }

    @Test func restartUsesTheDiskAndFetchesNothing() throws {
        let origin = try TestOrigin()
        origin.set("/r.jpg", .ok(jpeg, "image/jpeg"))
        let dir = makeTempDir("restart")
        do {
            let first = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
            _ = try first.original(url: origin.url("/r.jpg"))
        }
        #expect(origin.count("/r.jpg") == 1)
        let second = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        #expect(try second.original(url: origin.url("/r.jpg")).bytes == jpeg)
        #expect(try second.version(url: origin.url("/r.jpg")) == String(SHA256.hex(jpeg).prefix(12)))
        #expect(origin.count("/r.jpg") == 1)
        #expect(second.metricsText().contains("pipeline_disk_cache_hits_total 1\n"))
        let metaURL = URL(fileURLWithPath: dir + "/" + DiskDataCache.key(origin.url("/r.jpg")) + ".json")
        let meta = try JSONDecoder().decode(DiskDataCache.Metadata.self, from: Data(contentsOf: metaURL))
        #expect(meta.url == origin.url("/r.jpg"))
        #expect(meta.length == jpeg.count)
        #expect(meta.contentType == "image/jpeg")
        #expect(meta.etag == "\"t1\"")
    }

    @Test func truncatedAndCorruptedEntriesAreFetchedAgain() throws {
        let origin = try TestOrigin()
        origin.set("/c.jpg", .ok(jpeg, "image/jpeg"))
        let dir = makeTempDir("corrupt")
        let url = origin.url("/c.jpg")
        let dataPath = dir + "/" + DiskDataCache.key(url)
        _ = try ImagePipeline(configuration: testConfiguration(cacheDir: dir)).original(url: url)

        // Truncated: length no longer matches the metadata.
        try Data(jpeg.prefix(500)).write(to: URL(fileURLWithPath: dataPath))
        let log = LogSink()
        #expect(try ImagePipeline(configuration: testConfiguration(cacheDir: dir, log: log)).original(url: url).bytes == jpeg)
        #expect(origin.count("/c.jpg") == 2)
        #expect(log.all.contains { $0.contains("length does not match") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: dataPath)) == Data(jpeg))

        // Same length, garbage bytes: not an image any more.
        try Data(repeating: 0x42, count: jpeg.count).write(to: URL(fileURLWithPath: dataPath))
        #expect(try ImagePipeline(configuration: testConfiguration(cacheDir: dir)).original(url: url).bytes == jpeg)
        #expect(origin.count("/c.jpg") == 3)

        // Metadata gone: the orphan data is dropped and fetched again.
        try FileManager.default.removeItem(atPath: dataPath + ".json")
        #expect(try ImagePipeline(configuration: testConfiguration(cacheDir: dir)).original(url: url).bytes == jpeg)
        #expect(origin.count("/c.jpg") == 4)
    }

    @Test func evictionKeepsTheBoundAndDropsTheLeastRecentlyUsed() throws {
        let dir = makeTempDir("evict")
        let time = ManualClock()
        let cache = DiskDataCache(directory: dir, maxBytes: 10_000, lowWaterFraction: 0.9, clock: time.clock, log: { _ in })
        let payload = [UInt8](repeating: 7, count: 2000)
        func meta(_ url: String, _ n: Int) -> DiskDataCache.Metadata {
            DiskDataCache.Metadata(url: url, length: n, contentType: "image/jpeg", version: String(SHA256.hex(payload).prefix(12)),
                                   etag: nil, lastModified: nil, fetchedAt: 0)
        }
        for i in 0..<4 {
            #expect(cache.write(payload, metadata: meta("u\(i)", payload.count)))
            // mtime is the LRU clock: keep the order unambiguous.
            time.advance(by: 1)
        }
        #expect(cache.read("u0") != nil)   // u0 becomes the most recently used
        time.advance(by: 1)
        #expect(cache.write(payload, metadata: meta("u4", payload.count)))
        #expect(cache.totalBytes <= 9_000)
        #expect(cache.read("u1") == nil, "least recently used goes first")
        #expect(cache.read("u0") != nil)
        #expect(cache.read("u4") != nil)
        #expect(cachedDataFiles(dir).count == 4)
        time.advance(by: 1)
        #expect(cache.write(payload, metadata: meta("u5", payload.count)))
        #expect(cache.read("u2") == nil, "next least recently used")
        #expect(cache.read("u0") != nil)
        #expect(cachedDataFiles(dir).count == 4)
        #expect(cache.totalBytes <= 10_000)
        // A new process sees the same total.
        let again = DiskDataCache(directory: dir, maxBytes: 10_000, lowWaterFraction: 0.9, log: { _ in })
        #expect(again.totalBytes == cache.totalBytes)
    }

    /// A revalidation replaces entries in place: the byte total follows the new size, and bytes
    /// that do not hash to the metadata's version (a torn replacement, a damaged file) are dropped.
    @Test func replacedEntriesAndBytesThatDoNotMatchTheirVersion() throws {
        let dir = makeTempDir("replace")
        let log = LogSink()
        let cache = DiskDataCache(directory: dir, maxBytes: 1 << 20, lowWaterFraction: 0.9, log: { log.append($0) })
        func store(_ bytes: [UInt8]) -> Bool {
            cache.write(bytes, metadata: DiskDataCache.Metadata(
                url: "u", length: bytes.count, contentType: "image/jpeg", version: String(SHA256.hex(bytes).prefix(12)),
                etag: nil, lastModified: nil, fetchedAt: 0))
        }
        let small = [UInt8](repeating: 1, count: 1000)
        let large = [UInt8](repeating: 2, count: 3000)
        #expect(store(small))
        let one = cache.totalBytes
        #expect(store(large))
        #expect(cache.totalBytes == one + 2000)
        #expect(cache.read("u")?.bytes == large)
        #expect(DiskDataCache(directory: dir, maxBytes: 1 << 20, lowWaterFraction: 0.9, log: { _ in }).totalBytes
                == 3000 + (try FileManager.default.attributesOfItem(atPath: dir + "/" + DiskDataCache.key("u") + ".json")[.size] as! Int))

        // Metadata-only update (a 304) keeps the bytes.
        var meta = try #require(cache.metadata("u"))
        meta.validatedAt = 99
        #expect(cache.updateMetadata(meta))
        #expect(cache.read("u")?.metadata.validatedAt == 99)
        #expect(cache.read("u")?.bytes == large)

        // Same length, other bytes, in a new file (as a torn replacement leaves it): not what
        // the version names, though this process had checked the old file.
        let dataPath = dir + "/" + DiskDataCache.key("u")
        try Data(repeating: 3, count: 3000).write(to: URL(fileURLWithPath: dataPath), options: .atomic)
        #expect(cache.read("u") == nil)
        #expect(log.all.contains { $0.contains("do not hash to version") })
        #expect(cachedDataFiles(dir).isEmpty)
        #expect(!cache.updateMetadata(meta), "no metadata without its entry")

        // Damage in place (same file, same length) is found by the next process to read it.
        #expect(store(large))
        #expect(cache.read("u")?.bytes == large)
        let handle = try #require(FileHandle(forWritingAtPath: dataPath))
        try handle.write(contentsOf: Data([9, 9, 9]))
        try handle.close()
        let restartLog = LogSink()
        let restarted = DiskDataCache(directory: dir, maxBytes: 1 << 20, lowWaterFraction: 0.9, log: { restartLog.append($0) })
        #expect(restarted.read("u") == nil)
        #expect(restartLog.all.contains { $0.contains("do not hash to version") })
    }

    @Test func unwritableCacheStillServes() throws {
        let origin = try TestOrigin()
        origin.set("/ro.jpg", .ok(jpeg, "image/jpeg"))
        // A folder below a regular file can never be created, even by root.
        let blocker = makeTempDir("ro") + "/file"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data([1])))
        let log = LogSink()
        let pipeline = ImagePipeline(configuration: testConfiguration(cacheDir: blocker + "/cache", log: log))
        #expect(try pipeline.original(url: origin.url("/ro.jpg")).bytes == jpeg)
        #expect(log.all.contains { $0.contains("uncached") })
        #expect(pipeline.metricsText().contains("pipeline_disk_write_failures_total 1\n"))
    }

    @Test func twoPipelinesOnOneFolderDownloadOnce() throws {
        let origin = try TestOrigin()
        origin.set("/two.jpg", .ok(jpeg, "image/jpeg"), delay: 0.5)
        let dir = makeTempDir("two")
        let a = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let b = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let results = Collector<Bool>()
        runConcurrently(6) { i in
            let p = i % 2 == 0 ? a : b
            results.add((try? p.original(url: origin.url("/two.jpg")).bytes) == jpeg)
        }
        #expect(results.all.allSatisfy { $0 })
        #expect(origin.count("/two.jpg") == 1, "the entry lock (flock) keeps the download single")
    }

    /// A process that waited for another's download of the same entry shares its failure, as
    /// waiters in one process do, instead of timing out once more behind it; a later request
    /// that finds the lock free tries the origin again.
    @Test func processesWaitingOnAFailedDownloadShareItsError() throws {
        let origin = try TestOrigin()
        origin.set("/hang2.jpg", .hang(seconds: 4))
        let dir = makeTempDir("hang2")
        let a = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let b = ImagePipeline(configuration: testConfiguration(cacheDir: dir))
        let kinds = Collector<String>()
        let start = Date()
        runConcurrently(2) { i in
            let p = i == 0 ? a : b
            do {
                _ = try p.original(url: origin.url("/hang2.jpg"))
                kinds.add("ok")
            } catch let error as PipelineError {
                kinds.add(error.kind.rawValue)
            } catch {
                kinds.add("\(error)")
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(kinds.all == ["origin_timed_out", "origin_timed_out"])
        #expect(origin.count("/hang2.jpg") == 1, "one attempt, shared by the waiting process")
        #expect(elapsed < 1.9, "one idle timeout (1 s), not two in a row: \(elapsed) s")
        origin.set("/hang2.jpg", .ok(jpeg, "image/jpeg"))
        #expect(try b.original(url: origin.url("/hang2.jpg")).bytes == jpeg, "no failure is remembered")
        #expect(origin.count("/hang2.jpg") == 2)
    }

    /// Through the pipeline: a small disk budget keeps the most recently used originals and
    /// refetches an evicted one when it is asked for again.
    @Test func pipelineEvictsOriginalsBeyondTheBudget() throws {
        let origin = try TestOrigin()
        for i in 0..<4 { origin.set("/e\(i).jpg", .ok(jpeg, "image/jpeg")) }
        let dir = makeTempDir("pipeevict")
        var config = testConfiguration(cacheDir: dir)
        let time = ManualClock()
        config.clock = time.clock
        config.diskCacheBytes = 3 * (jpeg.count + 600)
        let pipeline = ImagePipeline(configuration: config)
        for i in 0..<4 {
            _ = try pipeline.original(url: origin.url("/e\(i).jpg"))
            time.advance(by: 1)
        }
        let kept = cachedDataFiles(dir)
        #expect(kept.count <= 3)
        #expect(!kept.contains(DiskDataCache.key(origin.url("/e0.jpg"))), "the least recently used original goes first")
        #expect(kept.contains(DiskDataCache.key(origin.url("/e3.jpg"))))
        _ = try pipeline.original(url: origin.url("/e0.jpg"))
        #expect(origin.count("/e0.jpg") == 2)
        #expect(origin.count("/e3.jpg") == 1)
    }
}
