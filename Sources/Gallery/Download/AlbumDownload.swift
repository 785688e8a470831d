import FastCGI
import Foundation
import ImagePipeline
import Synchronization

/// At most `limit` downloads stream at once in this process; each holds a worker thread for
/// as long as its client reads, so the rest of the threads keep answering pages and images.
final class DownloadSlots: Sendable {
    let limit: Int
    private let active = Atomic<Int>(0)

    init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a slot; false when all are taken.
    func acquire() -> Bool {
        var current = active.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = active.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func release() { active.subtract(1, ordering: .releasing) }
}

/// `/album/<id>/download` (`?sub=1` with the albums below it as folders): the album's
/// originals as a ZIP written while it is sent (see `ZipLayout` and `ZipStreamer`), with
/// `Content-Length`, a strong ETag and single byte ranges (`Range`, `If-Range`), so browsers
/// show progress and resume. Beyond `maxDownloads` at once: 503 with Retry-After.
extension GalleryApp {
    /// Seconds a client is asked to wait when every download slot is taken.
    static let downloadRetryAfter = 30

    func albumDownload(albumID: String, subalbums: Bool, catalog: Catalog, request: FastCGIRequest) -> FastCGIResponse {
        guard let album = catalog.albums[albumID] else { return errors.response(404) }
        let layout = ZipLayout(entries: ZipContents.entries(albumID: albumID, subalbums: subalbums, catalog: catalog, pipeline: pipeline))
        let etag = GalleryApp.zipETag(layout)
        let total = layout.totalLength
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/zip"),
            ("Content-Disposition", GalleryApp.attachment(fileName: ZipContents.folderName(album, catalog: catalog) + ".zip")),
            ("Accept-Ranges", "bytes"),
            ("ETag", etag),
            ("Cache-Control", "private, no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            // nginx passes the body on as it comes instead of spooling it to a temp file.
            ("X-Accel-Buffering", "no"),
        ]
        guard let reply = RangedReply(request: request, total: total, etag: etag, headers: headers) else {
            return RangedReply.unsatisfiable(total: total, etag: etag)
        }
        if request.method == "HEAD" { return reply.headOnly }
        guard downloads.acquire() else {
            return errors.response(503, message: "Too many downloads are running. Please try again in a minute.",
                                   extraHeaders: [("Retry-After", String(GalleryApp.downloadRetryAfter))])
        }
        let streamer = ZipStreamer(layout: layout, checksums: zipChecksums)
        let slots = downloads, log = self.log, name = album.id, part = reply.range
        return reply.response(produce: { send in
            do throws(ZipStreamer.Stop) {
                try streamer.write(part, send: send)
            } catch .clientGone {
                log("download \(name): client left")
            } catch {
                log("download \(name): stopped: \(error)")
            }
        }, finished: { slots.release() })
    }

    /// A strong validator of the archive's bytes: they follow from the names, sizes and times
    /// (and the files' contents, which the size and time stand for, as for any file server).
    static func zipETag(_ layout: ZipLayout) -> String {
        var hash = FNV1a()
        for entry in layout.entries {
            hash.add(bytes: entry.name)
            hash.add(UInt64(entry.size))
            hash.add(UInt64(bitPattern: Int64(entry.modified)))
        }
        hash.add(UInt64(layout.totalLength))
        return "\"zip-\(String(hash.value, radix: 16))\""
    }

    /// `attachment; filename="Trips.zip"; filename*=UTF-8''Trips.zip`.
    static func attachment(fileName: String) -> String {
        "attachment" + contentDisposition(fileName: fileName).dropFirst("inline".count)
    }
}
