import Foundation
import ImageCodec
import Synchronization

/// Where an original lives.
enum Source: Sendable {
    /// A file inside the library root (real path).
    case local(String)
    /// An http(s) origin.
    case remote(URL)
}

/// Original bytes with the facts the rest of the pipeline needs.
struct Original: Sendable {
    /// The whole original; empty for a local movie, which is read through `source`.
    var bytes: [UInt8]
    var format: ImageFormat
    /// First 12 hex digits of SHA-256 of `bytes` (of a movie's identifying ranges, see
    /// `LocalSource.movieVersion`).
    var version: String
    /// True when the bytes came from the disk cache (so a decode failure may mean corruption).
    var fromDiskCache: Bool
    /// Local movies, TIFFs and camera raws: the open file, read with positioned reads (a
    /// movie's `moov` and one sample, a raw's IFDs and preview, a TIFF's blocks one at a time);
    /// `bytes` is then empty.
    var source: ByteSource? = nil

    /// The whole original: `bytes`, or all of `source` up to `maxBytes` (for serving the
    /// original itself, the one time a positioned original is read whole).
    func wholeBytes(maxBytes: Int) throws(PipelineError) -> [UInt8] {
        guard let source else { return bytes }
        guard source.size <= maxBytes else { throw .originFailed("original of \(source.size) bytes is larger than \(maxBytes) bytes") }
        return try Renderer.codec { try source.read(offset: 0, count: source.size) }
    }
}

/// The request flow behind `ImagePipeline`: versions, the two caches, coalescing, admission
/// control and the thumbnailer, wired as in docs/architecture.md ("One request for a sized image").
final class PipelineEngine: Sendable {
    let configuration: PipelineConfiguration
    let metrics = PipelineMetrics()
    let renderCache: RenderCache
    let disk: DiskDataCache
    let fetcher: OriginFetcher
    let limiter: RenderLimiter
    /// Decode memory shared by the renders that `limiter` lets run at once.
    let budget: DecodeMemoryBudget
    /// Versions of remote originals and their background revalidation.
    let revalidator: OriginRevalidator
    private let fetches: Coalescer<String, Original>
    private let renders: Coalescer<String, RenderedImage>
    /// Local files: version by (path, size, mtime).
    private let localVersions = BoundedMap<String, LocalVersion>(limit: 100_000)
    /// Probed headers by url|version, for detail pages.
    private let infos = BoundedMap<String, ImageInfo>(limit: 10_000)
    /// Mean colours of cover renders by url|version, for pages to paint while images load.
    let placeholders = BoundedMap<String, String>(limit: 200_000)
    /// Blurred previews of cover renders by url|version, with their data URL.
    let previews = BoundedMap<String, DrawnPreview>(limit: 200_000)

    struct DrawnPreview: Sendable {
        var preview: PlaceholderPreview
        var dataURL: String?
    }

    private struct LocalVersion: Sendable {
        var stamp: LocalSource.Stamp
        var version: String
    }

    init(_ configuration: PipelineConfiguration) {
        self.configuration = configuration
        renderCache = RenderCache(capacity: configuration.renderCacheBytes)
        disk = DiskDataCache(directory: configuration.cacheDirectory, maxBytes: configuration.diskCacheBytes,
                             lowWaterFraction: configuration.diskCacheLowWater, clock: configuration.clock, log: configuration.log)
        fetcher = OriginFetcher(connectTimeout: configuration.connectTimeout, totalTimeout: configuration.totalTimeout,
                                maxBytes: configuration.maxOriginBytes, maxRedirects: configuration.maxRedirects)
        limiter = RenderLimiter(maxActive: configuration.maxConcurrentRenders, maxQueued: configuration.renderQueueLength)
        revalidator = OriginRevalidator(configuration: configuration, disk: disk, fetcher: fetcher, metrics: metrics)
        let m = metrics
        m.set(.decodeBudgetBytes, configuration.decodeMemoryBudget)
        budget = DecodeMemoryBudget(totalBytes: configuration.decodeMemoryBudget, maxWait: configuration.decodeMemoryBudgetWait,
                                    onWait: { m.add(.decodeBudgetWaits) }, onRefusal: { m.add(.decodeBudgetRefusals) },
                                    onReservedChange: { m.set(.decodeBudgetReservedBytes, $0) })
        fetches = Coalescer(onWait: { m.add(.coalescedWaits) })
        renders = Coalescer(onWait: { m.add(.coalescedWaits) })
    }

    /// Runs a public call, counting its error by kind.
    func counted<T>(_ body: () throws(PipelineError) -> T) throws(PipelineError) -> T {
        do {
            return try body()
        } catch {
            metrics.error(error)
            if error == .overloaded { metrics.add(.overloaded) }
            throw error
        }
    }

