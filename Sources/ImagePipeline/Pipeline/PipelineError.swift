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
    /// Decoding would pass the decode limits (pixels, or the memory `maxMemoryBytes` allows at
    /// the scale this size needs) (422). Refused before allocating; the original is intact.
    case tooLarge(String)
    /// Too many renders queued, or the decode memory budget did not free up in time (503 with
    /// Retry-After).
    case overloaded
    /// The source URL is not allowed (outside the library, unknown scheme) (404).
    case sourceNotAllowed(String)

    /// The case without its detail: a stable name for metrics, logs and the cross-process
    /// lock file (`EntryLock`), where an error has to survive being written down and read back.
    public enum Kind: String, Sendable, CaseIterable {
        case sizeNotAllowed = "size_not_allowed"
        case originFailed = "origin_failed"
        case originTimedOut = "origin_timed_out"
        case notAnImage = "not_an_image"
        case undecodable = "undecodable"
        case tooLarge = "too_large"
        case overloaded = "overloaded"
        case sourceNotAllowed = "source_not_allowed"
    }

    /// The error of `kind` with `detail` (ignored by `.overloaded`, which has none).
    public init(kind: Kind, detail: String) {
        switch kind {
        case .sizeNotAllowed: self = .sizeNotAllowed(detail)
        case .originFailed: self = .originFailed(detail)
        case .originTimedOut: self = .originTimedOut(detail)
        case .notAnImage: self = .notAnImage(detail)
        case .undecodable: self = .undecodable(detail)
        case .tooLarge: self = .tooLarge(detail)
        case .overloaded: self = .overloaded
        case .sourceNotAllowed: self = .sourceNotAllowed(detail)
        }
    }

    public var kind: Kind {
        switch self {
        case .sizeNotAllowed: return .sizeNotAllowed
        case .originFailed: return .originFailed
        case .originTimedOut: return .originTimedOut
        case .notAnImage: return .notAnImage
        case .undecodable: return .undecodable
        case .tooLarge: return .tooLarge
        case .overloaded: return .overloaded
        case .sourceNotAllowed: return .sourceNotAllowed
        }
    }

    /// The detail text; empty for `.overloaded`.
    public var detail: String {
        switch self {
        case .sizeNotAllowed(let s), .originFailed(let s), .originTimedOut(let s), .notAnImage(let s),
             .undecodable(let s), .tooLarge(let s), .sourceNotAllowed(let s):
            return s
        case .overloaded: return ""
        }
    }

    /// Whether the bytes themselves were refused by the decoder, which for an original read
    /// from the disk cache means the cached copy may be damaged.
    var blamesTheBytes: Bool {
        switch self {
        case .notAnImage, .undecodable: return true
        default: return false
        }
    }
}

extension PipelineError: CustomStringConvertible {
    /// One log line: the kind and the detail ("origin failed: http://…: status 404").
    public var description: String {
        switch self {
        case .sizeNotAllowed(let s): return "size not allowed: \(s)"
        case .originFailed(let s): return "origin failed: \(s)"
        case .originTimedOut(let s): return "origin timed out: \(s)"
        case .notAnImage(let s): return "not an image: \(s)"
        case .undecodable(let s): return "undecodable: \(s)"
        case .tooLarge(let s): return "too large: \(s)"
        case .overloaded: return "overloaded: too many renders queued, or no decode memory free in time"
        case .sourceNotAllowed(let s): return "source not allowed: \(s)"
        }
    }
}
