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
        preview = parts.count > 1 ? StoredPlaceholder.hexBytes(parts[1]).flatMap(PlaceholderPreview.init(bytes:)) : nil
    }

    var text: String {
        guard let preview else { return colour }
        return colour + " " + preview.bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, digits.count <= 128 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let h = hexValue(digits[i]), let l = hexValue(digits[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}
