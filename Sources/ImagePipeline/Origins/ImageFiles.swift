import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

/// Which files in a library folder are photos the pipeline serves, decided in one place for
/// the catalog (which lists them) and the pipeline (which reads them).
public enum ImageFiles {
    /// Formats with a decoder in this build.
    static let served: Set<ImageFormat> = [.jpeg, .png, .heif, .webp, .gif, .tiff, .raw, .video]

    /// File name endings (lowercase, with the dot) of the served formats: `.hif` is what
    /// Canon and Sony cameras call their 10-bit HEIF files; the camera raws are shown through
    /// their embedded JPEG previews; movies are served as their posters (docs/video.md).
    public static let extensions = [".jpg", ".jpeg", ".png", ".heic", ".heif", ".hif", ".webp", ".gif", ".tif", ".tiff"]
        + rawExtensions + movieExtensions

    /// Camera raw file name endings: Canon, Nikon, Sony, Adobe, Pentax, Olympus, Panasonic,
    /// Samsung, Fujifilm, Hasselblad, Epson.
    public static let rawExtensions = [".cr2", ".cr3", ".nef", ".nrw", ".arw", ".sr2", ".dng", ".pef", ".orf", ".rw2",
                                       ".srw", ".raf", ".3fr", ".erf"]

    /// The movie endings among `extensions`.
    public static let movieExtensions = [".mov", ".mp4", ".m4v", ".3gp"]

    /// Whether the file's name ends in a movie extension (any case): the web layer shows such
    /// items with a play control and serves the file itself for playback.
    public static func isMovie(name: String) -> Bool {
        movieExtensions.contains { hasSuffix(name, lowercaseASCII: $0) }
    }

    /// Whether `name` ends with `suffix` (lower-case ASCII) in any case, compared byte by byte:
    /// a catalog build asks it of every photo, and a lower-cased copy of each name was a
    /// noticeable part of a start at a million photos.
    static func hasSuffix(_ name: String, lowercaseASCII suffix: String) -> Bool {
        let bytes = name.utf8, tail = suffix.utf8
        guard bytes.count >= tail.count else { return false }
        var i = bytes.index(bytes.endIndex, offsetBy: -tail.count)
        for expected in tail {
            let byte = bytes[i]
            guard (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == expected else { return false }
            i = bytes.index(after: i)
        }
        return true
    }

    /// Whether the file's name ends in a served extension (any case), or else its first bytes
    /// are the signature of a served format (a photo saved without an extension).
    public static func isImage(path: String, name: String) -> Bool {
        let lower = name.lowercased()
        if extensions.contains(where: { lower.hasSuffix($0) }) { return true }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: ImageFormat.sniffBytes)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress!, ImageFormat.sniffBytes) }
        guard n > 0, let format = ImageFormat.sniff(head[0..<n]) else { return false }
        return served.contains(format)
    }

    /// The canonical absolute path (symlinks and `..` resolved), or nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
