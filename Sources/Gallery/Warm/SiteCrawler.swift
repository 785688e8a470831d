import Foundation

// `gallery warm --url`: walks a site through its front (nginx) as a visitor would, so that
// every image the pages link ends up in nginx's fastcgi_cache, which outlives the app.
//
// Pages come first: every same-origin `<a href>` under the start path is fetched once and
// parsed; then every image URL the pages link (`src` and each `srcset` candidate of `<img>`
// and `<picture><source>`). Workers share one queue, each with its own keep-alive connection.
// A redirect is followed on the same origin (an unversioned image URL redirects to its
// versioned one, which is the URL a browser ends up caching).

/// Settings of one warm-up.
public struct WarmOptions: Sendable {
    public var site: SiteURL
    /// Requests in flight at once. Default: the number of cores.
    public var concurrency: Int
    /// After the crawl, GET every image again and count the answers nginx did not serve from
    /// its cache (`X-Cache-Status` other than HIT). Default false.
    public var verify: Bool
    /// Most seconds a connect or the wait for the next bytes may take. Default 120 (a cold
    /// 2560 px render of a large photo can take seconds).
    public var timeoutSeconds: Int

    public init(site: SiteURL, concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, verify: Bool = false,
                timeoutSeconds: Int = 120) {
        self.site = site
        self.concurrency = max(1, concurrency)
        self.verify = verify
        self.timeoutSeconds = timeoutSeconds
    }
}

/// Counts of a warm-up so far (also the final report).
public struct WarmProgress: Sendable {
    public var pagesDone = 0, pagesFound = 0, failedPages = 0
    public var imagesDone = 0, imagesFound = 0, failedImages = 0
    /// Body bytes of the images received.
    public var imageBytes = 0
    /// Image answers by nginx's `X-Cache-Status`: HIT, MISS, any other value, and none.
    public var hits = 0, misses = 0, otherCacheStatus = 0, noCacheStatus = 0
    /// Verify pass: images checked, and those whose second GET was not a HIT.
    public var verified = 0, notHitOnVerify = 0
    /// The first failures, as "URL: reason" lines.
    public var failures: [String] = []
}

