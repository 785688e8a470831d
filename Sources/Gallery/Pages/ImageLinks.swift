import ImagePipeline

/// The `<img>` attributes for list thumbnails and the detail image: URL per size, srcset,
/// sizes and the pixel size the browser should reserve; with `webp`, also `webpSrcset`, the
/// same candidates as WebP URLs for a `<picture>`'s `<source type="image/webp">` (browsers
/// that show WebP take it, the others the JPEG `<img>`).
enum ImageLinks {
    /// Cover thumbnails: a 240×240 square at 1x, 480×480 at 2x, 720×720 at 3x.
    static let coverEdge = 240
    static let coverScales = [1, 2, 3]
    /// Detail image: longest edge 960 at 1x, then 1920 and 2560 for dense screens.
    static let detailEdges = [960, 1920, 2560]
    /// How wide a grid cell is drawn, for the browser's choice among the srcset widths.
    static let coverSizes = "(max-width: 540px) 46vw, 240px"

    /// The image URL; without a version (not known yet) it redirects to the versioned one.
    /// `prefix` is the catalog's `linkPrefix` ("/s/<token>" under a share link), so the URL of
    /// a shared photo is a capability and caches keyed by URL keep shares apart.
    static func url(id: String, spec: String, version: String?, format: RenderFormat = .standard, prefix: String = "") -> String {
        let path = "\(prefix)/img/\(id)/\(spec)\(format.urlSuffix)"
        return version.map { "\(path)?v=\($0)" } ?? path
    }

    /// srcset text of `candidates` (spec, width) in `format`.
    private static func srcset(_ candidates: [(spec: String, width: Int)], id: String, version: String?, format: RenderFormat,
                               prefix: String) -> String {
        candidates.map { "\(url(id: id, spec: $0.spec, version: version, format: format, prefix: prefix)) \($0.width)w" }
            .joined(separator: ", ")
    }

    static func coverSpec(scale: Int) -> String {
        "\(coverEdge * scale)x\(coverEdge * scale)"
    }

    /// Attributes of a square list thumbnail. With the displayed (oriented) source size known,
    /// srcset lists only the squares the source can give, each with its true width: a cover is
    /// never enlarged, so a source whose shorter side is under a square's edge renders that
    /// square at the shorter side (600×400 → 240x240 240w, 480x480 400w; 720x720 would be
    /// 400 px again and is left out). Without it, all three at their nominal widths.
    static func cover(id: String, version: String?, orientedWidth: Int? = nil, orientedHeight: Int? = nil,
                      webp: Bool = false, prefix: String = "") -> [String: TemplateValue] {
        var seen = Set<Int>()
        var candidates: [(spec: String, width: Int)] = []
        for scale in coverScales {
            let edge = coverEdge * scale
            var width = edge
            if let w = orientedWidth, let h = orientedHeight, w > 0, h > 0 {
                width = SizeSpec.cover(width: edge, height: edge).outputSize(width: w, height: h).width
            }
            guard seen.insert(width).inserted else { continue }
            candidates.append((coverSpec(scale: scale), width))
        }
        return [
            "src": .string(url(id: id, spec: coverSpec(scale: 1), version: version, prefix: prefix)),
            "srcset": .string(srcset(candidates, id: id, version: version, format: .standard, prefix: prefix)),
            "webpSrcset": webp ? .string(srcset(candidates, id: id, version: version, format: .webp, prefix: prefix)) : .null,
            "sizes": .string(coverSizes),
            "width": .int(coverEdge),
            "height": .int(coverEdge),
        ]
    }

    /// Attributes of the detail image. With the displayed (oriented) source size known, width
    /// and height are exact and srcset lists only sizes that differ (no upscaling); without it
    /// only the 1x size is offered.
    static func detail(id: String, version: String?, orientedWidth: Int?, orientedHeight: Int?,
                       webp: Bool = false, prefix: String = "") -> [String: TemplateValue] {
        let base = detailEdges[0]
        var fields: [String: TemplateValue] = ["src": .string(url(id: id, spec: String(base), version: version, prefix: prefix))]
        guard let w = orientedWidth, let h = orientedHeight, w > 0, h > 0 else {
            fields["width"] = .int(base)
            fields["height"] = .int(base * 2 / 3)
            fields["srcset"] = .null
            // One WebP candidate without a width: the browser takes it for the one JPEG size.
            fields["webpSrcset"] = webp ? .string(url(id: id, spec: String(base), version: version, format: .webp, prefix: prefix)) : .null
            return fields
        }
        let first = fitSize(width: w, height: h, maxEdge: base)
        var seen = Set<Int>()
        var candidates: [(spec: String, width: Int)] = []
        for edge in detailEdges {
            let size = fitSize(width: w, height: h, maxEdge: edge)
            guard seen.insert(size.width).inserted else { continue }
            candidates.append((String(edge), size.width))
        }
        fields["width"] = .int(first.width)
        fields["height"] = .int(first.height)
        fields["srcset"] = .string(srcset(candidates, id: id, version: version, format: .standard, prefix: prefix))
        fields["webpSrcset"] = webp ? .string(srcset(candidates, id: id, version: version, format: .webp, prefix: prefix)) : .null
        // The layout (gallery.css): one column below 900 px, else the image column is the page
        // minus its padding (48) and the facts column (300 + 28 gap); never wider than the 1x size.
        fields["sizes"] = .string("(max-width: 900px) min(\(first.width)px, calc(100vw - 48px)), min(\(first.width)px, calc(100vw - 376px))")
        return fields
    }

    /// The size a `fit` render produces: longest edge at most `maxEdge`, aspect kept, never
    /// enlarged, each side at least 1.
    static func fitSize(width: Int, height: Int, maxEdge: Int) -> (width: Int, height: Int) {
        SizeSpec.fit(maxEdge: maxEdge).outputSize(width: width, height: height)
    }
}
