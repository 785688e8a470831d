import ImageCodec
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The movie inside a motion photo (a Google or Samsung still that carries its clip, see
/// `MotionPhoto`): where it lies in the still's bytes and what it holds.
public struct MotionMovie: Sendable, Equatable {
    /// The movie's bytes within the still's file (an MP4 from its `ftyp` to its last box).
    public var range: Range<Int>
    /// How it was found: "google-container", "google-microvideo", "samsung", "after-eoi", "heic-mpvd".
    public var kind: String
    /// Its duration and codec, nil when the movie's `moov` cannot be read.
    public var video: VideoFacts?
}

/// A motion photo's movie opened for serving: positioned reads of the still's file, within
/// the movie's range only.
public final class MotionMovieFile: Sendable {
    private let file: ByteSource
    public let movie: MotionMovie
    /// The still's modification time, seconds since 1970, and its stamp (the movie's validator).
    public let modified: Int
    public let stamp: FileStamp

    init(file: ByteSource, movie: MotionMovie, stamp: FileStamp) {
        self.file = file
        self.movie = movie
        self.stamp = stamp
        modified = stamp.mtimeSeconds
    }

    /// The movie's length in bytes.
    public var length: Int { movie.range.count }

    /// `count` bytes of the movie from `offset` (movie-relative); throws past its end or when
    /// the file cannot be read.
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= length, count <= length - offset else {
            throw ImageCodecError(.truncated, "read of \(count) bytes at \(offset) runs past the movie (\(length) bytes)")
        }
        return try file.read(offset: movie.range.lowerBound + offset, count: count)
    }
}

/// Finding motion photos' movies: once per indexed file (`FileIndexing`) and once per file
/// version on the serving path (remembered by path and stamp, so the Range requests of one
/// playback do not read and scan the still again).
enum MotionMovies {
    /// Formats a motion photo can be.
    static let stillFormats: Set<ImageFormat> = [.jpeg, .heif]

    /// The movie in `source` (a whole JPEG or HEIF still), nil when it holds none.
    static func find(in source: ByteSource, limits: DecodeLimits) -> MotionMovie? {
        guard let (range, kind) = try? MotionPhoto.embeddedMovie(source: source, limits: limits) else { return nil }
        let info = try? ImageCodec.probe(source: SubrangeSource(base: source, range: range), limits: limits)
        return MotionMovie(range: range, kind: kind, video: info?.video.map(VideoFacts.init))
    }

    /// Whether bytes of a still may hold a motion movie: an `ftyp` box type after the first
    /// box (every layout's movie starts with one), found with `memchr` for its first byte. A
    /// cheap test run on every chunk as the indexer streams the file; the real search runs
    /// only on a hit. `skip`: bytes at the start not to look at (a HEIF's own `ftyp`).
    static func mayHoldMovie(_ chunk: UnsafeRawBufferPointer, skip: Int = 0) -> Bool {
        guard chunk.count >= skip + 4, let base = chunk.baseAddress else { return false }
        var at = skip
        let last = chunk.count - 4
        while at <= last {
            guard let hit = memchr(base + at, 0x66, last + 1 - at) else { return false }
            at = base.distance(to: UnsafeRawPointer(hit))
            if chunk[at + 1] == 0x74 && chunk[at + 2] == 0x79 && chunk[at + 3] == 0x70 { return true }
            at += 1
        }
        return false
    }

    /// Motion movies found on the serving path, by real path; an entry counts only while the
    /// file's stamp is the one it was found with. At most `cacheLimit` entries (cleared when full).
    private static let found = Mutex<[String: (stamp: FileStamp, movie: MotionMovie?)]>([:])
    static let cacheLimit = 512

    /// The movie of the library still at `path`, opened for reading; nil when it holds none.
    static func open(path: String, root: String, limits: DecodeLimits, maxBytes: Int) throws(PipelineError) -> MotionMovieFile? {
        let opened = try LibraryFile(path: path, root: root)
        let stamp = FileStamp(opened.status)
        let fd = dup(opened.fd)
        guard fd >= 0 else { throw .originFailed("\(path): \(String(cString: strerror(errno)))") }
        let file = try FileByteSource(fd: fd)
        let realPath = opened.realPath
        if let known = found.withLock({ $0[realPath] }), known.stamp == stamp {
            return known.movie.map { MotionMovieFile(file: file, movie: $0, stamp: stamp) }
        }
        guard let head = try? file.read(offset: 0, count: min(ImageFormat.sniffBytes, file.size)),
              let format = ImageFormat.sniff(head), stillFormats.contains(format) else { return nil }
        guard file.size <= maxBytes else { throw .tooLarge("\(path): larger than \(maxBytes) bytes") }
        let movie = find(in: file, limits: limits)
        found.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[realPath] = (stamp, movie)
        }
        return movie.map { MotionMovieFile(file: file, movie: $0, stamp: stamp) }
    }
}

/// A byte range of another source, seen as a whole source (a motion photo's movie).
struct SubrangeSource: ByteSource {
    let base: ByteSource
    let range: Range<Int>

    var size: Int { range.count }

    func read(offset: Int, count: Int) throws -> [UInt8] {
        try checkRange(offset: offset, count: count)
        return try base.read(offset: range.lowerBound + offset, count: count)
    }
}

extension VideoFacts {
    init(_ info: VideoInfo) {
        self.init(durationSeconds: info.durationSeconds, codec: info.codec, frameRate: info.frameRate, hdr: info.hdr,
                  contentIdentifier: info.contentIdentifier, hasAudio: info.hasAudio)
    }
}

extension ImagePipeline {
    /// The movie inside the motion photo at a file:// `url` in the library, opened for
    /// positioned reads (the still is read and searched once per version; see `MotionPhoto`).
    /// nil for a remote URL or a still without a movie. Throws like `localOriginal(url:)`.
    public func motionMovie(url: String) throws(PipelineError) -> MotionMovieFile? {
        guard case .local(let path) = try engine.source(url) else { return nil }
        return try MotionMovies.open(path: path, root: configuration.libraryRoot, limits: configuration.decodeLimits,
                                     maxBytes: configuration.maxOriginBytes)
    }
}
