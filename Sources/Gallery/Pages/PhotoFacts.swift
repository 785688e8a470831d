import ImagePipeline

/// What a page needs to link a photo's sizes: its content version and, when known in time,
/// its displayed (oriented) size, so srcset can list only sizes the source can fill, with
/// their true widths; and the placeholder painted while it loads.
struct PhotoFacts: Sendable, Equatable {
    var lookup: VersionLookup.Outcome
    var width: Int?
    var height: Int?
    /// "#rrggbb" from the library index (a cover render's mean colour), when it has one.
    var placeholder: String?
    /// The blurred preview kept in the index with the colour, when it has one.
    var preview: PlaceholderPreview?
    /// The format as the index describes it ("GIF, 12 frames" for an animation), when known.
    var format: String?
    /// A movie's length as a tile shows it ("0:07"), or a motion photo's clip's; from the
    /// index, nil when it has none.
    var duration: String?
    /// A movie's (or motion photo's clip's) codec ("HEVC", "H.264"), from the index.
    var codec: String?
    /// The caption written into the file or its sidecar, from the index (album pages show it
    /// under the thumbnail when `gallery.json` asks for captions).
    var caption: String?

    /// Whether the photo is an animation (a GIF of more than one frame).
    var isAnimated: Bool { format.map(GalleryApp.isAnimation) ?? false }

    var version: String? {
        if case .version(let v) = lookup { return v }
        return nil
    }

    init(lookup: VersionLookup.Outcome, width: Int? = nil, height: Int? = nil, placeholder: String? = nil) {
        self.lookup = lookup
        self.width = width
        self.height = height
        self.placeholder = placeholder
    }

    /// The facts of an index row (one whose stamp matches the catalog's). The index keeps the
    /// content version; `versionSuffix` is the pipeline's colour mode ("-p3" in wide mode), so
    /// links match what the pipeline renders and a mode switch never leaves stale links.
    init(_ row: IndexedPhoto, versionSuffix: String) {
        lookup = row.failure == nil ? .version(row.version + versionSuffix) : .failed
        width = row.facts?.width
        height = row.facts?.height
        let stored = row.placeholder.flatMap(StoredPlaceholder.init(text:))
        placeholder = stored?.colour
        preview = stored?.preview
        format = row.facts?.format
        duration = row.facts?.video?.durationText
        codec = row.facts?.video?.codec
        caption = row.facts?.text.caption
    }
}

extension GalleryApp {
    /// Versions and sizes of `items` by id. Photos the library index knows unchanged (same
    /// stamp as the latest scan) are answered from it with one query each and nothing read;
    /// the rest (new files the indexer has not reached, remote items, no index) are looked up
    /// within `configuration.pageLookupBudget` like `versions(of:)`: the size costs one read of
    /// the original per process (the pipeline keeps the probed header), and nothing more when
    /// the version lookup reads it anyway; a size not known in time is nil and the page falls
    /// back to nominal widths.
    func photoFacts(of items: [CatalogItem]) -> [String: PhotoFacts] {
        guard !items.isEmpty else { return [:] }
        var out: [String: PhotoFacts] = [:]
        let rows = indexedRows(items)
        let rest = items.filter { item in
            guard let row = rows[item.id] else { return true }
            out[item.id] = PhotoFacts(row, versionSuffix: self.pipeline.configuration.versionSuffix)
            return false
        }
        guard !rest.isEmpty else { return out }
        let pipeline = self.pipeline
        let known = rest.map { pipeline.knownVersion(url: $0.sourceURL) }
        // The pool's lookups answer "<version> <width> <height>" (width 0 when the header
        // cannot be read but the version can).
        let answers = VersionLookup.shared.run(rest.map(\.sourceURL), budget: configuration.pageLookupBudget) { url in
            let facts = try? pipeline.facts(url: url)
            guard let version = try? pipeline.version(url: url) else { return nil }
            return "\(version) \(facts?.width ?? 0) \(facts?.height ?? 0)"
        }
        for (i, item) in rest.enumerated() {
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

    /// The index rows of those `items` whose file is unchanged since it was indexed (the
    /// row's stamp and its sidecar's are the ones the latest scan saw), by item id.
    func indexedRows(_ items: [CatalogItem]) -> [String: IndexedPhoto] {
        guard let index else { return [:] }
        let rows = index.photos(items.compactMap(\.relativePath))
        var out: [String: IndexedPhoto] = [:]
        for item in items {
            if let rel = item.relativePath, let row = rows[rel], row.stamp == item.stamp, row.sidecar == item.sidecar?.stamp {
                out[item.id] = row
            }
        }
        return out
    }
}
