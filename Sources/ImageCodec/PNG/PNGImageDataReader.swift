import CZlib

/// Inflates the IDAT data as one zlib stream, handing out filtered rows on demand.
///
/// Memory: the compressed bytes are read in place from the file buffer, chunk by chunk, and
/// zlib writes into one 64 KiB staging buffer that rows are copied out of, so nothing ever
/// holds the whole inflated image. The running total is checked against the exact size the
/// header implies after every inflate call, so a zlib bomb is stopped within 64 KiB of the
/// expected end instead of being inflated.
final class PNGImageDataReader {
    static let stagingSize = 64 << 10

    private let file: UnsafeBufferPointer<UInt8>
    private let ranges: [Range<Int>]
    private var nextRange = 0
    private let expected: Int
    private var produced = 0
    private let zlib: ZlibStream
    private let staging: UnsafeMutablePointer<UInt8>
    private var stagedStart = 0
    private var stagedEnd = 0
    private var streamEnded = false

    /// `file` must outlive the reader; `ranges` are the IDAT data ranges in order.
    init(file: UnsafeBufferPointer<UInt8>, ranges: [Range<Int>], expectedBytes: Int) throws {
        self.file = file
        self.ranges = ranges
        self.expected = expectedBytes
        self.zlib = try ZlibStream(.inflate)
        staging = .allocate(capacity: PNGImageDataReader.stagingSize)
    }

    deinit { staging.deallocate() }

    /// Copies the next `count` inflated bytes to `destination`.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws {
        var done = 0
        while done < count {
            if stagedStart == stagedEnd { try refill() }
            let n = min(count &- done, stagedEnd &- stagedStart)
            (destination + done).update(from: staging + stagedStart, count: n)
            stagedStart &+= n
            done &+= n
        }
    }

    /// Called after the last row: the stream must end without producing more bytes. Returns
    /// warnings for harmless leftovers (a missing Adler-32 trailer, data after the stream).
    func finish() throws -> [String] {
        if stagedStart != stagedEnd {
            throw ImageCodecError(.corrupt, "PNG image data is longer than \(expected) bytes")
        }
        while !streamEnded {
            guard feedInput() else { return ["PNG zlib stream ends without its checksum"] }
            zlib.setOutput(staging, count: PNGImageDataReader.stagingSize)
            let status = inflate(zlib.stream, Z_NO_FLUSH)
            if zlib.availableOut != PNGImageDataReader.stagingSize {
                throw ImageCodecError(.corrupt, "PNG image data is longer than \(expected) bytes")
            }
            switch status {
            case Z_STREAM_END: streamEnded = true
            case Z_OK, Z_BUF_ERROR: continue
            default: throw ImageCodecError(.corrupt, "PNG image data: \(zlib.describe(status))")
            }
        }
        if zlib.availableIn > 0 || nextRange < ranges.count {
            return ["PNG has data after the end of its zlib stream"]
        }
        return []
    }

    /// Makes input available to zlib; false when every IDAT byte has been handed over.
    private func feedInput() -> Bool {
        while zlib.availableIn == 0 {
            guard nextRange < ranges.count, let base = file.baseAddress else { return false }
            let r = ranges[nextRange]
            nextRange += 1
            zlib.setInput(base + r.lowerBound, count: r.count)
        }
        return true
    }

    private func refill() throws {
        stagedStart = 0
        stagedEnd = 0
        while stagedEnd == 0 {
            guard !streamEnded else {
                throw ImageCodecError(.truncated, "PNG image data ends after \(produced) of \(expected) bytes")
            }
            guard feedInput() else {
                throw ImageCodecError(.truncated, "PNG image data ends after \(produced) of \(expected) bytes")
            }
            zlib.setOutput(staging, count: PNGImageDataReader.stagingSize)
            let status = inflate(zlib.stream, Z_NO_FLUSH)
            let n = PNGImageDataReader.stagingSize - zlib.availableOut
            produced += n
            guard produced <= expected else {
                throw ImageCodecError(.corrupt, "PNG image data inflates past the expected \(expected) bytes")
            }
            stagedEnd = n
            switch status {
            case Z_OK, Z_BUF_ERROR: break
            case Z_STREAM_END: streamEnded = true
            case Z_NEED_DICT: throw ImageCodecError(.corrupt, "PNG image data asks for a preset zlib dictionary")
            case Z_MEM_ERROR: throw ImageCodecError(.limitExceeded, "zlib ran out of memory")
            default: throw ImageCodecError(.corrupt, "PNG image data: \(zlib.describe(status))")
            }
        }
    }
}
