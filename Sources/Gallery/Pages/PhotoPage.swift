import FastCGI
import Foundation
import ImagePipeline

/// The detail page `/photo/<id>`: a larger image, its facts, previous/next and the original.
extension GalleryApp {
    func photoPage(itemID: String, catalog: Catalog) -> FastCGIResponse {
        guard let item = catalog.items[itemID] else { return errors.response(404) }
        let url = item.sourceURL
        let lookup: VersionLookup.Outcome
        var facts: ImageFacts?
        if let row = indexedRows([item])[item.id] {
            lookup = PhotoFacts(row, versionSuffix: pipeline.configuration.versionSuffix).lookup
            facts = row.facts
        } else {
            lookup = versions(of: [item])[item.id] ?? .failed
            // Facts need the original: read only once the version (and so the original) is at hand.
            if case .version = lookup { facts = try? pipeline.facts(url: url) }
        }

        let isMovie = ImageFiles.isMovie(name: item.fileName)
        // Facts without the movie's (from an index row written before they were kept): read its `moov`.
        if isMovie, facts?.video == nil, case .version = lookup, let read = try? pipeline.facts(url: url) { facts = read }

        // gallery.json's words first, then the file's (or its sidecar's), then the file name.
        let text = facts?.text ?? PhotoText()
        let title = item.givenTitle ?? text.title ?? item.title
        var context = chrome()
        context["pageTitle"] = .string(title)
        context["breadcrumbs"] = breadcrumbs(albumID: item.albumID, catalog: catalog, current: title)
        context["hasCrumbs"] = true
        var photo: [String: TemplateValue] = [
            "title": .string(title),
            "caption": .optional(item.caption ?? text.caption),
            "text": textView(text, prefix: catalog.linkPrefix),
            "fileName": .string(item.fileName),
            "originalURL": .string(catalog.linkPrefix + "/original/\(item.id)"),
        ]
        let webp = configuration.formats.contains(.webp)
        switch lookup {
        case .version(let version):
            photo["img"] = .object(ImageLinks.detail(id: item.id, version: version, orientedWidth: facts?.width,
                                                     orientedHeight: facts?.height, webp: webp, prefix: catalog.linkPrefix))
        case .pending:
            photo["img"] = .object(ImageLinks.detail(id: item.id, version: nil, orientedWidth: nil, orientedHeight: nil,
                                                     webp: webp, prefix: catalog.linkPrefix))
        case .failed:
            break
        }
        if isMovie { photo["video"] = .object(movie(photo: photo, facts: facts)) }
        // A motion photo (its facts name the movie inside it) plays its clip like a Live Photo.
        let isMotion = !isMovie && facts?.video != nil && item.relativePath != nil
        if item.companion(.live) != nil {
            photo["live"] = .string(catalog.linkPrefix + "/original/\(item.id)/live")
        } else if isMotion {
            photo["live"] = .string(catalog.linkPrefix + "/original/\(item.id)/motion")
            photo["motion"] = true
        }
        if let raw = item.companion(.raw) {
            photo["raw"] = ["url": .string(catalog.linkPrefix + "/original/\(item.id)/raw"), "name": .string(raw.name)]
        }
        // An animation plays on its page: the original GIF itself (nginx sends it), up to a
        // size a page can bear; a larger one shows its first frame and the link.
        if let format = facts?.format, GalleryApp.isAnimation(format), let size = item.fileSize, size <= GalleryApp.maxAnimationBytes {
            photo["animation"] = photo["originalURL"]
        }
        photo["facts"] = .list(factList(item: item, facts: facts, showLocation: catalog.showLocation))
        context["photo"] = .object(photo)
        let (previous, next) = catalog.neighbours(of: itemID)
        let prefix = catalog.linkPrefix
        context["previous"] = previous.map { ["url": .string(prefix + "/photo/\($0.id)"), "title": .string($0.title)] } ?? .null
        context["next"] = next.map { ["url": .string(prefix + "/photo/\($0.id)"), "title": .string($0.title)] } ?? .null
        context["homeURL"] = .string(prefix + "/")
        if let album = catalog.albums[item.albumID] {
            let position = (album.itemIDs.firstIndex(of: itemID) ?? 0) + 1
            context["position"] = .string("\(position) of \(album.itemIDs.count)")
            context["albumURL"] = .string(albumURL(album.id, catalog: catalog))
            context["viewer"] = viewerAttributes(albumID: album.id, catalog: catalog)
            context["index"] = .int(position - 1)
        }
        return HTTPResponses.html(200, templates.renderPage("photo", context: .object(context)))
    }

    /// The `<video>` of a movie's page: the original (nginx streams it, with Range) with the
    /// detail-size poster, and the codec string the page's script tests with `canPlayType`.
    private func movie(photo: [String: TemplateValue], facts: ImageFacts?) -> [String: TemplateValue] {
        var video: [String: TemplateValue] = ["src": photo["originalURL"] ?? .null, "type": .string("video/mp4")]
        if case .object(let img)? = photo["img"] {
            video["poster"] = img["src"] ?? .null
            video["width"] = img["width"] ?? .null
            video["height"] = img["height"] ?? .null
        }
        let codec = facts?.video?.codec
        video["codecTest"] = .string(GalleryApp.codecTest(codec) ?? "")
        video["codecName"] = .string(codec ?? "this")
        return video
    }

