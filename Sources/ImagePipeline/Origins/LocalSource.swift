import Foundation
import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

/// file:// originals: confined to the library root, read whole with one read loop into a
/// pre-sized array (no Data → Array copy, so a 20 MB original costs 20 MB, not 40).
enum LocalSource {
    /// Identity of a file's content as far as stat can tell: a change of any part means the
    /// version must be computed again.
    struct Stamp: Hashable, Sendable {
        var path: String
        var size: Int
        var mtimeSeconds: Int
        var mtimeNanoseconds: Int
    }

    /// The real path of a file:// URL, which must resolve (symlinks and `..` included) to a
    /// regular file inside `root`.
    static func resolve(_ url: URL, root: String) throws(PipelineError) -> String {
        guard url.isFileURL else { throw .sourceNotAllowed("\(url.absoluteString) is not a file URL") }
        guard let realRoot = ImageFiles.realPath(root) else { throw .sourceNotAllowed("library root \(root) does not exist") }
        guard let real = ImageFiles.realPath(url.path) else { throw .sourceNotAllowed("\(url.path) does not exist") }
        let prefix = realRoot.hasSuffix("/") ? realRoot : realRoot + "/"
        guard real.hasPrefix(prefix) else { throw .sourceNotAllowed("\(url.path) is outside the library") }
        return real
    }

    static func stamp(_ path: String) throws(PipelineError) -> Stamp {
        var st = stat()
        guard stat(path, &st) == 0 else { throw .sourceNotAllowed("\(path): \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .sourceNotAllowed("\(path) is not a regular file") }
        return Stamp(path: path, size: Int(st.st_size), mtimeSeconds: Int(st.st_mtim.tv_sec), mtimeNanoseconds: Int(st.st_mtim.tv_nsec))
    }

    /// The whole file, refusing anything above `maxBytes`; opened through `LibraryFile`, so
    /// inside `root` when one is given.
    static func read(_ path: String, root: String?, maxBytes: Int) throws(PipelineError) -> [UInt8] {
        let file = try LibraryFile(path: path, root: root)
        guard let bytes = readAll(fd: file.fd, maxBytes: maxBytes) else {
            throw .originFailed("\(path): unreadable or larger than \(maxBytes) bytes")
        }
        return bytes
    }

    /// The file open for positioned reads when it is a movie, a TIFF or a camera raw (formats
    /// whose decode needs a small part of a large file), else nil. Such files are not bound by
    /// `maxOriginBytes`: they are never held whole (a movie may be gigabytes).
    static func openPositioned(_ path: String, root: String?) throws(PipelineError) -> (FileByteSource, ImageFormat)? {
        let opened = try LibraryFile(path: path, root: root)
        let fd = dup(opened.fd)
        guard fd >= 0 else { throw .originFailed("\(path): \(String(cString: strerror(errno)))") }
        let file = try FileByteSource(fd: fd)
        guard let head = try? file.read(offset: 0, count: min(ImageFormat.sniffBytes, file.size)),
              let format = ImageFormat.sniff(head), positionedFormats.contains(format) else { return nil }
        return (file, format)
    }

    /// Formats read with positioned reads instead of whole.
    static let positionedFormats: Set<ImageFormat> = [.video, .tiff, .raw]

    /// The content version of a file read in 1 MiB chunks (none of them kept).
    static func hash(_ file: FileByteSource, path: String) throws(PipelineError) -> String {
        let hasher = ContentHasher()
        var offset = 0
        while offset < file.size {
            let count = min(1 << 20, file.size - offset)
            guard let chunk = try? file.read(offset: offset, count: count) else {
                throw .originFailed("\(path): unreadable at \(offset)")
            }
            chunk.withUnsafeBytes { hasher.update($0) }
            offset += count
        }
        return ContentHasher.versionText(hasher.finalize())
    }

    /// The content version of a movie: the first 12 hex digits of SHA-256 over "movie", the
    /// file size (8 bytes, big-endian) and the bytes of its identifying ranges (the `moov` and
    /// the poster sample, `ImageCodec.identifyingRanges`). A page view costs a stat; a first
    /// look reads a few hundred KB instead of hashing gigabytes, and any edit to the samples
    /// changes the `moov`'s tables. A movie whose headers cannot be read (no `moov` yet, a
    /// damaged box) is versioned by its first 64 KiB instead, so it gets a version like any
    /// damaged still and its renders fail with the decoder's error.
    static func movieVersion(_ source: ByteSource, limits: DecodeLimits) throws(PipelineError) -> String {
        let ranges = (try? ImageCodec.identifyingRanges(source: source, limits: limits) ?? nil) ?? [0..<min(source.size, 64 << 10)]
        let hasher = ContentHasher()
        var head = Array("movie".utf8)
        for shift in stride(from: 56, through: 0, by: -8) { head.append(UInt8(truncatingIfNeeded: UInt64(source.size) >> UInt64(shift))) }
        head.withUnsafeBytes { hasher.update($0) }
        for range in ranges {
            let bytes = try Renderer.codec { try source.read(offset: range.lowerBound, count: range.count) }
            bytes.withUnsafeBytes { hasher.update($0) }
        }
        return ContentHasher.versionText(hasher.finalize())
    }

    /// Reads an open file to its end into an array sized by fstat; nil on error or when the
    /// file is larger than `maxBytes`.
    static func readAll(fd: Int32, maxBytes: Int) -> [UInt8]? {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 0, Int(st.st_size) <= maxBytes else { return nil }
        let size = Int(st.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let n = Glibc.read(fd, buffer.baseAddress! + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            failed = done != size
            count = done
        }
        return failed ? nil : bytes
    }

}

extension ImagePipeline {
    /// A whole file read into one pre-sized array (for command-line tools that render a file
    /// outside any library); throws for a missing, unreadable or larger than `maxBytes` file.
    /// Default limit 256 MiB.
    public static func readFile(_ path: String, maxBytes: Int = 256 << 20) throws(PipelineError) -> [UInt8] {
        try LocalSource.read(path, root: nil, maxBytes: maxBytes)
    }

    /// A file opened for positioned reads (`pread`), for tools that probe or render a movie
    /// without reading it whole (`ImageCodec.probe(source:)`, `Renderer.render(source:)`).
    public static func openFile(_ path: String) throws(PipelineError) -> ByteSource {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .sourceNotAllowed("\(path): \(String(cString: strerror(errno)))") }
        return try FileByteSource(fd: fd)
    }
}
