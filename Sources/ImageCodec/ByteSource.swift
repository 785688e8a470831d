/// Random access to an original's bytes. Containers whose needed parts are a small share of
/// the file (a video's `moov` and one sample, a raw's IFDs and embedded preview) read just
/// those parts with positioned reads and never hold the whole file: a video may be gigabytes.
///
/// Implementations must be safe to call from several threads and must return exactly `count`
/// bytes or throw; callers check their own limits before asking for a large range.
public protocol ByteSource: Sendable {
    /// Total size of the original in bytes.
    var size: Int { get }
    /// Exactly `count` bytes starting at `offset`. Throws `.truncated` when the range runs past
    /// `size` (or the bytes cannot be read), `.invalidArgument` for a negative offset or count.
    func read(offset: Int, count: Int) throws -> [UInt8]
}

extension ByteSource {
    /// Validates `offset` and `count` against `size` without overflow: the check every
    /// implementation starts with.
    public func checkRange(offset: Int, count: Int) throws {
        guard offset >= 0, count >= 0 else {
            throw ImageCodecError(.invalidArgument, "read of \(count) bytes at \(offset)")
        }
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= size else {
            throw ImageCodecError(.truncated, "read of \(count) bytes at \(offset) runs past the end (\(size) bytes)")
        }
    }
}

/// A `ByteSource` over bytes already in memory: tests, fuzzers and small originals.
public struct MemoryByteSource: ByteSource {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: Int { bytes.count }

    public func read(offset: Int, count: Int) throws -> [UInt8] {
        try checkRange(offset: offset, count: count)
        return Array(bytes[offset..<(offset + count)])
    }
}
