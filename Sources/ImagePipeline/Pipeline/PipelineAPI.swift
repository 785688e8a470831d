import Foundation
import ImageCodec

// The public face of ImagePipeline that the web layer codes against. The pipeline work owns
// this file and may extend it; changing these signatures means changing Gallery too.

/// A size the page asks for: `fit` ("480": longest edge) or `cover` ("240x240": fill and crop).
public struct SizeSpec: Hashable, Sendable, CustomStringConvertible {
    public let mode: ResizeMode

    public init(mode: ResizeMode) { self.mode = mode }

    /// Parses URL text ("480" or "240x240"); nil for anything else: signs, spaces, leading
    /// zeros, zero, more than 5 digits per number. Whether the size is allowed is checked by
    /// `ImagePipeline.render` against `PipelineConfiguration.allowedSizes`.
    public init?(parsing text: String) {
        guard let mode = SizeSpec.parse(text) else { return nil }
        self.mode = mode
    }

    /// Fit the longest edge into `maxEdge` pixels.
    public static func fit(maxEdge: Int) -> SizeSpec { SizeSpec(mode: .fit(maxEdge: maxEdge)) }

    /// Fill `width` × `height`, cropping what overflows.
    public static func cover(width: Int, height: Int) -> SizeSpec { SizeSpec(mode: .cover(width: width, height: height)) }

    /// The URL and cache-key text ("480", "240x240").
    public var description: String { SizeSpec.text(of: mode) }
}

