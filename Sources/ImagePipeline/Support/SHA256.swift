/// SHA-256 (FIPS 180-4), streaming, through libcrypto (`ContentHasher`): the one SHA-256 in
/// the codebase. Cache file names, content versions and share-link MACs are made with it.
public struct SHA256: ~Copyable {
    private let hasher = ContentHasher()

    public init() {}

    /// Hashes `bytes` in one call: 32 bytes of digest.
    public static func hash<C: ContiguousCollectionOfBytes>(_ bytes: C) -> [UInt8] {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    /// Lower-case hex of the digest of `bytes` (64 characters).
    public static func hex<C: ContiguousCollectionOfBytes>(_ bytes: C) -> String {
        hexString(hash(bytes))
    }

    /// Lower-case hex of the digest of the UTF-8 of `text`.
    public static func hex(_ text: String) -> String {
        hexString(hash(Array(text.utf8)))
    }

    /// Feeds more message bytes.
    public mutating func update<C: ContiguousCollectionOfBytes>(_ bytes: C) {
        bytes.withBytes { hasher.update(UnsafeRawBufferPointer($0)) }
    }

    /// Feeds more message bytes from raw memory.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        hasher.update(buffer)
    }

    /// The 32-byte digest; the hasher is used up.
    public consuming func finalize() -> [UInt8] {
        hasher.finalize()
    }

    /// Lower-case hex of `digest`.
    public static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var chars = [UInt8]()
        chars.reserveCapacity(digest.count * 2)
        for b in digest {
            chars.append(digits[Int(b >> 4)])
            chars.append(digits[Int(b & 15)])
        }
        return String(decoding: chars, as: UTF8.self)
    }
}

/// Byte containers whose storage can be lent as one contiguous buffer ([UInt8], ArraySlice).
public protocol ContiguousCollectionOfBytes {
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
}

extension Array: ContiguousCollectionOfBytes where Element == UInt8 {
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBufferPointer(body)
    }
}

extension ArraySlice: ContiguousCollectionOfBytes where Element == UInt8 {
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBufferPointer(body)
    }
}
