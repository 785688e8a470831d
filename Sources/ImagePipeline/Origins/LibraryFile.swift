#if canImport(Glibc)
import Glibc
#endif

/// The one way every reader opens a library file: the pipeline's renders and versions, the
/// indexer, album ZIPs and originals. Whatever path names the file, the file opened must lie
/// inside the library's real root and be a regular file.
///
/// The check is made on the open descriptor itself (its path in `/proc/self/fd`), not only on
/// the path before opening: a folder swapped for a symlink to somewhere outside the library
/// between a scan (or a `realpath`) and the open is caught, whatever component was swapped.
/// The last component is opened with `O_NOFOLLOW` after resolving, and with `O_NONBLOCK`, so a
/// FIFO put in a photo's place cannot hang the reader.
public struct LibraryFile: ~Copyable {
    /// The open descriptor, closed when this value goes away.
    public let fd: Int32
    /// The file's real path (inside the root).
    public let realPath: String
    /// `fstat` of the open descriptor.
    public let status: stat

    public var size: Int { Int(status.st_size) }

    /// Opens `path` for reading. `root`: the library folder the file must lie in, or nil for a
    /// file named on a command line (then only the regular-file check applies).
    public init(path: String, root: String?) throws(PipelineError) {
        guard let real = ImageFiles.realPath(path) else { throw .sourceNotAllowed("\(path) does not exist") }
        var prefix: String?
        if let root {
            guard let realRoot = ImageFiles.realPath(root) else { throw .sourceNotAllowed("library root \(root) does not exist") }
            let inside = realRoot.hasSuffix("/") ? realRoot : realRoot + "/"
            guard real.hasPrefix(inside) else { throw .sourceNotAllowed("\(path) is outside the library") }
            prefix = inside
        }
        let fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw .sourceNotAllowed("\(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .sourceNotAllowed("\(path) is not a regular file")
        }
        if let prefix {
            guard let opened = Self.openedPath(fd), opened.hasPrefix(prefix) else {
                close(fd)
                throw .sourceNotAllowed("\(path) moved outside the library while it was opened")
            }
        }
        self.fd = fd
        self.realPath = real
        self.status = st
    }

    deinit { close(fd) }

    /// The path the kernel has for an open descriptor (what it is, not what it was called).
    static func openedPath(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
