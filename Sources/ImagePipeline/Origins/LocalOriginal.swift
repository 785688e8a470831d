import Foundation
import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

/// A library file as nginx should send it: where it is below the library's real root, what it
/// is, and its size and time. The web layer hands the path to nginx (`X-Accel-Redirect`), which
/// streams the bytes with sendfile and answers Range requests, so no app thread is held for a
/// download and no original is ever read into the app's memory to be sent.
public struct LocalOriginal: Sendable, Equatable {
    /// The file's real path relative to the library's real root ("Trips/IMG_1.MOV").
    public var relativePath: String
    public var contentType: String
    public var size: Int
    /// Modification time, seconds since 1970.
    public var modified: Int
}

extension ImagePipeline {
    /// The local original behind a file:// `url`, opened and checked like every library read
    /// (`LibraryFile`: inside the library, a regular file, whatever symlinks were swapped),
    /// its type from its first bytes. nil for a remote URL. Throws `.sourceNotAllowed` when the
    /// file is missing or outside the library, `.notAnImage` when no format we read starts it.
    public func localOriginal(url: String) throws(PipelineError) -> LocalOriginal? {
        guard case .local(let path) = try engine.source(url) else { return nil }
        let root = configuration.libraryRoot
        let file = try LibraryFile(path: path, root: root)
        guard let realRoot = ImageFiles.realPath(root) else { throw .sourceNotAllowed("library root \(root) does not exist") }
        var head = [UInt8](repeating: 0, count: ImageFormat.sniffBytes)
        let n = head.withUnsafeMutableBytes { pread(file.fd, $0.baseAddress, $0.count, 0) }
        guard n > 0, let format = ImageFormat.sniff(head[0..<n]) else { throw .notAnImage("\(path) is not a format we serve") }
        let prefix = realRoot.hasSuffix("/") ? realRoot : realRoot + "/"
        return LocalOriginal(relativePath: String(file.realPath.dropFirst(prefix.count)), contentType: format.mimeType,
                             size: file.size, modified: Int(file.status.st_mtim.tv_sec))
    }
}
