import Foundation
import Synchronization
import ImageCodec
@testable import ImagePipeline

/// Tests/Fixtures, found from this file's path.
let fixturesDir: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Fixtures").path
}()

func fixtureBytes(_ relative: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixturesDir + "/" + relative)))
}

/// A fresh, empty folder under the system temp folder.
func makeTempDir(_ name: String = "pipe") -> String {
    let dir = NSTemporaryDirectory() + "pipeline-test-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Log lines a pipeline wrote, for assertions (and to keep test output quiet).
final class LogSink: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

/// Short timeouts, a private cache folder, the fixtures as library root.
func testConfiguration(cacheDir: String, log: LogSink = LogSink()) -> PipelineConfiguration {
    var c = PipelineConfiguration(cacheDirectory: cacheDir, libraryRoot: fixturesDir)
    c.connectTimeout = 1
    c.totalTimeout = 3
    c.log = { log.append($0) }
    return c
}

/// Files (not lock or temp files) that hold cached data in `dir`.
func cachedDataFiles(_ dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.count == 64 }
}

/// Runs `body` on `n` threads released together; returns when all have finished.
func runConcurrently(_ n: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for i in 0..<n {
        group.enter()
        Thread {
            start.wait()
            body(i)
            group.leave()
        }.start()
    }
    for _ in 0..<n { start.signal() }
    group.wait()
}

/// PSNR in dB of two same-sized bitmaps over all samples (infinity when identical).
func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
    precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
    var sum = 0.0
    for i in 0..<a.pixels.count {
        let d = Double(a.pixels[i]) - Double(b.pixels[i])
        sum += d * d
    }
    if sum == 0 { return .infinity }
    let mse = sum / Double(a.pixels.count)
    return 10 * log10(255 * 255 / mse)
}

/// Thread-safe collector of results from concurrent callers.
final class Collector<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func add(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}

/// A clock tests move by hand instead of sleeping: starts at the wall clock's now, so file
/// times written meanwhile stay comparable.
final class ManualClock: Sendable {
    private let seconds = Mutex(Date().timeIntervalSince1970)

    var clock: PipelineClock { PipelineClock { [self] in seconds.withLock { $0 } } }

    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

/// Polls `condition` every millisecond until it holds or `timeout` seconds pass: tests wait
/// for a state, never for a guessed amount of time.
@discardableResult
func waitUntil(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > end { return false }
        usleep(1000)
    }
    return true
}