    func source(_ text: String) throws(PipelineError) -> Source {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw .sourceNotAllowed("\(text) is not a URL")
        }
        switch scheme {
        case "file": return .local(try LocalSource.resolve(url, root: configuration.libraryRoot))
        case "http", "https":
            guard url.host != nil else { throw .sourceNotAllowed("\(text) has no host") }
            return .remote(url)
        default: throw .sourceNotAllowed("scheme \(scheme) is not served")
        }
    }

    static func version(of bytes: [UInt8]) -> String {
        ContentHasher.version(of: bytes)
    }

    /// The content version, and the original when finding the version meant reading it.
    func version(_ source: Source) throws(PipelineError) -> (version: String, original: Original?) {
        if let version = knownVersion(source) { return (version, nil) }
        let original = try self.original(source)
        return (original.version, original)
    }

    /// The version when neither reading nor fetching is needed: a local file hashed before and
    /// unchanged since (one stat), or a remote original this process knows.
    func knownVersion(_ source: Source) -> String? {
        switch source {
        case .local(let path):
            guard let stamp = try? LocalSource.stamp(path), let known = localVersions[path], known.stamp == stamp else { return nil }
            return known.version
        case .remote(let url):
            let key = url.absoluteString
            guard let version = revalidator.knownVersion(key) else { return nil }
            revalidator.queueIfDue(key)
            return version
        }
    }

    func original(_ source: Source) throws(PipelineError) -> Original {
        switch source {
        case .local(let path): return try readLocal(path)
        case .remote(let url): return try fetchRemote(url)
        }
    }

    private func readLocal(_ path: String) throws(PipelineError) -> Original {
        let before = try LocalSource.stamp(path)
        if let (file, format) = try LocalSource.openPositioned(path, root: configuration.libraryRoot) {
            let version: String
            if let known = knownVersion(.local(path)) {
                version = known
            } else if format == .video {
                version = try LocalSource.movieVersion(file, limits: configuration.decodeLimits)
            } else {
                version = try LocalSource.hash(file, path: path)
            }
            if let after = try? LocalSource.stamp(path), after == before, after.size == file.size {
                localVersions.set(LocalVersion(stamp: after, version: version), for: path)
            }
            return Original(bytes: [], format: format, version: version, fromDiskCache: false, source: file)
        }
        let bytes = try LocalSource.read(path, root: configuration.libraryRoot, maxBytes: configuration.maxOriginBytes)
        guard let format = ImageFormat.sniff(bytes) else { throw .notAnImage("\(path) is not an image format we read") }
        let version = Self.version(of: bytes)
        // Remember only when the file did not change while it was read.
        if let after = try? LocalSource.stamp(path), after == before, after.size == bytes.count {
            localVersions.set(LocalVersion(stamp: after, version: version), for: path)
        }
        return Original(bytes: bytes, format: format, version: version, fromDiskCache: false)
    }

    /// Remembers a version found elsewhere (the library index) for `path` at `stamp`.
    func rememberLocalVersion(path: String, version: String, stamp: FileStamp) {
        let local = LocalSource.Stamp(path: path, size: stamp.size, mtimeSeconds: stamp.mtimeSeconds,
                                      mtimeNanoseconds: stamp.mtimeNanoseconds)
        if localVersions[path]?.stamp == local { return }
        localVersions.set(LocalVersion(stamp: local, version: version), for: path)
    }

    /// Counts an answer (a render or the original) made from a remote original kept past its
    /// age because its revalidation failed.
    func countServed(_ source: Source) {
        if case .remote(let url) = source { revalidator.countIfStaleOnError(url.absoluteString) }
    }

    /// Disk cache, else one download per URL in this process (coalesced) and across processes
    /// (entry lock), validated and stored atomically. A disk hit past its age queues a
    /// revalidation and is served meanwhile.
    private func fetchRemote(_ url: URL) throws(PipelineError) -> Original {
        let key = url.absoluteString
        let original = try fetches.run(key) { () throws(PipelineError) -> Original in
            if let hit = fromDisk(key) { return hit }
            metrics.add(.diskMisses)
            return try disk.withEntryLock(key) { () throws(PipelineError) -> Original in
                // Another worker process may have fetched it while this one waited for the lock.
                if let hit = fromDisk(key) { return hit }
                metrics.add(.originFetches)
                let fetched = try fetcher.fetch(url)
                metrics.add(.originBytes, fetched.bytes.count)
                let meta = DiskDataCache.Metadata(url: key, fetched: fetched, now: configuration.clock.now())
                if !disk.write(fetched.bytes, metadata: meta) { metrics.add(.diskWriteFailures) }
                revalidator.note(key, meta)
                return Original(bytes: fetched.bytes, format: fetched.format, version: meta.version, fromDiskCache: false)
            }
        }
        revalidator.queueIfDue(key)
        return original
    }

    private func fromDisk(_ key: String) -> Original? {
        guard let (bytes, meta) = disk.read(key) else { return nil }
        guard let format = ImageFormat.sniff(bytes) else {
            disk.remove(key, reason: "not an image")
            return nil
        }
        metrics.add(.diskHits)
        revalidator.note(key, meta)
        return Original(bytes: bytes, format: format, version: meta.version, fromDiskCache: true)
    }

    func render(url: String, spec: SizeSpec, format: RenderFormat) throws(PipelineError) -> RenderedImage {
        metrics.add(.requests)
        guard configuration.allowedSizes.contains(spec) else { throw .sizeNotAllowed(spec.description) }
        let source = try self.source(url)
        let (version, preloaded) = try self.version(source)
        countServed(source)
        let suffix = configuration.versionSuffix
        let key = RenderCache.key(url: url, version: version + suffix, spec: spec, format: format)
        if let hit = renderCache.get(key) {
            metrics.add(.renderHits)
            return hit
        }
        metrics.add(.renderMisses)
        return try renders.run(key) { () throws(PipelineError) -> RenderedImage in
            if let hit = renderCache.get(key) { return hit }
            let (image, actualVersion) = try renderFresh(source, spec: spec, format: format, preloaded: preloaded)
            renderCache.put(RenderCache.key(url: url, version: actualVersion + suffix, spec: spec, format: format), image)
            if case .cover = spec.mode, let colour = image.averageColour {
                placeholders.set(colour, for: url + "|" + actualVersion + suffix, unless: { _ in true })
            }
            if let preview = image.preview, previews[url + "|" + actualVersion] == nil {
                previews.set(DrawnPreview(preview: preview, dataURL: preview.dataURL()), for: url + "|" + actualVersion, unless: { _ in true })
            }
            return image
        }
    }

    /// Decodes and encodes one size; returns it with the version of the bytes it was made
    /// from, which differs from the caller's when a revalidation replaced the original in
    /// between: the render is then stored under the version of its pixels, never under the
    /// caller's. The original is loaded before a render slot is taken, so a slow origin never
    /// holds one. A disk-cached original that fails to decode is taken to be damaged: it is
    /// dropped and fetched again, once.
    private func renderFresh(_ source: Source, spec: SizeSpec, format: RenderFormat,
                             preloaded: Original?) throws(PipelineError) -> (RenderedImage, String) {
        var original: Original
        if let preloaded { original = preloaded } else { original = try self.original(source) }
        do {
            let current = original
            return (try limiter.run { () throws(PipelineError) in try thumbnail(current, spec: spec, format: format) }, original.version)
        } catch let error where original.fromDiskCache && error.blamesTheBytes {
            if case .remote(let remote) = source {
                disk.remove(remote.absoluteString, reason: "cached original does not decode (\(error))")
                revalidator.forget(remote.absoluteString)
            }
            original = try self.original(source)
            let current = original
            return (try limiter.run { () throws(PipelineError) in try thumbnail(current, spec: spec, format: format) }, original.version)
        }
    }

    private func thumbnail(_ original: Original, spec: SizeSpec, format: RenderFormat) throws(PipelineError) -> RenderedImage {
        var limits = configuration.decodeLimits
        // Threads inside one decode (HEIF grid tiles) only pay while cores are idle: with as
        // many renders running as cores, a second tile thread competes with them and holds
        // another tile's buffers. Decided once here, before the render's memory estimate, so
        // the bytes it reserves are the bytes its decode allocates.
        limits.maxThreads = limiter.decodeThreads(configured: limits.maxThreads, cores: ProcessInfo.processInfo.activeProcessorCount)
        var options = RenderOptions(jpegQuality: configuration.jpegQuality, decodeHeadroom: configuration.decodeHeadroom,
                                    limits: limits, colour: configuration.colour)
        options.webpQuality = configuration.webpQuality
        if format == .webp { options.format = .webp }
        let t: RenderOutcome
        if let source = original.source {
            t = try Renderer.render(source: source, modes: [spec.mode], options: options, budget: budget)[0]
        } else {
            t = try Renderer.render(original.bytes, mode: spec.mode, options: options, budget: budget)
        }
        for warning in t.warnings { configuration.log("render \(original.version) \(spec): \(warning)") }
        if t.passthrough {
            metrics.add(.passthroughs)
        } else {
            metrics.add(.renders)
            metrics.observeDecode(seconds: t.decodeSeconds)
        }
        var image = t.image
        image.version = original.version + configuration.versionSuffix
        image.etag = ImagePipeline.etag(version: image.version, spec: spec, format: format)
        return image
    }

    func info(url: String) throws(PipelineError) -> ImageInfo {
        let source = try self.source(url)
        let (version, preloaded) = try self.version(source)
        let key = "\(url)|\(version)"
        if let known = infos[key] { return known }
        let original: Original
        if let preloaded { original = preloaded } else { original = try self.original(source) }
        let info = try Renderer.codec {
            try original.source.map { try ImageCodec.probe(source: $0, limits: configuration.decodeLimits) }
                ?? ImageCodec.probe(original.bytes, limits: configuration.decodeLimits)
        }
        infos.set(info, for: key)
        return info
    }
}
