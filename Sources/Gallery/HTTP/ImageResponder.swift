import FastCGI
import Foundation
import ImagePipeline

/// `/img/<id>/<spec>[.webp]?v=<version>` and `/original/<id>`: bytes from the pipeline with
/// caching headers. URLs carry the format and the content version, so a 200 is immutable and
/// needs no `Vary`; a missing or stale version (a local file edited, a remote original
/// replaced by revalidation) is redirected to the current URL. A format this gallery does not
/// serve (`--formats`) is 404.
extension GalleryApp {
    static let immutable = "public, max-age=31536000, immutable"

    func image(itemID: String, spec: SizeSpec, format: RenderFormat, requestedVersion: String?, catalog: Catalog,
               request: FastCGIRequest) -> FastCGIResponse {
        guard let item = catalog.items[itemID], configuration.formats.contains(format) else { return errors.response(404) }
        let prefix = catalog.linkPrefix
        let version: String
        // The index's version (file unchanged since) spares the pipeline hashing the file again.
        let row = indexedRows([item])[item.id]
        if let row, row.failure == nil {
            pipeline.rememberVersion(url: item.sourceURL, version: row.version, stamp: row.stamp)
        }
        do {
            try pipeline.validate(spec)
            version = try pipeline.version(url: item.sourceURL)
        } catch {
            return failure(error, item: item)
        }
        guard requestedVersion == version else {
            return HTTPResponses.redirect(to: ImageLinks.url(id: item.id, spec: spec.description, version: version, format: format, prefix: prefix))
        }
        let etag = ImagePipeline.etag(version: version, spec: spec, format: format)
        var headers: [(name: String, value: String)] = [("ETag", etag), ("Cache-Control", GalleryApp.immutable),
                                                        ("X-Content-Type-Options", "nosniff")]
        if let modified = item.modified { headers.append(("Last-Modified", HTTPResponses.httpDate(modified))) }
        if GalleryApp.matches(ifNoneMatch: request.header("If-None-Match"), etag: etag) {
            return FastCGIResponse(status: 304, headers: headers)
        }
        let rendered: RenderedImage
        do { rendered = try pipeline.render(url: item.sourceURL, spec: spec, format: format) } catch { return failure(error, item: item) }
        if !rendered.version.isEmpty, rendered.version != version {
            // A revalidation replaced the remote original between the version check and the
            // render: these pixels belong to the new version's URL, not to this immutable one.
            return HTTPResponses.redirect(to: ImageLinks.url(id: item.id, spec: spec.description, version: rendered.version,
                                                             format: format, prefix: prefix))
        }
        // Cover sizes ("240x240") give the placeholder pages paint: kept in the index once per version.
        // The preview is stored beside the colour (`StoredPlaceholder`), so pages paint it after a restart too.
        if let index, let row, let colour = rendered.averageColour, let rel = item.relativePath, spec.description.contains("x") {
            let stored = row.placeholder.flatMap(StoredPlaceholder.init(text:))
            if stored == nil || (stored?.preview == nil && rendered.preview != nil) {
                index.notePlaceholder(relativePath: rel, version: rendered.version,
                                      placeholder: StoredPlaceholder(colour: colour, preview: rendered.preview).text)
            }
        }
        return FastCGIResponse(status: 200, headers: [("Content-Type", rendered.contentType)] + headers, body: rendered.bytes)
    }

