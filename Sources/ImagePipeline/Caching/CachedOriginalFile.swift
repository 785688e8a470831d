/// Where the disk cache keeps a remote original, for callers that stream the file themselves
/// (album ZIP downloads) instead of loading it whole.
public struct CachedOriginalFile: Sendable, Equatable {
    /// The data file. It may be replaced (revalidation) or removed (eviction) at any time: open
    /// it once and check its size against `length`; an open file keeps its bytes.
    public var path: String
    /// Bytes of the original, from the entry's metadata.
    public var length: Int
    /// Content version (first 12 hex digits of SHA-256 of the bytes).
    public var version: String
    /// When the origin sent these bytes, seconds since 1970.
    public var fetchedAt: Double
}

extension ImagePipeline {
    /// The disk-cached original of the remote `url` without reading or fetching it, or nil when
    /// the cache holds none: a remote photo nobody has looked at yet has no bytes here.
    public func cachedOriginalFile(url: String) -> CachedOriginalFile? {
        guard let meta = engine.disk.metadata(url) else { return nil }
        let path = engine.disk.path(DiskDataCache.key(url))
        return CachedOriginalFile(path: path, length: meta.length, version: meta.version, fetchedAt: meta.fetchedAt)
    }
}
