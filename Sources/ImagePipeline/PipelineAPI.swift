import Foundation
import ImageCodec

// The public face of ImagePipeline that the web layer codes against. The pipeline work owns
// this file and may extend it; changing these signatures means changing Gallery too.

/// A size the page asks for: `fit` ("480": longest edge) or `cover` ("240x240": fill and crop).
public struct SizeSpec: Hashable, Sendable, CustomStringConvertible {
    public let mode: ResizeMode

    public init(mode: ResizeMode) { self.mode = mode }

    /// Parses URL text ("480" or "240x240"); nil for anything else.
    public init?(parsing text: String) { return nil }

    /// The URL and cache-key text ("480", "240x240").
    public var description: String { "" }
}

/// Tunables of the pipeline; every one has a default.
public struct PipelineConfiguration: Sendable {
    /// Folder of the disk cache of originals.
    public var cacheDirectory: String
    /// Local files may only be read inside this folder (file:// URLs elsewhere are refused).
    public var libraryRoot: String
    public init(cacheDirectory: String, libraryRoot: String) {
        self.cacheDirectory = cacheDirectory
        self.libraryRoot = libraryRoot
    }
}

/// An encoded image ready to send.
public struct RenderedImage: Sendable {
    public var bytes: [UInt8]
    public var contentType: String
    public var width: Int
    public var height: Int
    public init(bytes: [UInt8], contentType: String, width: Int, height: Int) {
        self.bytes = bytes
        self.contentType = contentType
        self.width = width
        self.height = height
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

/// Why a request could not be served; the web layer maps each case to a status.
public enum PipelineError: Error, Sendable, Equatable {
    /// The size is not in the allow-list (400).
    case sizeNotAllowed(String)
    /// The origin answered with an error status, closed early or sent too much (502).
    case originFailed(String)
    /// The origin did not answer in time (504).
    case originTimedOut(String)
    /// The bytes are not an image we can decode (415 for not an image, 422 for a broken one).
    case notAnImage(String)
    case undecodable(String)
    /// Too many renders queued (503 with Retry-After).
    case overloaded
    /// The source URL is not allowed (outside the library, unknown scheme) (404).
    case sourceNotAllowed(String)
}

/// Fetches originals once, renders sizes once, caches each in its own lane.
public final class ImagePipeline: Sendable {
    public let configuration: PipelineConfiguration

    public init(configuration: PipelineConfiguration) throws {
        self.configuration = configuration
    }

    /// The image at `url` (file:// inside the library root, or http(s)://) rendered to `spec`.
    public func render(url: String, spec: SizeSpec) throws(PipelineError) -> RenderedImage {
        throw .originFailed("not built yet")
    }

    /// The original bytes of `url`, fetched once and kept in the disk cache.
    public func original(url: String) throws(PipelineError) -> OriginalImage {
        throw .originFailed("not built yet")
    }

    /// Content version: the first 12 hex digits of SHA-256 of the original bytes. Local files
    /// are hashed once and remembered by path, size and mtime.
    public func version(url: String) throws(PipelineError) -> String {
        throw .originFailed("not built yet")
    }

    /// Header facts of the original (size, orientation, EXIF) for detail pages.
    public func info(url: String) throws(PipelineError) -> ImageInfo {
        throw .originFailed("not built yet")
    }

    /// Counters and histograms in Prometheus text format.
    public func metricsText() -> String { "" }
}