    func original(itemID: String, catalog: Catalog, request: FastCGIRequest) -> FastCGIResponse {
        guard let item = catalog.items[itemID] else { return errors.response(404) }
        if let prefix = configuration.originalsRedirect, item.relativePath != nil {
            return redirectedOriginal(url: item.sourceURL, fileName: item.fileName, item: item, prefix: prefix)
        }
        let original: OriginalImage
        do { original = try pipeline.original(url: item.sourceURL) } catch { return failure(error, item: item) }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", GalleryApp.servedType(fileName: item.fileName, sniffed: original.contentType)),
            ("Content-Disposition", GalleryApp.contentDisposition(fileName: item.fileName)),
            ("Cache-Control", "public, max-age=3600"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        if let modified = item.modified { headers.append(("Last-Modified", HTTPResponses.httpDate(modified))) }
        return FastCGIResponse(status: 200, headers: headers, body: original.bytes)
    }

    /// A library original sent by nginx (`X-Accel-Redirect` to the internal location
    /// `prefix`, which aliases the library's real root): the app authorises and names the
    /// file, nginx streams it with Range support and sendfile. The headers here are the ones
    /// nginx keeps or the location repeats (see gallery-locations.conf.in).
    private func redirectedOriginal(url: String, fileName: String, item: CatalogItem, prefix: String) -> FastCGIResponse {
        let file: LocalOriginal?
        do { file = try pipeline.localOriginal(url: url) } catch { return failure(error, item: item) }
        guard let file else { return errors.response(404) }
        let target = prefix + file.relativePath.split(separator: "/", omittingEmptySubsequences: false)
            .map { Self.percentEncoded($0) }.joined(separator: "/")
        return FastCGIResponse(status: 200, headers: [
            ("Content-Type", GalleryApp.servedType(fileName: fileName, sniffed: file.contentType)),
            ("Content-Disposition", GalleryApp.contentDisposition(fileName: fileName)),
            ("Cache-Control", "public, max-age=3600"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Accel-Redirect", target),
        ])
    }

    /// An item's companion file (a Live Photo's movie, a raw original), sent by nginx like an
    /// original; without nginx in front, by the app.
    func companionOriginal(itemID: String, role: Companion.Role, catalog: Catalog) -> FastCGIResponse {
        guard let item = catalog.items[itemID], let companion = item.companion(role), let url = item.companionURL(companion) else {
            return errors.response(404)
        }
        if let prefix = configuration.originalsRedirect {
            return redirectedOriginal(url: url, fileName: companion.name, item: item, prefix: prefix)
        }
        let original: OriginalImage
        do { original = try pipeline.original(url: url) } catch { return failure(error, item: item) }
        return FastCGIResponse(status: 200, headers: [
            ("Content-Type", GalleryApp.servedType(fileName: companion.name, sniffed: original.contentType)),
            ("Content-Disposition", GalleryApp.contentDisposition(fileName: companion.name)),
            ("Cache-Control", "public, max-age=3600"),
            ("X-Content-Type-Options", "nosniff"),
        ], body: original.bytes)
    }

    /// The Content-Type an original is sent with: the sniffed type, except for movies, whose
    /// bytes look alike (ISO BMFF) and whose container the name tells: `.mov` is
    /// `video/quicktime`, `.m4v` `video/x-m4v`, `.3gp` `video/3gpp`. Pages still name
    /// `video/mp4` in `<source type>`: browsers answer `canPlayType` for it, not for QuickTime.
    static func servedType(fileName: String, sniffed: String) -> String {
        guard sniffed.hasPrefix("video/") else { return sniffed }
        let lower = fileName.lowercased()
        if lower.hasSuffix(".mov") { return "video/quicktime" }
        if lower.hasSuffix(".m4v") { return "video/x-m4v" }
        if lower.hasSuffix(".3gp") { return "video/3gpp" }
        return sniffed
    }

    /// A path segment with every byte but RFC 3986's unreserved ones percent-encoded: nginx
    /// decodes the X-Accel-Redirect URI once, so any name (spaces, `?`, `#`, `%`) arrives whole.
    static func percentEncoded(_ segment: Substring) -> String {
        var out = ""
        for b in segment.utf8 {
            let unreserved = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
            if unreserved { out.unicodeScalars.append(Unicode.Scalar(b)) } else { out += Hex.percentEscape(b) }
        }
        return out
    }

    /// Maps a pipeline failure to its status and error page.
    func failure(_ error: PipelineError, item: CatalogItem) -> FastCGIResponse {
        switch error {
        case .sizeNotAllowed: return sizeRefused()
        case .sourceNotAllowed: return errors.response(404)
        case .notAnImage: return errors.response(415)
        case .undecodable(let why), .tooLarge(let why):
            // Names the cause, e.g. a decode refused by `--decode-max-bytes` before allocating.
            log("img: \(item.id): \(error.kind.rawValue): \(why)")
            return errors.response(422)
        case .originFailed(let why):
            log("img: \(item.id): origin failed: \(why)")
            return errors.response(502)
        case .originTimedOut:
            return errors.response(504)
        case .overloaded:
            return errors.response(503, extraHeaders: [("Retry-After", "2")])
        }
    }

    /// 400 for an image size this gallery does not render.
    func sizeRefused() -> FastCGIResponse {
        errors.response(400, message: "That size is not one this gallery renders.")
    }

    /// Whether an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for GET).
    static func matches(ifNoneMatch header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            if tag == bare { return true }
        }
        return false
    }

    /// `inline; filename="IMG_1.jpg"; filename*=UTF-8''IMG_1.jpg`, safe for any file name.
    static func contentDisposition(fileName: String) -> String {
        let ascii = String(fileName.unicodeScalars.map { s -> Character in
            s.isASCII && s.value >= 0x20 && s != "\"" && s != "\\" && s.value != 0x7f ? Character(s) : "_"
        })
        var encoded = ""
        for b in fileName.utf8 {
            let c = Character(Unicode.Scalar(b))
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "-._~".contains(c) {
                encoded.append(c)
            } else {
                encoded += Hex.percentEscape(b)
            }
        }
        return "inline; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
