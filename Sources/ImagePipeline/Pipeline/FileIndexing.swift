import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

/// What the library index keeps about one local original: its content version, header facts
/// and the stat stamp they belong to.
public struct IndexedFile: Sendable, Equatable {
    /// The stamp read before hashing (equal to the one after, or the file is refused as changing).
    public var stamp: FileStamp
    /// The same text `ImagePipeline.version(url:)` answers for these bytes.
    public var version: String
    /// Header facts; nil when the header cannot be read (the file still has a version, and
    /// its renders fail as they would without the index).
    public var facts: ImageFacts?
}

/// Identity of a file's content as far as stat can tell; a change of any part means its
/// version and facts must be read again.
public struct FileStamp: Sendable, Hashable {
    public var size: Int
    public var mtimeSeconds: Int
    public var mtimeNanoseconds: Int
    public var inode: UInt64

    public init(size: Int, mtimeSeconds: Int, mtimeNanoseconds: Int, inode: UInt64) {
        self.size = size
        self.mtimeSeconds = mtimeSeconds
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
    }

    init(_ st: stat) {
        self.init(size: Int(st.st_size), mtimeSeconds: Int(st.st_mtim.tv_sec), mtimeNanoseconds: Int(st.st_mtim.tv_nsec),
                  inode: UInt64(st.st_ino))
    }

    /// The stamp of `path` (symlinks followed), or nil when it is not a readable regular file.
    public static func of(path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(st)
    }
}

/// Reading a local original for the index: the file streams through one fixed buffer into
/// the hasher (a 25 MB camera photo never sits in memory whole), and the header facts come
/// from the first buffer when it holds the whole header (JPEG: everything before the scan;
/// any file that fits). Only when the first buffer is not enough (a HEIF or WebP whose EXIF
/// sits after the pixels) is the file read whole
/// once more for the probe, as a render would read it.
public enum FileIndexing {
    /// Bytes read per `read(2)` and kept for the header probe. 1 MiB.
    public static let bufferBytes = 1 << 20

    /// The version and facts of the file at `path` (an absolute path). Throws `.sourceNotAllowed`
    /// when it is missing or not a regular file, `.notAnImage` when its first bytes are no
    /// format we read, `.originFailed` when it is larger than `maxBytes`, unreadable, or changed
    /// while it was read.
    /// `root`: the library folder the file must lie in (`LibraryFile`).
    public static func read(path: String, root: String? = nil, maxBytes: Int = 64 << 20,
                            limits: DecodeLimits = .default) throws(PipelineError) -> IndexedFile {
        let file = try LibraryFile(path: path, root: root)
        let fd = file.fd
        let before = FileStamp(file.status)
        if let movie = try movie(fd: fd, path: path, stamp: before, limits: limits) { return movie }
        // TIFFs and raws are read with positioned reads when rendered, never whole: the size
        // limit (which bounds what a render holds) does not apply to them.
        var peek = [UInt8](repeating: 0, count: 16)
        let peeked = peek.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, 16, 0) }
        let positioned = peeked > 0 && [ImageFormat.tiff, .raw].contains(ImageFormat.sniff(peek[0..<peeked]))
        let limit = positioned ? Int.max : maxBytes
        guard before.size <= limit else { throw .originFailed("\(path): larger than \(maxBytes) bytes") }

        let hasher = ContentHasher()
        var head: [UInt8] = []
        var total = 0
        // A JPEG or HEIF still may carry a motion photo's movie: each chunk is tested for an
        // `ftyp` (and the bytes across each chunk boundary); only a hit pays for the real search.
        var still = false, mayHoldMovie = false
        var seam: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress!, bufferBytes)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .originFailed("\(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(chunk)
            if total == 0 { still = ImageFormat.sniff(chunk).map(MotionMovies.stillFormats.contains) ?? false }
            if still && !mayHoldMovie {
                seam += chunk.prefix(3)
                mayHoldMovie = seam.withUnsafeBytes { MotionMovies.mayHoldMovie($0) }
                    || MotionMovies.mayHoldMovie(chunk, skip: total == 0 ? 8 : 0)
                seam = Array(chunk.suffix(3))
            }
            if head.count < bufferBytes { head.append(contentsOf: chunk.prefix(bufferBytes - head.count)) }
            total += n
            guard total <= limit else { throw .originFailed("\(path): larger than \(maxBytes) bytes") }
        }
        var after = stat()
        guard fstat(fd, &after) == 0, FileStamp(after) == before, total == before.size else {
            throw .originFailed("\(path) changed while it was read")
        }
        guard let format = ImageFormat.sniff(head) else { throw .notAnImage("\(path) is not an image format we read") }
        let version = ContentHasher.versionText(hasher.finalize())
        var facts = probe(head: head, whole: total == head.count, format: format, path: path, root: root, maxBytes: maxBytes, limits: limits)
        if mayHoldMovie, facts != nil, let movie = motionMovie(fd: fd, limits: limits) { facts?.video = movie.video }
        return IndexedFile(stamp: before, version: version, facts: facts)
    }

    /// The motion photo movie in the open still `fd`, read again whole (it was only hashed).
    private static func motionMovie(fd: Int32, limits: DecodeLimits) -> MotionMovie? {
        let copy = dup(fd)
        guard copy >= 0, let source = try? FileByteSource(fd: copy) else { return nil }
        return MotionMovies.find(in: source, limits: limits)
    }

    /// A movie's version and facts from its `moov` and poster sample, read with positioned
    /// reads (`LocalSource.movieVersion`): no size bound, nothing hashed whole. nil when the
    /// file is not a movie.
    private static func movie(fd: Int32, path: String, stamp: FileStamp, limits: DecodeLimits) throws(PipelineError) -> IndexedFile? {
        let copy = dup(fd)
        guard copy >= 0 else { throw .originFailed("\(path): \(String(cString: strerror(errno)))") }
        let source = try FileByteSource(fd: copy)
        guard let head = try? source.read(offset: 0, count: min(ImageFormat.sniffBytes, source.size)),
              ImageFormat.sniff(head) == .video else { return nil }
        let version = try LocalSource.movieVersion(source, limits: limits)
        let facts = (try? ImageCodec.probe(source: source, limits: limits)).map(ImageFacts.init)
        var after = stat()
        guard fstat(fd, &after) == 0, FileStamp(after) == stamp else { throw .originFailed("\(path) changed while it was read") }
        return IndexedFile(stamp: stamp, version: version, facts: facts)
    }

    private static func probe(head: [UInt8], whole: Bool, format: ImageFormat, path: String, root: String?, maxBytes: Int,
                              limits: DecodeLimits) -> ImageFacts? {
        if whole || format == .jpeg, let info = try? ImageCodec.probe(head, limits: limits) {
            return ImageFacts(info)
        }
        // TIFFs and raws: their IFDs (and a raw's preview header) through positioned reads.
        if format == .tiff || format == .raw {
            guard let (file, _) = try? LocalSource.openPositioned(path, root: root),
                  let info = try? ImageCodec.probe(source: file, limits: limits) else { return nil }
            return ImageFacts(info)
        }
        // A JPEG header is all before the first scan: one the first megabyte cannot describe
        // is damaged, and reading the rest (up to `maxBytes`, on several indexing threads at
        // once) would only grow the heap for nothing.
        guard !whole, format != .jpeg, let bytes = try? LocalSource.read(path, root: root, maxBytes: maxBytes),
              let info = try? ImageCodec.probe(bytes, limits: limits) else { return nil }
        return ImageFacts(info)
    }
}

