import CZlib

/// CRC-32 (ISO 3309, the one ZIP and PNG use), by zlib's `crc32`: the web layer needs it for
/// ZIP downloads and may not import the codecs. zlib's braided implementation runs at several
/// GB/s, far above what a disk or a network sends, so a download is never held up by it.
public struct CRC32: Sendable, Equatable {
    /// The checksum of the bytes seen so far (0 for none).
    public private(set) var value: UInt32 = 0

    public init() {}

    /// Feeds more bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return }
        var left = bytes.count
        var crc = UInt(value)
        // zlib takes a 32-bit length: feed large buffers in pieces.
        while left > 0 {
            let n = min(left, 1 << 30)
            crc = CZlib.crc32(crc, p, UInt32(n))
            p += n
            left -= n
        }
        value = UInt32(truncatingIfNeeded: crc)
    }

    /// The checksum of `bytes` in one call.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }
}