/// Tunables of the pipeline; every one has a default.
public struct PipelineConfiguration: Sendable {
    /// Folder of the disk cache of originals.
    public var cacheDirectory: String
    /// Local files may only be read inside this folder (file:// URLs elsewhere are refused).
    public var libraryRoot: String
    /// Quality 1...100 of rendered JPEGs (always 4:2:0). Default 82.
    public var jpegQuality: Int = 82
    /// Quality 0...100 of rendered WebPs (cwebp's `-q` scale); nil (the default) chooses it per
    /// render so that each WebP is as faithful as its JPEG twin at `jpegQuality`, in fewer bytes
    /// (see `WebPQualityMatch`; measured in docs/webp.md, "Serving").
    public var webpQuality: Int?
    /// Where the per-render choice of WebP quality starts (cwebp's scale): 82.
    public static let defaultWebPQuality = 82
    /// Colour space of rendered images: `.srgb` (the default) converts everything to sRGB and
    /// sends it untagged; `.wide` keeps sources wider than sRGB in Display P3 with an embedded
    /// profile. The mode is part of every URL version (`versionSuffix`), so caches never mix
    /// the two renders of one photo.
    public var colour: ColourOutput = .srgb
    /// Factor by which the reduced-scale decode must exceed the resampled size. Default
    /// `Renderer.defaultHeadroom`.
    public var decodeHeadroom: Double = Renderer.defaultHeadroom
    /// Bound on the disk cache of originals, in bytes. Default 1 GiB.
    public var diskCacheBytes: Int = 1 << 30
    /// Eviction brings the disk cache down to this fraction of `diskCacheBytes`. Default 0.9.
    public var diskCacheLowWater: Double = 0.9
    /// Budget of the in-memory cache of encoded renders, in bytes. Default 64 MiB.
    public var renderCacheBytes: Int = 64 << 20
    /// Sizes `render` accepts; anything else is `.sizeNotAllowed`. Default `SizeSpec.defaultAllowed`.
    public var allowedSizes: Set<SizeSpec> = SizeSpec.defaultAllowed
    /// Longest wait for an origin to connect or send the next bytes, in seconds. Default 5.
    public var connectTimeout: Double = 5
    /// Longest time for one whole origin transfer, in seconds. Default 30.
    public var totalTimeout: Double = 30
    /// Largest original accepted from an origin or the library, in bytes. Default 64 MiB.
    public var maxOriginBytes: Int = 64 << 20
    /// Redirects followed per origin request. Default 5.
    public var maxRedirects: Int = 5
    /// Age in seconds after which a cached remote original is checked with its origin again (a
    /// conditional GET, in the background: see `OriginRevalidator`). The age counts from the
    /// last successful fetch or revalidation, kept in the disk cache, so it survives restarts.
    /// Default 3600. `.infinity` never revalidates. Values below `minimumRevalidateAfter` count
    /// as that minimum: 0 does not mean a request to the origin per page view.
    public var remoteRevalidateAfter: TimeInterval = 3600
    /// Pause in seconds after a failed revalidation (timeout, error status, not an image) before
    /// the next attempt; the cached bytes are served meanwhile. Default 60.
    public var remoteRevalidateBackoff: TimeInterval = 60
    /// The floor of `remoteRevalidateAfter`: 0.1 s.
    public static let minimumRevalidateAfter: TimeInterval = 0.1
    /// Renders (decode + resample + encode) running at once. Default 2 × CPU cores.
    public var maxConcurrentRenders: Int = 2 * ProcessInfo.processInfo.activeProcessorCount
    /// Renders allowed to wait for a slot; more are refused with `.overloaded`. Default 2 × cores.
    public var renderQueueLength: Int = 2 * ProcessInfo.processInfo.activeProcessorCount
    /// Pixel, dimension and byte bounds for decoding originals, and the buffers one decode may
    /// allocate (`maxMemoryBytes`; what all decodes together hold is `decodeMemoryBudget`).
    public var decodeLimits: DecodeLimits = .default
    /// Decode memory all renders of this process may hold at once, in bytes: each render
    /// reserves its decode's estimate first and waits while the rest is taken (see
    /// `DecodeMemoryBudget`). nil (the default) means twice `decodeLimits.maxMemoryBytes`.
    /// A value below `decodeLimits.maxMemoryBytes` also lowers that limit: a decode larger
    /// than the whole budget is `.tooLarge`.
    public var decodeMemoryBudgetBytes: Int?
    /// The budget in effect: `decodeMemoryBudgetBytes`, else twice the per-decode limit, 1.5 GiB
    /// by default. Twice, so that two of the largest decodes allowed (a 100 MP progressive JPEG
    /// at full size, about 730 MB) still run side by side and keep two cores busy, while a
    /// burst of them holds 1.5 GiB rather than 768 MiB × `maxConcurrentRenders` (6 GiB on 4
    /// cores). Ordinary photos never wait: a 24 MP JPEG needs about 75 MB at full size and a
    /// few MB at the 1/8 scale most thumbnails decode at. In bytes, not per core, because the
    /// machine's memory, not its cores, is what it protects.
    public var decodeMemoryBudget: Int {
        if let decodeMemoryBudgetBytes { return decodeMemoryBudgetBytes }
        let (double, overflow) = decodeLimits.maxMemoryBytes.multipliedReportingOverflow(by: 2)
        return overflow ? .max : double
    }
    /// Longest wait of a render for decode memory, in seconds; after it the render is refused
    /// with `.overloaded` (503 + Retry-After). Default 10: time for one or two of the largest
    /// decodes ahead of it to finish (a few seconds each on 2 cores), and well under a
    /// proxy's read timeout (nginx: 60 s), so the client gets a prompt 503 rather than a 504.
    /// The waiting render holds its render slot meanwhile.
    public var decodeMemoryBudgetWait: TimeInterval = 10
    /// The time the pipeline reads (cache ages, back-offs). Default: the wall clock; tests
    /// inject one they move by hand.
    public var clock: PipelineClock = .system
    /// Where the pipeline's log lines go (one line per call). Default: standard error.
    public var log: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(("image-pipeline: " + line + "\n").utf8))
    }

    public init(cacheDirectory: String, libraryRoot: String) {
        self.cacheDirectory = cacheDirectory
        self.libraryRoot = libraryRoot
    }

    /// What image URL versions append to the content version for settings that change the
    /// rendered pixels of the same original: "-p3" in `.wide` colour mode, "" otherwise. Every
    /// render in wide mode carries it, sRGB sources too (their pixels are the same in both
    /// modes, but whether a source is wide is only known after reading it).
    public var versionSuffix: String { colour == .wide ? "-p3" : "" }
}

/// An encoded image ready to send.
public struct RenderedImage: Sendable {
    public var bytes: [UInt8]
    public var contentType: String
    public var width: Int
    public var height: Int
    /// Strong HTTP validator, quoted: content version and size ("\"3f2a9c01b7de-480\"");
    /// empty when the image did not come from the pipeline.
    public var etag: String
    /// Content version of the original these pixels were made from; empty when the image did
    /// not come from the pipeline. A remote original replaced by revalidation between a
    /// caller's `version(url:)` and its `render` shows up here as a different version.
    public var version: String
    /// The mean colour of the rendered pixels as "#rrggbb" (pages paint it while the image
    /// loads); nil for a passthrough of the original bytes, whose pixels were never decoded.
    public var averageColour: String?
    /// A tiny blurred likeness of the rendered pixels (cover renders only), for pages to paint
    /// while the image loads; nil for other renders and passthroughs.
    public var preview: PlaceholderPreview?
    public init(bytes: [UInt8], contentType: String, width: Int, height: Int, etag: String = "", version: String = "",
                averageColour: String? = nil, preview: PlaceholderPreview? = nil) {
        self.bytes = bytes
        self.contentType = contentType
        self.width = width
        self.height = height
        self.etag = etag
        self.version = version
        self.averageColour = averageColour
        self.preview = preview
    }
}

