import ImagePipeline

/// The text the library index keeps in `photos.placeholder`: a cover render's mean colour
/// ("#rrggbb"), then, after a space, its blurred preview (`PlaceholderPreview.bytes`) in hex.
/// One column for both keeps the schema unchanged; rows written before previews existed hold
/// the colour alone and gain the preview at the next cover render.
struct StoredPlaceholder: Equatable {
    var colour: String
    var preview: PlaceholderPreview?

    init(colour: String, preview: PlaceholderPreview?) {
        self.colour = colour
        self.preview = preview
    }

    /// Parses the column; nil for text that is not "#rrggbb" optionally followed by a preview
    /// (a preview that does not decode is dropped, the colour kept).
    init?(text: String) {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, first.utf8.count == 7, first.hasPrefix("#") else { return nil }
        colour = String(first)
        preview = parts.count > 1 ? Hex.decode(parts[1], maxBytes: 64).flatMap(PlaceholderPreview.init(bytes:)) : nil
    }

    var text: String {
        guard let preview else { return colour }
        return colour + " " + Hex.encode(preview.bytes)
    }
}
