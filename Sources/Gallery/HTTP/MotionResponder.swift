import FastCGI
import ImagePipeline

/// `/original/<id>/motion`: the movie inside a motion photo, exactly its bytes, as
/// `video/mp4` with single byte ranges (206, 416, `If-Range`).
///
/// nginx cannot send a byte range of a file through `X-Accel-Redirect`, so the app streams the
/// movie with positioned reads of the still (64 KiB at a time: memory stays bounded whatever
/// the clip's size). It asks nginx to buffer the answer (`X-Accel-Buffering: yes`), so a slow
/// client holds nginx's buffers, not an app thread. A copy of each movie in the cache (sent by
/// nginx) would save the app's reads but duplicate every clip on disk and need its own
/// invalidation; clips of a few megabytes stream in milliseconds (docs/video.md).
extension GalleryApp {
    /// Bytes read and sent per step.
    static let motionChunkBytes = 64 << 10

    func motionOriginal(itemID: String, catalog: Catalog, request: FastCGIRequest) -> FastCGIResponse {
        guard let item = catalog.items[itemID], item.relativePath != nil, !ImageFiles.isMovie(name: item.fileName) else {
            return errors.response(404)
        }
        // The index row (file unchanged since) already says whether there is a movie: a still
        // without one is refused without reading it.
        if let row = indexedRows([item])[item.id], row.facts?.video == nil { return errors.response(404) }
        let file: MotionMovieFile?
        do { file = try pipeline.motionMovie(url: item.sourceURL) } catch { return failure(error, item: item) }
        guard let file else { return errors.response(404) }
        let total = file.length
        let stamp = file.stamp
        let etag = "\"motion-\(String(stamp.size, radix: 16))-\(String(stamp.mtimeSeconds, radix: 16))-"
            + "\(String(stamp.mtimeNanoseconds, radix: 16))-\(String(file.movie.range.lowerBound, radix: 16))\""
        let base = item.fileName.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "video/mp4"),
            ("Content-Disposition", GalleryApp.contentDisposition(fileName: (base.isEmpty ? item.fileName : base) + ".mp4")),
            ("Accept-Ranges", "bytes"),
            ("ETag", etag),
            ("Last-Modified", HTTPResponses.httpDate(file.modified)),
            ("Cache-Control", "public, max-age=3600"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Accel-Buffering", "yes"),
        ]
        guard let reply = RangedReply(request: request, total: total, etag: etag, headers: headers) else {
            return RangedReply.unsatisfiable(total: total, etag: etag)
        }
        if request.method == "HEAD" { return reply.headOnly }
        let log = self.log, id = item.id, part = reply.range
        return reply.response(produce: { send in
            var offset = part.lowerBound
            while offset < part.upperBound {
                let count = min(GalleryApp.motionChunkBytes, part.upperBound - offset)
                guard let bytes = try? file.read(offset: offset, count: count) else {
                    log("motion \(id): the still could not be read at \(offset)")
                    return
                }
                guard bytes.withUnsafeBytes(send) else { return }
                offset += count
            }
        })
    }
}