/// Original bytes as fetched (or read from disk), with their content type.
public struct OriginalImage: Sendable {
    public var bytes: [UInt8]
    public var contentType: String
    public init(bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
    }
}

/// Fetches originals once, renders sizes once, caches each in its own lane.
///
/// Thread-safe: FastCGI worker threads call it concurrently. Identical fetches and renders
/// in flight are coalesced; renders beyond the concurrency limit queue briefly, then are
/// refused with `.overloaded`.
public final class ImagePipeline: Sendable {
    public let configuration: PipelineConfiguration
    let engine: PipelineEngine

    public init(configuration: PipelineConfiguration) {
        self.configuration = configuration
        self.engine = PipelineEngine(configuration)
    }

    /// The image at `url` (file:// inside the library root, or http(s)://) rendered to `spec`
    /// in `format`.
    public func render(url: String, spec: SizeSpec, format: RenderFormat = .standard) throws(PipelineError) -> RenderedImage {
        try engine.counted { () throws(PipelineError) in
            try engine.render(url: url, spec: spec, format: format)
        }
    }

    /// Part of every ETag: bump when the renderer's output for the same source and size changes.
    public static let renderTag = "r1"

    /// The strong validator of `spec` in `format` rendered from the original of `version` (a
    /// URL version, colour suffix included): known without rendering, so a conditional request
    /// is answered before any work. `.standard` keeps the validators sent before formats were
    /// named ("\"3f2a9c01b7de-480-r1\""); WebP adds its extension ("…-480.webp-r1").
    public static func etag(version: String, spec: SizeSpec, format: RenderFormat = .standard) -> String {
        "\"\(version)-\(spec)\(format.urlSuffix)-\(renderTag)\""
    }

    /// Throws `.sizeNotAllowed` unless `render` serves `spec`: callers check it before looking
    /// up a version, so a bad size is refused without reading the original.
    public func validate(_ spec: SizeSpec) throws(PipelineError) {
        guard configuration.allowedSizes.contains(spec) else { throw .sizeNotAllowed(spec.description) }
    }

    /// The mean colour of the smallest cover render made so far of `url` at `version` (a URL
    /// version, as `version(url:)` answers) ("#rrggbb"), or nil when none was made in this process.
    public func placeholderColour(url: String, version: String) -> String? {
        engine.placeholders[url + "|" + version]
    }

    /// The blurred preview of the smallest cover render made so far of `url` at `version`, or
    /// nil when none was made in this process. Its `bytes` are what an index would store.
    public func placeholderPreview(url: String, version: String) -> PlaceholderPreview? {
        engine.previews[url + "|" + version]?.preview
    }

    /// `placeholderPreview` drawn as a small PNG `data:` URL for a CSS background (made once
    /// per render, so pages only copy it), or nil.
    public func placeholderImage(url: String, version: String) -> String? {
        engine.previews[url + "|" + version]?.dataURL
    }

    /// The original bytes of `url`, fetched once and kept in the disk cache.
    public func original(url: String) throws(PipelineError) -> OriginalImage {
        try engine.counted { () throws(PipelineError) in
            let source = try engine.source(url)
            let o = try engine.original(source)
            engine.countServed(source)
            // Raws are never bound by maxOriginBytes for renders; a download holds them whole.
            let cap = max(configuration.maxOriginBytes, configuration.decodeLimits.maxInputBytes)
            return OriginalImage(bytes: try o.wholeBytes(maxBytes: cap), contentType: o.format.mimeType)
        }
    }

    /// The version image URLs carry: the content version (the first 12 hex digits of SHA-256
    /// of the original bytes), followed by `configuration.versionSuffix` ("-p3" in wide colour
    /// mode). Local files are hashed once and remembered by path, size and mtime; remote
    /// originals are remembered until `remoteRevalidateAfter` passes, then revalidated in the
    /// background while this keeps answering the cached version.
    public func version(url: String) throws(PipelineError) -> String {
        try engine.counted { () throws(PipelineError) in
            try engine.version(try engine.source(url)).version + configuration.versionSuffix
        }
    }

    /// The content version if it is known without reading or fetching the original (a local
    /// file seen before and unchanged, a remote original this process has seen), else nil:
    /// pages answer these at once and look up the rest within a time budget.
    public func knownVersion(url: String) -> String? {
        guard let source = try? engine.source(url) else { return nil }
        return engine.knownVersion(source).map { $0 + configuration.versionSuffix }
    }

    /// Header facts of the original (size, orientation, EXIF) for detail pages.
    public func info(url: String) throws(PipelineError) -> ImageInfo {
        try engine.counted { () throws(PipelineError) in
            try engine.info(url: url)
        }
    }

    /// Counters and histograms in Prometheus text format.
    public func metricsText() -> String { engine.metrics.text() }
}