/// A sidecar read for the index: its stamp and what it says.
public struct SidecarText: Sendable, Equatable {
    public var stamp: FileStamp
    public var text: PhotoText

    public init(stamp: FileStamp, text: PhotoText) {
        self.stamp = stamp
        self.text = text
    }
}

extension FileIndexing {
    /// Largest sidecar read: 4 MiB (Lightroom's run to a few KB; darktable's history may
    /// reach a few hundred).
    public static let maxSidecarBytes = 4 << 20

    /// The XMP sidecar at `path` (inside `root`, opened like an original by `LibraryFile`):
    /// its stamp and text. Throws `.sourceNotAllowed` when it is missing or outside the
    /// library, `.originFailed` when it is larger than `maxSidecarBytes`, unreadable or
    /// changed while read. XML that breaks the reader's rules (a DTD, an entity, a limit)
    /// gives empty text with the stamp, so the row is not read again until the file changes.
    public static func readSidecar(path: String, root: String?) throws(PipelineError) -> SidecarText {
        let file = try LibraryFile(path: path, root: root)
        let before = FileStamp(file.status)
        guard before.size <= maxSidecarBytes else { throw .originFailed("\(path): larger than \(maxSidecarBytes) bytes") }
        var bytes = [UInt8](repeating: 0, count: before.size)
        var total = 0
        while total < before.size {
            let n = bytes.withUnsafeMutableBytes { pread(file.fd, $0.baseAddress! + total, before.size - total, off_t(total)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .originFailed("\(path): read failed") }
            total += n
        }
        var after = stat()
        guard fstat(file.fd, &after) == 0, FileStamp(after) == before else { throw .originFailed("\(path) changed while it was read") }
        var embedded = EmbeddedMetadata(maxBytes: maxSidecarBytes)
        embedded.addXMP(bytes)
        return SidecarText(stamp: before, text: PhotoText(embedded.text()))
    }
}

extension ImagePipeline {
    /// Tells the pipeline the version of a local original found by the library index, so
    /// that `knownVersion`, `version` and `render` use it instead of hashing the file again.
    /// It counts only while the file's stamp stays `stamp` (checked with one stat at use).
    public func rememberVersion(url: String, version: String, stamp: FileStamp) {
        guard case .local(let path)? = try? engine.source(url) else { return }
        engine.rememberLocalVersion(path: path, version: version, stamp: stamp)
    }
}
