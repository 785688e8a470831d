import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Gallery
@testable import ImagePipeline

/// Origin and process faults end to end: nginx → spawn-fcgi → gallery → a misbehaving origin.
/// After each fault the gallery still answers, the image request got the right error page,
/// the disk cache holds nothing partial or wrong, and the next request after the origin
/// recovers succeeds.
///
/// The serve command has no flags for the origin timeouts and byte limit (PipelineConfiguration
/// has them), so the shipped defaults are what is tested: 5 s idle timeout, 64 MiB limit.
@Suite(.serialized, .enabled(if: FaultPaths.stackAvailable, "needs nginx, spawn-fcgi and the gallery binary"))
struct FaultTests {
    static let photo: [UInt8] = {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: FaultPaths.fixture("jpeg/generated/odd_1001x667_420.jpg"))))) ?? []
    }()

    /// A library whose gallery.json lists `paths` on `origin` as remote items.
    static func library(_ origin: FaultOrigin, _ paths: [String]) -> (String) throws -> Void {
        { root in
            let remote = paths.map { ["url": origin.url($0), "title": "Remote \($0)", "album": "Remote"] }
            let manifest: [String: Any] = ["title": "Fault test", "remote": remote]
            try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: root + "/gallery.json"))
        }
    }

    static func id(_ origin: FaultOrigin, _ path: String) -> String { StableID.make("url:" + origin.url(path)) }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var behavior: OriginBehavior
        var status: Int
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "500", behavior: .status(500), status: 502),
        Case(name: "hang past the timeout", behavior: .hang, status: 504),
        Case(name: "close mid-body", behavior: .closeMidBody(photo), status: 502),
        Case(name: "HTML page with 200", behavior: .html, status: 415),
        Case(name: "over the byte limit (declared)", behavior: .tooLarge(bytes: 64 << 20, declared: true), status: 502),
        Case(name: "over the byte limit (streamed)", behavior: .tooLarge(bytes: 64 << 20, declared: false), status: 502),
    ]

    @Test func originFaultsAreContainedAndRecover() throws {
        let origin = try FaultOrigin()
        defer { origin.stop() }
        let paths = FaultTests.cases.indices.map { "/fault-\($0).jpg" }
        let stack = try FaultStack(populate: FaultTests.library(origin, paths))
        defer { stack.stop() }
        try waitForItems(stack, FaultTests.cases.count)
        var table = ["origin fault | status | ms | healthz | cache after | recovered"]
        for (i, fault) in FaultTests.cases.enumerated() {
            let path = paths[i]
            let id = FaultTests.id(origin, path)
            origin.set(path, fault.behavior)
            let start = Date()
            let reply = try stack.image(id, timeout: 60)
            let ms = Int(Date().timeIntervalSince(start) * 1000)
            #expect(reply.status == fault.status, "\(fault): got \(reply.status)")
            #expect(reply.header("Content-Type")?.hasPrefix("text/html") == true, "\(fault): error page is HTML")
            let health = try stack.get("/healthz")
            #expect(health.status == 200, "\(fault): healthz \(health.status)")
            #expect(stack.galleryAlive, "\(fault): gallery process died")
            let audit = FaultCacheFolder.audit(stack.cacheDirectory)
            #expect(audit.problems.isEmpty && audit.temps.isEmpty, "\(fault): \(audit)")
            #expect(!audit.entries.contains(origin.url(path)), "\(fault): failed fetch was cached")

            origin.set(path, .image(FaultTests.photo))
            let again = try stack.image(id)
            #expect(again.status == 200 && again.body.starts(with: [0xFF, 0xD8]), "\(fault): after recovery \(again.status)")
            let after = FaultCacheFolder.audit(stack.cacheDirectory)
            #expect(after.problems.isEmpty && after.entries.contains(origin.url(path)), "\(fault): after recovery \(after)")
            table.append("\(fault.name) | \(reply.status) | \(ms) | \(health.status) | \(audit.problems.count + audit.temps.count) bad, \(audit.entries.count) ok | \(again.status)")
        }
        print(table.joined(separator: "\n"))
    }

    @Test func readOnlyCacheFolderStillServesImages() throws {
        let origin = try FaultOrigin()
        defer { origin.stop() }
        origin.set("/ro.jpg", .image(FaultTests.photo))
        let stack = try FaultStack(populate: FaultTests.library(origin, ["/ro.jpg"]))
        defer { stack.stop() }
        try waitForItems(stack, 1)
        guard FaultCacheFolder.makeReadOnly(stack.cacheDirectory) else {
            print("fault: cannot make a folder read-only here (not root, no bind mount): read-only case not run")
            return
        }
        defer { FaultCacheFolder.makeWritable(stack.cacheDirectory) }
        let id = FaultTests.id(origin, "/ro.jpg")
        let first = try stack.image(id)
        #expect(first.status == 200 && first.body.starts(with: [0xFF, 0xD8]), "read-only cache: \(first.status) \(first.text.prefix(200))")
        let original = try stack.get("/original/\(id)")
        #expect(original.status == 200 && original.body == FaultTests.photo, "original with read-only cache: \(original.status)")
        #expect(FaultCacheFolder.audit(stack.cacheDirectory).entries.isEmpty)
        #expect(try stack.get("/healthz").status == 200)
        print("fault: read-only cache folder | image \(first.status) | original \(original.status) | origin hits \(origin.hits("/ro.jpg"))")
    }

    @Test func killedWorkerLeavesNoTornEntryAndRecovers() throws {
        let origin = try FaultOrigin()
        defer { origin.stop() }
        origin.set("/slow.jpg", .slow(FaultTests.photo, seconds: 4))
        let stack = try FaultStack(populate: FaultTests.library(origin, ["/slow.jpg"]))
        defer { stack.stop() }
        try waitForItems(stack, 1)
        let id = FaultTests.id(origin, "/slow.jpg")
        let oldPID = stack.galleryPID

        // A request in flight while the worker dies: nginx must answer it with a 5xx page.
        let inFlight = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let port = stack.port
        Thread.detachNewThread {
            let status = (try? FaultHTTP.get(port: port, "/img/\(id)/480", timeout: 30))?.status ?? -1
            inFlight.withLock { $0 = status }
            done.signal()
        }
        // Kill it mid-transfer: once a quarter of the body has arrived, whatever the load.
        let quarter = FaultTests.photo.count / 4
        for _ in 0..<3000 where origin.sent("/slow.jpg") < quarter { usleep(10_000) }
        #expect(origin.sent("/slow.jpg") < FaultTests.photo.count, "the transfer ended before the kill")
        stack.killGallery()
        #expect(done.wait(timeout: .now() + 30) == .success)
        let status = inFlight.withLock { $0 } ?? -1
        #expect((500...599).contains(status), "request in flight during SIGKILL: \(status)")
        let afterKill = FaultCacheFolder.audit(stack.cacheDirectory)
        #expect(afterKill.problems.isEmpty && afterKill.entries.isEmpty, "after SIGKILL: \(afterKill)")

        // The supervisor restarts it; the origin is fast again.
        origin.set("/slow.jpg", .image(FaultTests.photo))
        try stack.startGallery()
        try stack.waitHealthy()
        #expect(stack.galleryPID != oldPID)
        let recovered = try stack.image(id)
        #expect(recovered.status == 200 && recovered.body.starts(with: [0xFF, 0xD8]), "after restart: \(recovered.status)")
        let cached = FaultCacheFolder.audit(stack.cacheDirectory)
        #expect(cached.problems.isEmpty && cached.entries == [origin.url("/slow.jpg")], "after restart: \(cached)")

        // A torn data file (a crash that escaped the atomic rename, or a disk that lost the
        // tail) must never be served: the next process drops it and fetches again.
        stack.killGallery()
        let dataPath = stack.cacheDirectory + "/" + SHA256.hex(origin.url("/slow.jpg"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: dataPath))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: dataPath))
        let hitsBefore = origin.hits("/slow.jpg")
        try stack.startGallery()
        try stack.waitHealthy()
        let original = try stack.get("/original/\(id)")
        #expect(original.status == 200 && original.body == FaultTests.photo, "torn entry served: \(original.status) \(original.body.count) bytes")
        #expect(origin.hits("/slow.jpg") > hitsBefore, "torn entry was not fetched again")
        let repaired = FaultCacheFolder.audit(stack.cacheDirectory)
        #expect(repaired.problems.isEmpty && repaired.entries.count == 1, "after torn entry: \(repaired)")
        print("fault: SIGKILL during a slow origin transfer | in-flight \(status) | cache after kill \(afterKill) | after restart \(recovered.status) | torn entry → /original \(original.status), refetched")
    }

    /// Waits until the gallery's catalog lists `count` items (the manifest is read on scan).
    func waitForItems(_ stack: FaultStack, _ count: Int) throws {
        for _ in 0..<100 {
            if let text = try? stack.get("/healthz").text, text.contains("items \(count)") { return }
            usleep(100_000)
        }
        throw FaultFailure(description: "catalog never reached \(count) items; log:\n\(stack.galleryLog)")
    }
}
