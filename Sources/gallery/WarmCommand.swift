import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Gallery
import ImagePipeline
import Synchronization

/// `gallery warm`: `--url` fills nginx's image cache by visiting the site; `--root --out`
/// renders a folder's photos into files (a static export, decoded once per photo).
enum WarmCommand {
    /// gallery warm --url URL [--concurrency N] [--verify] [--timeout S]
    /// gallery warm --root DIR --sizes 280x210,800 --out DIR [--quality Q] [--concurrency N]
    static func run(_ args: [String]) -> Int32 {
        var url: String?, root: String?, out: String?
        var sizes: [SizeSpec] = []
        var concurrency = ProcessInfo.processInfo.activeProcessorCount
        var verify = false
        var timeout = 120
        var quality = 82
        var rest = args[...]
        while let a = rest.popFirst() {
            if a == "--verify" { verify = true; continue }
            guard let value = rest.popFirst() else { return usage("warm: \(a) needs a value") }
            switch a {
            case "--url": url = value
            case "--root": root = value
            case "--out": out = value
            case "--sizes":
                for text in value.split(separator: ",") {
                    guard let spec = SizeSpec(parsing: String(text)) else { return usage("warm: bad size '\(text)'") }
                    sizes.append(spec)
                }
            case "--concurrency":
                guard let n = Int(value), n >= 1, n <= 1024 else { return usage("warm: --concurrency needs 1...1024") }
                concurrency = n
            case "--timeout":
                guard let n = Int(value), n >= 1 else { return usage("warm: --timeout needs seconds >= 1") }
                timeout = n
            case "--quality":
                guard let q = Int(value), (1...100).contains(q) else { return usage("warm: --quality needs 1...100") }
                quality = q
            case "--manifest", "--cache-dir":
                return usage("warm: \(a) is gone: warm the running site with --url (the app fetches remote photos into its cache)")
            default: return usage("warm: unknown option \(a)")
            }
        }
        if let url {
            guard root == nil, out == nil, sizes.isEmpty else { return usage("warm: --url takes no --root, --out or --sizes") }
            guard let site = SiteURL(url) else { return usage("warm: --url needs http://host[:port]/path (plain http, as nginx listens on loopback)") }
            return warmSite(WarmOptions(site: site, concurrency: concurrency, verify: verify, timeoutSeconds: timeout))
        }
        guard let root else { return usage("warm: needs --url URL, or --root DIR --sizes ... --out DIR") }
        guard let out, !sizes.isEmpty else {
            return usage("warm: --root renders into files and needs --out DIR and --sizes (to warm the site, use --url)")
        }
        return StaticExport(root: root, out: out, sizes: sizes, quality: quality, concurrency: concurrency).run()
    }

    private static func warmSite(_ options: WarmOptions) -> Int32 {
        let crawler = SiteCrawler(options: options)
        let terminal = isatty(STDERR_FILENO) != 0
        let start = DispatchTime.now().uptimeNanoseconds
        let elapsed: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        let finished = Flag()
        let drawer = Thread {
            while !finished.value.withLock({ $0 }) {
                usleep(200_000)
                if terminal && !finished.value.withLock({ $0 }) { drawSite(crawler.progress, seconds: elapsed()) }
            }
        }
        drawer.start()
        let p = crawler.run()
        finished.value.withLock { $0 = true }
        if terminal { drawSite(p, seconds: elapsed()); FileHandle.standardError.write(Data("\n".utf8)) }
        for line in p.failures { printError("gallery warm: " + line) }
        let seconds = elapsed()
        print("warmed \(options.site.hostHeader): \(p.pagesDone - p.failedPages) pages, \(p.imagesDone - p.failedImages) images"
              + " (\(ByteText.mb(p.imageBytes)) MB) in \(String(format: "%.1f", seconds)) s with \(options.concurrency) connections;"
              + " X-Cache-Status HIT \(p.hits), MISS \(p.misses), other \(p.otherCacheStatus), none \(p.noCacheStatus);"
              + " failed: \(p.failedPages) pages, \(p.failedImages) images")
        if options.verify {
            print("verify: \(p.verified - p.notHitOnVerify) of \(p.verified) images answered from nginx's cache (HIT)")
        }
        if p.noCacheStatus > 0 && p.hits + p.misses == 0 {
            printError("gallery warm: no X-Cache-Status header came back: is nginx's fastcgi_cache on for /img/ (deploy/nginx)?")
        }
        return p.failedImages == 0 && p.failedPages == 0 && p.notHitOnVerify == 0 ? 0 : 1
    }

    /// "[########..........] pages 12/40  images 100/480  HIT 20 MISS 80  3.2 MB/s", in place.
    private static func drawSite(_ p: WarmProgress, seconds: Double) {
        let total = p.pagesFound + p.imagesFound
        let done = p.pagesDone + p.imagesDone
        let width = 24
        let filled = total == 0 ? 0 : min(width, width * done / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let rate = seconds > 0 ? Double(p.imageBytes) / seconds / 1e6 : 0
        let line = "\r\u{1B}[K[\(bar)] pages \(p.pagesDone)/\(p.pagesFound)  images \(p.imagesDone)/\(p.imagesFound)"
            + "  HIT \(p.hits) MISS \(p.misses)  " + String(format: "%.1f MB/s", rate)
            + (p.failedImages + p.failedPages > 0 ? "  failed \(p.failedImages + p.failedPages)" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func usage(_ message: String) -> Int32 {
        printError("gallery \(message)\n\(usageText)")
        return 2
    }
}

private final class Flag: Sendable {
    let value = Mutex(false)
}

enum ByteText {
    static func mb(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1e6) }
}
