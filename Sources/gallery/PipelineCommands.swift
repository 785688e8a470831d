import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ImageCodec
import ImagePipeline
import Synchronization

/// `gallery thumb` (one file, no caches) and `gallery warm` (fill the caches of a library).
enum PipelineCommands {
    /// gallery thumb IN OUT (--size 480 | --cover 240x240) [--quality 82]
    static func thumb(_ args: [String]) -> Int32 {
        var positional: [String] = []
        var mode: ResizeMode?
        var quality = 82
        var rest = args[...]
        while let a = rest.popFirst() {
            switch a {
            case "--size", "--cover":
                guard let text = rest.popFirst(), let spec = SizeSpec(parsing: text) else {
                    return usage("thumb: \(a) needs a size such as 480 or 240x240")
                }
                if a == "--size", case .fit = spec.mode { mode = spec.mode }
                else if a == "--cover", case .cover = spec.mode { mode = spec.mode }
                else { return usage("thumb: \(a) \(text) is the wrong kind of size") }
            case "--quality":
                guard let text = rest.popFirst(), let q = Int(text), (1...100).contains(q) else {
                    return usage("thumb: --quality needs 1...100")
                }
                quality = q
            default:
                if a.hasPrefix("--") { return usage("thumb: unknown option \(a)") }
                positional.append(a)
            }
        }
        guard positional.count == 2, let mode else { return usage("thumb: needs IN OUT and --size or --cover") }
        let (input, output) = (positional[0], positional[1])
        // Plain string and POSIX calls on this path: every Foundation feature touched costs
        // resident pages, and this command's memory is what the thumbnail benchmark measures.
        let name = output.split(separator: "/").last ?? ""
        let ext = name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } ?? "" : ""
        let format: ImageFormat? = ext == "jpg" || ext == "jpeg" ? .jpeg : ext == "png" ? .png : ext == "webp" ? .webp : nil
        do {
            let bytes = try ImagePipeline.readFile(input)
            let t = try Renderer.render(consume bytes, mode: mode, options: RenderOptions(jpegQuality: quality, format: format))
            guard writeFile(output, t.image.bytes) else {
                printError("gallery thumb: cannot write \(output): \(String(cString: strerror(errno)))")
                return 1
            }
            return 0
        } catch {
            printError("gallery thumb: \(input): \(error)")
            return error.kind == .sourceNotAllowed ? 1 : 65
        }
    }

    /// gallery warm (--root DIR | --manifest FILE) --sizes 240,480,... [--cache-dir DIR]
    static func warm(_ args: [String]) -> Int32 {
        var root: String?
        var manifest: String?
        var sizes: [SizeSpec] = []
        var cacheDir = ProcessInfo.processInfo.environment["GALLERY_CACHE_DIR"] ?? NSTemporaryDirectory() + "gallery-cache"
        var rest = args[...]
        while let a = rest.popFirst() {
            guard let value = rest.popFirst() else { return usage("warm: \(a) needs a value") }
            switch a {
            case "--root": root = value
            case "--manifest": manifest = value
            case "--cache-dir": cacheDir = value
            case "--sizes":
                for text in value.split(separator: ",") {
                    guard let spec = SizeSpec(parsing: String(text)) else { return usage("warm: bad size '\(text)'") }
                    sizes.append(spec)
                }
            default: return usage("warm: unknown option \(a)")
            }
        }
        guard (root == nil) != (manifest == nil), !sizes.isEmpty else {
            return usage("warm: needs --root DIR or --manifest FILE, and --sizes")
        }
        let urls: [String]
        let libraryRoot: String
        if let root {
            libraryRoot = root
            urls = imageFiles(under: root).map { URL(fileURLWithPath: $0).absoluteString }
        } else {
            guard let items = manifestURLs(manifest!) else { return usage("warm: cannot read \(manifest!) as {\"items\":[{\"url\":...}]}") }
            urls = items
            libraryRoot = (manifest! as NSString).deletingLastPathComponent
        }
        var config = PipelineConfiguration(cacheDirectory: cacheDir, libraryRoot: libraryRoot.isEmpty ? "." : libraryRoot)
        config.allowedSizes.formUnion(sizes)
        // The warmer queues its own work: never refuse it as overload.
        config.renderQueueLength = Int.max / 2
        let pipeline = ImagePipeline(configuration: config)
        return WarmRun(pipeline: pipeline, urls: urls, sizes: sizes).run()
    }

    /// Writes `bytes` to `path` (created or truncated, mode 0644).
    private static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        var done = 0
        let ok = bytes.withUnsafeBytes { raw -> Bool in
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        return close(fd) == 0 && ok
    }

    private static func usage(_ message: String) -> Int32 {
        printError("gallery \(message)\n\(usageText)")
        return 2
    }

    /// JPEG and PNG files under `root`, by name, sorted.
    static func imageFiles(under root: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var out: [String] = []
        while let rel = walker.nextObject() as? String {
            let lower = rel.lowercased()
            if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") || lower.hasSuffix(".png") {
                out.append((root as NSString).appendingPathComponent(rel))
            }
        }
        return out.sorted()
    }

    static func manifestURLs(_ path: String) -> [String]? {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let items = object["items"] as? [[String: Any]] else { return nil }
        return items.compactMap { $0["url"] as? String }
    }
}

/// One warm-up: every URL at every size on one thread per core, with a progress line.
private struct WarmRun: Sendable {
    let pipeline: ImagePipeline
    let urls: [String]
    let sizes: [SizeSpec]

    private final class Progress: Sendable {
        struct State {
            var next = 0
            var done = 0
            var failed = 0
        }
        let state = Mutex(State())
    }

    func run() -> Int32 {
        let total = urls.count
        let progress = Progress()
        let terminal = isatty(STDOUT_FILENO) != 0
        let start = Date()
        let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            let work = self
            Thread {
                defer { group.leave() }
                while true {
                    let i: Int? = progress.state.withLock { s in
                        guard s.next < total else { return nil }
                        s.next += 1
                        return s.next - 1
                    }
                    guard let i else { return }
                    var failure: String?
                    for spec in work.sizes {
                        do { _ = try work.pipeline.render(url: work.urls[i], spec: spec) } catch {
                            failure = "\(work.urls[i]) at \(spec): \(error)"
                            break
                        }
                    }
                    progress.state.withLock { s in
                        s.done += 1
                        if failure != nil { s.failed += 1 }
                    }
                    if let failure { printError((terminal ? "\r\u{1B}[K" : "") + "gallery warm: " + failure) }
                }
            }.start()
        }
        while group.wait(timeout: .now() + 0.2) == .timedOut {
            if terminal { draw(progress.state.withLock { $0 }, total: total, since: start) }
        }
        let s = progress.state.withLock { $0 }
        let seconds = Date().timeIntervalSince(start)
        if terminal { draw(s, total: total, since: start); print("") }
        print(String(format: "warmed %d of %d images at %d sizes in %.1f s (%.1f images/s), %d failed",
                     s.done - s.failed, total, sizes.count, seconds, Double(s.done) / max(seconds, 0.001), s.failed))
        return s.failed == 0 ? 0 : 1
    }

    /// "[#########.........] 45/100  3.2 images/s  ETA 0:17", redrawn in place.
    private func draw(_ s: Progress.State, total: Int, since start: Date) {
        let width = 30
        let filled = total == 0 ? width : width * s.done / total
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(s.done) / elapsed : 0
        let eta = rate > 0 ? Int(Double(total - s.done) / rate) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = "\r[\(bar)] \(s.done)/\(total)  " + String(format: "%.1f images/s  ETA %d:%02d", rate, eta / 60, eta % 60)
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
