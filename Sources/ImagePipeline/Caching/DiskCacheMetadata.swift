import Foundation

extension DiskDataCache {
    /// What is known about an entry besides its bytes.
    struct Metadata: Codable, Sendable, Equatable {
        var url: String
        var length: Int
        var contentType: String
        /// First 12 hex digits of SHA-256 of the bytes.
        var version: String
        var etag: String?
        var lastModified: String?
        /// Seconds since 1970 when the origin answered.
        var fetchedAt: Double
        /// Seconds since 1970 when the origin last sent or confirmed these bytes; nil in entries
        /// written before revalidation existed, whose age counts from `fetchedAt`.
        var validatedAt: Double? = nil
        /// When the last revalidation failed, nil after a success. Kept on disk so that every
        /// worker process (and the next start) waits out the back-off, not only the one that tried.
        var revalidationFailedAt: Double? = nil

        /// The time the revalidation age counts from.
        var lastValidated: Double { validatedAt ?? fetchedAt }

        /// The metadata of bytes the origin just sent (a first fetch, or a revalidation that
        /// brought other bytes): fetched and validated `now`, versioned by their hash.
        init(url: String, fetched: FetchedOriginal, now: Double) {
            self.init(url: url, length: fetched.bytes.count, contentType: fetched.format.mimeType,
                      version: PipelineEngine.version(of: fetched.bytes), etag: fetched.etag,
                      lastModified: fetched.lastModified, fetchedAt: now, validatedAt: now)
        }

        init(url: String, length: Int, contentType: String, version: String, etag: String?, lastModified: String?,
             fetchedAt: Double, validatedAt: Double? = nil, revalidationFailedAt: Double? = nil) {
            self.url = url
            self.length = length
            self.contentType = contentType
            self.version = version
            self.etag = etag
            self.lastModified = lastModified
            self.fetchedAt = fetchedAt
            self.validatedAt = validatedAt
            self.revalidationFailedAt = revalidationFailedAt
        }
    }
}
