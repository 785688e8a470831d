import Foundation
import Gallery
import ImagePipeline

/// `gallery index --root DIR [--cache-dir DIR] [--index PATH] [--accept-removals]`: builds or
/// refreshes the library index offline (the same pass the server's watcher runs), with a
/// progress bar on standard error when it is a terminal, and prints a summary. SIGTERM or
/// SIGINT stops it after the files being read, with what was read written (exit 128 + signal).
///
/// A scan that would drop much of the library at once (`RemovalGuard`: an empty mount) is
/// refused unless `--accept-removals` says the photos are really gone; with a server running
/// (it holds the index), `--accept-removals` leaves the file that lets its next scan through.
enum IndexCommand {
    static func run(_ args: [String]) -> Int32 {
        var values: [String: String] = [:]
        var acceptRemovals = false
        var rest = args[...]
        while let flag = rest.popFirst() {
            if flag == "--accept-removals" {
                acceptRemovals = true
                continue
            }
            guard ["--root", "--cache-dir", "--index"].contains(flag), let value = rest.popFirst() else {
                printError("gallery index: bad option \(flag)\n\(usageText)")
                return 2
            }
            values[flag] = value
        }
        let env = ProcessInfo.processInfo.environment
        guard let root = values["--root"] ?? env["GALLERY_ROOT"] else {
            printError("gallery index: --root DIR is required")
            return 2
        }
        let cache = values["--cache-dir"] ?? env["GALLERY_CACHE_DIR"] ?? ServeOptions.defaultCacheDirectory
        let path = values["--index"] ?? env["GALLERY_INDEX"] ?? ServeOptions.defaultIndexPath(cacheDirectory: cache)
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard let index = LibraryIndex.open(path: path, log: { printError($0) }) else {
            printError("gallery index: cannot open \(path)")
            return 1
        }
        guard index.claimWriter() else {
            if acceptRemovals {
                guard FileManager.default.createFile(atPath: RemovalGuard.acceptFile(indexPath: path), contents: nil) else {
                    printError("gallery index: cannot write \(RemovalGuard.acceptFile(indexPath: path))")
                    return 1
                }
                print("gallery index: the running server applies the removals it holds back at its next scan")
                return 0
            }
            printError("gallery index: another process (a running server?) is writing \(path); it keeps the index current itself")
            return 1
        }
        let limits = PipelineConfiguration(cacheDirectory: cache, libraryRoot: root)
        let indexer = LibraryIndexer(index: index, background: false) { file throws(PipelineError) in
            try FileIndexing.read(path: file, root: root, maxBytes: limits.maxOriginBytes, limits: limits.decodeLimits)
        }
        let scanStart = Date()
        let scanner = CatalogScanner(root: root, siteTitle: "")
        let scan = scanner.scan()
        for warning in scan.warnings { printError("gallery index: \(warning)") }
        // An index of another folder's library is replaced, not guarded (`LibraryRootMark.swift`).
        let realRoot = ImageFiles.realPath(root) ?? root
        if !acceptRemovals, index.holdsLibrary(at: realRoot), let listing = index.listing(),
           let problem = RemovalGuard().problem(current: scanner.build(from: listing).catalog, next: scan.catalog,
                                                unreadable: scan.unreadableFolders) {
            printError("gallery index: not applied, the index is kept as it was: \(problem).\n"
                       + "If the photos are really gone, run it again with --accept-removals.")
            return 1
        }
        let scanSeconds = Date().timeIntervalSince(scanStart)
        let terminal = isatty(STDERR_FILENO) != 0
        let stop = StopSignals { indexer.cancel() }
        let start = Date()
        var lastDraw = Date.distantPast
        let summary = indexer.refresh(scan.catalog) { done, total in
            guard terminal, done == total || Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
            lastDraw = Date()
            draw(done: done, total: total, since: start)
        }
        if terminal && summary.read + summary.failed > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        let readRate = Double(summary.read + summary.failed) / max(summary.seconds, 0.001)
        print(String(format: "index %@: %d photos; scanned %d files in %.2f s, read %d (%.0f photos/s), %d failed, %d removed, %.1f s",
                     path, summary.photos, scan.catalog.items.count, scanSeconds, summary.read, readRate, summary.failed,
                     summary.removed, summary.seconds))
        if stop.stopSignal == nil { index.markLibrary(at: realRoot) }
        if let signal = stop.stopSignal {
            printError("gallery index: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM"); what was read is kept, "
                       + "and the next run reads only the rest")
            return 128 + signal
        }
        return 0
    }

    /// "[#########.........] 4500/10000  310 photos/s  ETA 0:17", redrawn in place on stderr.
    private static func draw(done: Int, total: Int, since start: Date) {
        let width = 30
        let filled = total == 0 ? width : width * done / total
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Int(Double(total - done) / rate) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = "\r[\(bar)] \(done)/\(total)  " + String(format: "%.0f photos/s  ETA %d:%02d", rate, eta / 60, eta % 60)
        FileHandle.standardError.write(Data(line.utf8))
    }
}
