import ImageCodec
import Foundation
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

    /// The whole file, refusing anything above `maxBytes`.
    static func read(_ path: String, maxBytes: Int) throws(PipelineError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .sourceNotAllowed("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard let bytes = readAll(fd: fd, maxBytes: maxBytes) else {
            throw .originFailed("\(path): unreadable or larger than \(maxBytes) bytes")
        }
        return bytes
    }

    /// The file open for positioned reads when it is a TIFF or a camera raw (formats whose
    /// decode needs a small part of a large file), else nil. Such files are not bound by
    /// `maxOriginBytes`: they are never held whole.
    static func openPositioned(_ path: String) throws(PipelineError) -> (FileByteSource, ImageFormat)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .sourceNotAllowed("\(path): \(String(cString: strerror(errno)))") }
        let file = try FileByteSource(fd: fd)
        guard let head = try? file.read(offset: 0, count: min(16, file.size)),
              let format = ImageFormat.sniff(head), format == .tiff || format == .raw else { return nil }
        return (file, format)
    }

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
        try LocalSource.read(path, maxBytes: maxBytes)
    }
}
