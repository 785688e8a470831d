/// The formats we decode, recognised from their first bytes (never from a file name).
public enum ImageFormat: String, Sendable, Equatable {
    case jpeg
    case png

    /// The MIME type an HTTP response should carry.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        }
    }

    /// The format whose signature starts `bytes`, or nil.
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        var it = bytes.makeIterator()
        var head = [UInt8]()
        head.reserveCapacity(8)
        while head.count < 8, let b = it.next() { head.append(b) }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        return nil
    }
}