    /// Keywords and people as links to their searches (`/search?q=keyword:"…"`, under the
    /// share's prefix on a share link), the rating as stars, label, places, creator and
    /// copyright; `.null` when the file says none of these. Every value is escaped by the
    /// template (they are untrusted text).
    func textView(_ text: PhotoText, prefix: String) -> TemplateValue {
        func links(_ values: [String], field: String) -> TemplateValue {
            ["items": .list(values.map { ["name": .string($0), "url": .string(GalleryApp.searchURL(field: field, value: $0, prefix: prefix))] })]
        }
        var view: [String: TemplateValue] = [:]
        if !text.keywords.isEmpty { view["keywords"] = links(text.keywords, field: "keyword") }
        if !text.people.isEmpty { view["people"] = links(text.people, field: "person") }
        if let rating = text.rating {
            view["rating"] = rating < 0 ? ["stars": .string("Rejected"), "words": .string("Rejected")]
                : ["stars": .string(String(repeating: "★", count: rating) + String(repeating: "☆", count: 5 - rating)),
                   "words": .string("\(rating) of 5 stars")]
        }
        if let label = text.label { view["label"] = .string(label) }
        if !text.places.isEmpty { view["places"] = .string(text.places.joined(separator: ", ")) }
        if let creator = text.creator { view["creator"] = .string(creator) }
        if let copyright = text.copyright { view["copyright"] = .string(copyright) }
        return view.isEmpty ? .null : .object(view)
    }

    /// `/search?q=field:"value"` (percent-encoded; a quote inside the value is dropped, as
    /// the query language has no escape for it).
    static func searchURL(field: String, value: String, prefix: String) -> String {
        let query = field + ":\"" + value.replacingOccurrences(of: "\"", with: "") + "\""
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x7F)))
        allowed.insert(charactersIn: "-._~")
        return prefix + "/search?q=" + (query.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    }

    /// Largest GIF shown animated on its page (bytes): 16 MB.
    static let maxAnimationBytes = 16 << 20

    /// Whether a format description (`ImageFacts.format`) is an animation's: "GIF, 12 frames".
    static func isAnimation(_ format: String) -> Bool { format.hasPrefix("GIF, ") && format.hasSuffix(" frames") }

    /// The facts shown beside the photo. The GPS position is among them only when
    /// `showLocation` (`gallery.json`'s `show_location`) says so.
    private func factList(item: CatalogItem, facts: ImageFacts?, showLocation: Bool) -> [TemplateValue] {
        var list: [TemplateValue] = []
        func add(_ label: String, _ value: String, url: String? = nil) {
            list.append(["label": .string(label), "value": .string(value), "url": .optional(url)])
        }
        if let facts {
            add("Dimensions", "\(facts.width) × \(facts.height) px")
            let megapixels = Double(facts.pixelCount) / 1_000_000
            if megapixels >= 0.1 { add("Resolution", String(format: "%.1f megapixels", megapixels)) }
        }
        if let video = facts?.video {
            add(ImageFiles.isMovie(name: item.fileName) ? "Duration" : "Motion clip", video.durationText)
            var line = [video.codec]
            if let rate = video.frameRate { line.append(String(format: "%.4g fps", rate)) }
            if let hdr = video.hdr { line.append(hdr) }
            add("Video", line.joined(separator: " · "))
        }
        if let size = item.fileSize { add("File size", formatBytes(size)) }
        if let facts {
            add("Format", facts.format)
            if let colourSpace = facts.colourSpace { add("Colour space", colourSpace) }
            if let taken = facts.dateTaken { add("Taken", GalleryApp.readableExifDate(taken)) }
            let camera = GalleryApp.cameraName(make: facts.cameraMake, model: facts.cameraModel)
            if let line = ShotSummary.line(camera: camera, shot: facts.shot) { add("Camera", line) }
            if let lens = ShotSummary.lens(facts.shot) { add("Lens", lens) }
            if showLocation, let location = facts.location {
                add("Location", ShotSummary.coordinates(location), url: ShotSummary.mapURL(location))
            }
        }
        add("File", item.fileName)
        if let live = item.companion(.live) { add("Live Photo", live.name) }
        if let raw = item.companion(.raw) { add("Raw", raw.name + " (" + formatBytes(raw.stamp.size) + ")") }
        return list
    }

    /// "2020:02:19 12:34:56" → "2020-02-19 12:34"; anything else as written.
    static func readableExifDate(_ text: String) -> String {
        let chars = Array(text)
        guard chars.count >= 16, chars[4] == ":", chars[7] == ":", chars[10] == " " else { return text }
        return String(chars[0..<4]) + "-" + String(chars[5..<7]) + "-" + String(chars[8..<10]) + " " + String(chars[11..<16])
    }

    /// Make and model without the repetition cameras like ("Canon" + "Canon EOS 5D").
    static func cameraName(make: String?, model: String?) -> String? {
        switch (make, model) {
        case let (make?, model?):
            return model.lowercased().hasPrefix(make.lowercased()) ? model : make + " " + model
        case let (make?, nil): return make
        case let (nil, model?): return model
        default: return nil
        }
    }
}
