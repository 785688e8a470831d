import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ImagePipeline
import Synchronization

/// `gallery warm --root DIR --sizes S,... --out OUT`: every photo under DIR rendered at every
/// size into `OUT/<size>/<relative path>.jpg` (`.png` when the render has transparency), the
/// work a static gallery generator such as sigal does. Each photo is decoded once, at the
/// scale its largest size needs, and every size is resampled from that bitmap
/// (`Renderer.render(_:modes:)`). A photo whose outputs all exist and are newer than it is
/// skipped, so a second run costs only the walk. One thread per core (`--concurrency`), taking
/// the photos largest file first.
///
/// This replaced the old `--root` warm, which rendered into the in-memory render cache of a
/// process that then exited: nothing lasted. The running site is warmed with `--url`.
struct StaticExport: Sendable {
    let root: String
    let out: String
    let sizes: [SizeSpec]
    let quality: Int
    let concurrency: Int

    private final class Progress: Sendable {
        struct State {
            var next = 0, done = 0, skipped = 0, failed = 0, written = 0
        }
        let state = Mutex(State())
    }

    func run() -> Int32 {
        let files = Self.largestFirst(Self.photos(under: root), under: root)
        let progress = Progress()
        let terminal = isatty(STDERR_FILENO) != 0
        let start = DispatchTime.now().uptimeNanoseconds
        let group = DispatchGroup()
        for _ in 0..<max(1, concurrency) {
            group.enter()
            let job = self
            Thread {
                defer { group.leave() }
                while let i = progress.state.withLock({ s -> Int? in
                    guard s.next < files.count else { return nil }
                    s.next += 1
                    return s.next - 1
                }) {
                    let result = job.export(files[i])
                    progress.state.withLock { s in
                        s.done += 1
                        switch result {
                        case .skipped: s.skipped += 1
                        case .written(let n): s.written += n
                        case .failed: s.failed += 1
                        }
                    }
                    if case .failed(let why) = result { printError((terminal ? "\r\u{1B}[K" : "") + "gallery warm: \(files[i]): \(why)") }
                }
            }.start()
        }
        while group.wait(timeout: .now() + 0.2) == .timedOut {
            if terminal { draw(progress.state.withLock { $0 }, total: files.count) }
        }
        let s = progress.state.withLock { $0 }
        if terminal { draw(s, total: files.count); FileHandle.standardError.write(Data("\n".utf8)) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(String(format: "exported %d photos at %d sizes into %@ in %.1f s: %d files written, %d photos up to date, %d failed",
                     s.done - s.failed - s.skipped, sizes.count, out, seconds, s.written, s.skipped, s.failed))
        return s.failed == 0 ? 0 : 1
    }

    private enum Result { case written(Int), skipped, failed(String) }

    private func export(_ relative: String) -> Result {
        let source = root + "/" + relative
        let nameStart = relative.lastIndex(of: "/").map { relative.index(after: $0) } ?? relative.startIndex
        let stem = relative[nameStart...].lastIndex(of: ".").map { String(relative[..<$0]) } ?? relative
        var sourceStat = stat()
        guard stat(source, &sourceStat) == 0 else { return .failed(String(cString: strerror(errno))) }
        let targets = sizes.map { out + "/" + $0.description + "/" + stem }
        if targets.allSatisfy({ Self.newer($0 + ".jpg", than: sourceStat) || Self.newer($0 + ".png", than: sourceStat) }) {
            return .skipped
        }
        do {
            let bytes = try ImagePipeline.readFile(source)
            let outcomes = try Renderer.render(consume bytes, modes: sizes.map(\.mode),
                                               options: RenderOptions(jpegQuality: quality, allowPassthrough: false))
            for (target, outcome) in zip(targets, outcomes) {
                let path = target + (outcome.image.contentType == "image/png" ? ".png" : ".jpg")
                guard Self.makeParents(of: path), PipelineCommands.writeFile(path + ".part", outcome.image.bytes),
                      rename(path + ".part", path) == 0 else {
                    return .failed("cannot write \(path): \(String(cString: strerror(errno)))")
                }
            }
            return .written(outcomes.count)
        } catch {
            return .failed(error.description)
        }
    }

    private static func newer(_ path: String, than source: stat) -> Bool {
        var s = stat()
        guard stat(path, &s) == 0 else { return false }
        return (s.st_mtim.tv_sec, s.st_mtim.tv_nsec) >= (source.st_mtim.tv_sec, source.st_mtim.tv_nsec)
    }

    /// mkdir -p of the folder holding `path`.
    private static func makeParents(of path: String) -> Bool {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (k, part) in parts.enumerated() {
            prefix += (k == 0 ? "" : "/") + part
            if prefix.isEmpty { continue }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { return false }
        }
        return true
    }

    /// Relative paths of the photos under `root` (hidden entries and symlinks skipped), sorted.
    static func photos(under root: String) -> [String] {
        var out: [String] = []
        func walk(_ relative: String) {
            guard let dir = opendir(relative.isEmpty ? root : root + "/" + relative) else { return }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasPrefix(".") { continue }
                let rel = relative.isEmpty ? name : relative + "/" + name
                var s = stat()
                guard lstat(root + "/" + rel, &s) == 0 else { continue }
                if s.st_mode & S_IFMT == S_IFDIR { walk(rel) }
                else if s.st_mode & S_IFMT == S_IFREG, ImageFiles.isImage(path: root + "/" + rel, name: name) { out.append(rel) }
            }
        }
        walk("")
        return out.sorted()
    }

    /// Biggest files first: the threads take photos from one queue, and starting with the long
    /// decodes leaves the short ones to even out the finish (a large photo taken last would keep
    /// one thread busy while the others idle).
    static func largestFirst(_ files: [String], under root: String) -> [String] {
        let sized = files.map { file -> (String, Int) in
            var s = stat()
            return (file, stat(root + "/" + file, &s) == 0 ? Int(s.st_size) : 0)
        }
        return sized.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map(\.0)
    }

    /// "[#########.........] 45/100  3.2 photos/s", on stderr, redrawn in place.
    private func draw(_ s: Progress.State, total: Int) {
        let width = 30
        let filled = total == 0 ? width : width * s.done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r\u{1B}[K[\(bar)] \(s.done)/\(total) photos, \(s.written) files".utf8))
    }
}
