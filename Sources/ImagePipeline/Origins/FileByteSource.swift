import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

/// A `ByteSource` over an open file: positioned reads (`pread`), so several threads may read
/// one file at once and only the ranges asked for are ever in memory. The descriptor is closed
/// when the last copy of the source goes away.
final class FileByteSource: ByteSource, @unchecked Sendable {
    // @unchecked: `fd` and `size` are immutable after init and pread needs no shared offset.
    private let fd: Int32
    let size: Int

    /// Takes ownership of `fd` (closed on deinit); its size is read once here.
    init(fd: Int32) throws(PipelineError) {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 0 else {
            close(fd)
            throw .originFailed("cannot stat an open original: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.size = Int(st.st_size)
    }

    deinit { close(fd) }

    func read(offset: Int, count: Int) throws -> [UInt8] {
        try checkRange(offset: offset, count: count)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            failed = done != count
            initialized = done
        }
        guard !failed else { throw ImageCodecError(.truncated, "the file ended or failed to read at \(offset)") }
        return bytes
    }
}
