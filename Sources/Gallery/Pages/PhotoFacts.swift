import ImagePipeline

/// What a page needs to link a photo's sizes: its content version and, when known in time,
/// its displayed (oriented) size, so srcset can list only sizes the source can fill, with
/// their true widths.
struct PhotoFacts: Sendable, Equatable {
    var lookup: VersionLookup.Outcome
    var width: Int?
    var height: Int?

    var version: String? {
        if case .version(let v) = lookup { return v }
        return nil
    }
}

extension GalleryApp {
    /// Versions and sizes of `items` by id, within `configuration.pageLookupBudget`, like
    /// `versions(of:)`. The size costs one read of the original per process (the pipeline
    /// keeps the probed header), and nothing more when the version lookup reads it anyway;
    /// a size not known in time is nil and the page falls back to nominal widths.
    func photoFacts(of items: [CatalogItem]) -> [String: PhotoFacts] {
        guard !items.isEmpty else { return [:] }
        let pipeline = self.pipeline
        let known = items.map { pipeline.knownVersion(url: $0.sourceURL) }
        // The pool's lookups answer "<version> <width> <height>" (width 0 when the header
        // cannot be read but the version can).
        let answers = VersionLookup.shared.run(items.map(\.sourceURL), budget: configuration.pageLookupBudget) { url in
            let facts = try? pipeline.facts(url: url)
            guard let version = try? pipeline.version(url: url) else { return nil }
            return "\(version) \(facts?.width ?? 0) \(facts?.height ?? 0)"
        }
        var out: [String: PhotoFacts] = [:]
        for (i, item) in items.enumerated() {
            var facts = PhotoFacts(lookup: known[i].map(VersionLookup.Outcome.version) ?? .pending)
            switch answers[i] {
            case .version(let text):
                let parts = text.split(separator: " ")
                if parts.count == 3, let w = Int(parts[1]), let h = Int(parts[2]) {
                    facts.lookup = .version(String(parts[0]))
                    if w > 0 && h > 0 { facts.width = w; facts.height = h }
                }
            case .failed where known[i] == nil: facts.lookup = .failed
            case .failed, .pending: break
            }
            out[item.id] = facts
        }
        return out
    }
}
