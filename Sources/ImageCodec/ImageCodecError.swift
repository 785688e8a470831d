/// Every failure of `ImageCodec` is one of these: a kind the caller can branch on (the web
/// layer maps it to an HTTP status) and a message short enough for one log line.
public struct ImageCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The bytes are neither JPEG nor PNG.
        case notAnImage
        /// A valid file using a feature we do not decode (12-bit, lossless, arithmetic JPEG, ...).
        case unsupported
        /// The file breaks its format's rules in a way we cannot decode around.
        case corrupt
        /// The data ends before anything decodable.
        case truncated
        /// A header asks for more pixels, bytes or scans than `DecodeLimits` allow.
        case limitExceeded
        /// The caller passed an impossible argument (zero size, unknown scale, bad crop).
        case invalidArgument
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