public final class SiteCrawler: @unchecked Sendable {
    public let options: WarmOptions
    /// Paths that are never pages: originals (large), static assets, images.
    static let skippedPrefixes = ["/original/", "/static/", "/img/"]
    /// Links that are neither pages nor images to warm: `/album/<id>/download` starts a ZIP of
    /// the album's originals. Fetching one only to drop it held one of the server's few
    /// download slots until the server noticed, and the next album's link then got a 503.
    static let skippedLastSegments: Set<Substring> = ["download"]
    static let skippedExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "heic", "heif", "gif", "avif", "svg", "css",
                                                 "js", "json", "ico", "zip", "pdf", "mp4", "mov", "txt", "xml"]
    static let maxFailuresKept = 20

    private enum Task { case page(String), image(String) }

    private let condition = NSCondition()
    private var pages: [String] = []
    private var images: [String] = []
    /// Next image to take: images keep the order the pages listed them.
    private var imageHead = 0
    private var seen = Set<String>()
    private var fetchedImages: [String] = []
    private var busy = 0
    private var counts = WarmProgress()
    private let scope: String

    public init(options: WarmOptions) {
        self.options = options
        let (path, _) = SiteURL.pathAndQuery(options.site.start)
        scope = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
    }

    /// The counts so far (safe from any thread).
    public var progress: WarmProgress {
        condition.lock()
        defer { condition.unlock() }
        return counts
    }

    /// Crawls the site, then verifies when asked; returns the final counts.
    public func run() -> WarmProgress {
        condition.lock()
        enqueue(.page(options.site.start))
        condition.unlock()
        runWorkers { self.crawl($0) }
        if options.verify {
            condition.lock()
            images = fetchedImages
            imageHead = 0
            condition.unlock()
            runWorkers { self.verify($0) }
        }
        return progress
    }

    private func runWorkers(_ body: @escaping @Sendable (HTTPConnection) -> Void) {
        let group = DispatchGroup()
        for _ in 0..<options.concurrency {
            group.enter()
            let site = options.site, timeout = options.timeoutSeconds
            Thread {
                body(HTTPConnection(host: site.host, port: site.port, timeoutSeconds: timeout))
                group.leave()
            }.start()
        }
        group.wait()
    }

    // MARK: - Crawl

    private func crawl(_ connection: HTTPConnection) {
        while let task = next() {
            switch task {
            case .page(let target): fetchPage(target, connection)
            case .image(let target): fetchImage(target, connection)
            }
            condition.lock()
            busy -= 1
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next task (pages before images), waiting while others may still find more; nil
    /// when the queues are empty and nobody is working.
    private func next() -> Task? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let page = pages.popLast() { busy += 1; return .page(page) }
            if imageHead < images.count {
                busy += 1
                imageHead += 1
                return .image(images[imageHead - 1])
            }
            if busy == 0 { return nil }
            condition.wait()
        }
    }

    /// Queues `task` unless its URL was seen (lock held).
    private func enqueue(_ task: Task) {
        switch task {
        case .page(let t):
            guard seen.insert("p " + t).inserted else { return }
            pages.append(t)
            counts.pagesFound += 1
        case .image(let t):
            guard seen.insert("i " + t).inserted else { return }
            images.append(t)
            counts.imagesFound += 1
        }
        condition.broadcast()
    }

    private func isPage(_ target: String) -> Bool {
        let (path, _) = SiteURL.pathAndQuery(target)
        guard path.hasPrefix(scope), !Self.skippedPrefixes.contains(where: { path.hasPrefix($0) }) else { return false }
        let name = path.split(separator: "/").last ?? ""
        guard !Self.skippedLastSegments.contains(name) else { return false }
        guard let dot = name.lastIndex(of: ".") else { return true }
        return !Self.skippedExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    private func fetchPage(_ target: String, _ connection: HTTPConnection) {
        let answer: HTTPAnswer
        do {
            answer = try connection.get(target, hostHeader: options.site.hostHeader) {
                $0["content-type"]?.lowercased().hasPrefix("text/html") == true
            }
        } catch {
            record(page: target, failure: error.description)
            return
        }
        if (300..<400).contains(answer.status), let location = answer.headers["location"] {
            condition.lock()
            counts.pagesDone += 1
            if let next = options.site.resolve(location, against: target), isPage(next) { enqueue(.page(next)) }
            condition.unlock()
            return
        }
        guard answer.status == 200 else {
            record(page: target, failure: "status \(answer.status)")
            return
        }
        let links = HTMLLinkExtractor.links(in: answer.body)
        let base = links.base.flatMap { options.site.resolve($0, against: target) } ?? target
        let pageLinks = links.pages.compactMap { options.site.resolve($0, against: base) }.filter(isPage)
        let imageLinks = links.images.compactMap { options.site.resolve($0, against: base) }
        condition.lock()
        counts.pagesDone += 1
        for p in pageLinks { enqueue(.page(p)) }
        for i in imageLinks { enqueue(.image(i)) }
        condition.unlock()
    }

    private func fetchImage(_ target: String, _ connection: HTTPConnection) {
        let answer: HTTPAnswer
        do {
            answer = try connection.get(target, hostHeader: options.site.hostHeader) { _ in false }
        } catch {
            record(image: target, failure: error.description)
            return
        }
        if (300..<400).contains(answer.status), let location = answer.headers["location"],
           let next = options.site.resolve(location, against: target) {
            condition.lock()
            counts.imagesDone += 1
            enqueue(.image(next))
            condition.unlock()
            return
        }
        guard answer.status == 200 else {
            record(image: target, failure: "status \(answer.status)")
            return
        }
        condition.lock()
        counts.imagesDone += 1
        counts.imageBytes += answer.bodyBytes
        switch answer.headers["x-cache-status"]?.uppercased() {
        case "HIT": counts.hits += 1
        case "MISS": counts.misses += 1
        case nil: counts.noCacheStatus += 1
        default: counts.otherCacheStatus += 1
        }
        fetchedImages.append(target)
        condition.unlock()
    }

    private func record(page: String? = nil, image: String? = nil, failure: String) {
        condition.lock()
        if let page {
            counts.pagesDone += 1
            counts.failedPages += 1
            if counts.failures.count < Self.maxFailuresKept { counts.failures.append("page \(page): \(failure)") }
        }
        if let image {
            counts.imagesDone += 1
            counts.failedImages += 1
            if counts.failures.count < Self.maxFailuresKept { counts.failures.append("image \(image): \(failure)") }
        }
        condition.unlock()
    }

    // MARK: - Verify

    private func verify(_ connection: HTTPConnection) {
        while true {
            condition.lock()
            guard imageHead < images.count else { condition.unlock(); return }
            let target = images[imageHead]
            imageHead += 1
            condition.unlock()
            let status = (try? connection.get(target, hostHeader: options.site.hostHeader) { _ in false })
                .map { $0.status == 200 ? $0.headers["x-cache-status"]?.uppercased() ?? "none" : "status \($0.status)" } ?? "failed"
            condition.lock()
            counts.verified += 1
            if status != "HIT" {
                counts.notHitOnVerify += 1
                if counts.failures.count < Self.maxFailuresKept { counts.failures.append("verify \(target): \(status)") }
            }
            condition.unlock()
        }
    }
}
