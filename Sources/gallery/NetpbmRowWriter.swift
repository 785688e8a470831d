import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

/// `gallery decode`'s PPM, PGM and PAM output written as the decoder hands rows over
/// (`ImageCodec.decodeRows`), so a full-size JPEG never exists as a whole bitmap in this
/// process: a 17.9 MP decode peaked at 75 MB and 15,570 page faults when the bitmap was kept
/// and written at the end (docs/performance.md). The bytes are those of
/// `CodecCommands.writeNetpbm` on the decoded bitmap.
///
/// The file is created when the decode has read the headers and knows the size; if the
/// decode or a write fails after that, `finish(ok: false)` removes it.
final class NetpbmRowWriter: DecodedRowSink {
    private let kind: CodecCommands.OutputKind
    private let path: String
    private var fd: Int32 = -1
    private var sourceLayout = Bitmap.Layout.rgb
    private var width = 0
    private var headerBytes = 0
    /// The row the next sequential write lands on; a band starting elsewhere seeks first.
    private var nextRow = 0

    /// `kind` is `.ppm`, `.pgm` or `.pam` (PNG is encoded from the whole bitmap).
    init(kind: CodecCommands.OutputKind, path: String) {
        self.kind = kind
        self.path = path
    }

    func begin(width: Int, height: Int, layout: Bitmap.Layout) throws {
        sourceLayout = layout
        self.width = width
        let header = Array(CodecCommands.netpbmHeader(kind, width: width, height: height, layout: outputLayout).utf8)
        headerBytes = header.count
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError("cannot create \(path): \(String(cString: strerror(errno)))") }
        try header.withUnsafeBytes { try writeAll($0) }
    }

    func write(_ rows: UnsafeBufferPointer<UInt8>, first: Int, count: Int) throws {
        let rowBytes = width * outputLayout.channels
        if first != nextRow {
            // Only a progressive JPEG decoded again from row 0 (DecodedRowSink) gets here.
            guard lseek(fd, off_t(headerBytes + first * rowBytes), SEEK_SET) >= 0 else {
                throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        if outputLayout == sourceLayout {
            try writeAll(UnsafeRawBufferPointer(rows))
        } else {
            let band = try Bitmap(width: width, height: count, layout: sourceLayout, pixels: Array(rows))
            try band.converted(to: outputLayout).pixels.withUnsafeBytes { try writeAll($0) }
        }
        nextRow = first + count
    }

    /// Closes the file; removes it unless `ok` (a failed decode leaves no partial output).
    /// Throws when closing fails (the last bytes may not have been written).
    func finish(ok: Bool) throws {
        guard fd >= 0 else { return }
        let closed = close(fd) == 0
        let reason = String(cString: strerror(errno))
        fd = -1
        if !ok || !closed { unlink(path) }
        if ok && !closed { throw CLIError("cannot write \(path): \(reason)") }
    }

    private var outputLayout: Bitmap.Layout {
        switch kind {
        case .ppm: return .rgb
        case .pgm: return .gray
        case .pam, .png: return sourceLayout
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard CodecCommands.writeAll(fd, bytes) else {
            throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
