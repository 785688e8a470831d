import ImageCodec
import Synchronization

/// The colour stage of a render: what the source's colour space is, how its pixels get to
/// sRGB (or Display P3 in `.wide` mode), and which profile the encoder embeds.
///
/// It runs at the output size, right after resampling (a matrix/TRC conversion of a 480 px
/// thumbnail is a fraction of a millisecond); only CMYK JPEGs with a profile are converted
/// inside the decoder, at the decode scale, because their ink samples never exist as a bitmap.
/// sRGB and untagged sources cost a cache lookup. A profile or chunk that cannot be used
/// leaves the pixels as decoded (what the gallery did before colour management) with a warning.
public struct ColourPlan: Sendable {
    /// The conversion, or nil when the pixels are sent as they are.
    public let transform: ColourTransform?
    /// Problems met (a broken profile), as log text.
    public private(set) var warnings: [String]

    /// What the JPEG decoder converts CMYK / YCCK through (nil for every other source).
    public var cmyk: ColourTransform? { transform?.convertsCMYK == true ? transform : nil }

    /// The profile the encoder embeds: nil for sRGB output.
    public var outputProfile: [UInt8]? { transform?.outputProfile }

    /// Converts `bitmap` in place unless the decoder already did (CMYK).
    public mutating func apply(to bitmap: inout Bitmap) {
        guard let transform, !transform.convertsCMYK else { return }
        do {
            try transform.apply(to: &bitmap)
        } catch {
            warnings.append("colour management skipped: \(error)")
        }
    }
}

/// Builds `ColourPlan`s, keeping built transforms in a small LRU cache so renders of photos
/// that share a profile (a camera's Adobe RGB, an iPhone's Display P3) build their tables once.
public enum ColourStage {
    /// Most cached outcomes (transforms, and profiles found unusable). A CMYK device link is
    /// about 0.5 MB, an RGB one 0.2 MB, a matrix/TRC transform 20 KB. 32 entries.
    public static let cacheEntries = 32

    private static let cache = Mutex(TransformCache())

    /// The plan for a source described by `info`, sent as `output`.
    public static func plan(for info: ImageInfo, output: ColourOutput) -> ColourPlan {
        guard let key = cacheKey(info, output) else { return ColourPlan(transform: nil, warnings: []) }
        if let known = cache.withLock({ $0.get(key) }) { return plan(known) }
        let outcome: TransformCache.Outcome
        do {
            outcome = .built(try ColourTransform.make(for: info, output: output))
        } catch {
            outcome = .failed("colour management skipped: \(error)")
        }
        cache.withLock { $0.put(key, outcome) }
        return plan(outcome)
    }

    private static func plan(_ outcome: TransformCache.Outcome) -> ColourPlan {
        switch outcome {
        case .built(let t): return ColourPlan(transform: t, warnings: [])
        case .failed(let w): return ColourPlan(transform: nil, warnings: [w])
        }
    }

    /// What decides the transform: the colour description and the kind of pixels. nil for an
    /// untagged source (nothing to look up). Profiles are keyed by their SHA-256, so the cache
    /// keeps no profile bytes.
    static func cacheKey(_ info: ImageInfo, _ output: ColourOutput) -> String? {
        let what: String
        if let cp = info.codePoints {
            what = "cicp \(cp.primaries) \(cp.transfer)"
        } else if let icc = info.iccProfile {
            what = "icc " + SHA256.hex(icc)
        } else if info.srgbIntent != nil {
            return nil
        } else if info.chromaticities != nil || info.gamma != nil {
            what = "png \(String(describing: info.chromaticities)) \(String(describing: info.gamma))"
        } else {
            return nil
        }
        return "\(output.rawValue) \(info.colorSpace) \(what)"
    }

    /// Drops every cached transform (tests, benchmarks).
    public static func clearCache() { cache.withLock { $0 = TransformCache() } }
}

/// Least-recently-used outcomes by key, at most `ColourStage.cacheEntries`.
struct TransformCache: ~Copyable {
    enum Outcome: Sendable {
        case built(ColourTransform?)
        case failed(String)
    }

    private var entries: [String: (outcome: Outcome, used: Int)] = [:]
    private var clock = 0

    mutating func get(_ key: String) -> Outcome? {
        guard let e = entries[key] else { return nil }
        clock += 1
        entries[key] = (e.outcome, clock)
        return e.outcome
    }

    mutating func put(_ key: String, _ outcome: Outcome) {
        clock += 1
        if entries[key] == nil, entries.count >= ColourStage.cacheEntries,
           let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
            entries[oldest] = nil
        }
        entries[key] = (outcome, clock)
    }
}
