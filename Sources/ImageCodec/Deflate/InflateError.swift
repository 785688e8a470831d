/// Why `Inflate` stopped before the end of a stream. Every malformed stream ends in one of
/// these (typed throws: no existential box on the hot path, and callers can switch on it).
///
/// `truncated` and `outputFull` are not corruption: the output written so far is valid and
/// callers such as TIFF keep it (libtiff keeps a strip whose data runs out, and accepts one
/// whose data would overflow the strip).
public enum InflateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The zlib header's check bits, method (not 8) or window size (over 32 KiB) is wrong.
    case badHeader
    /// The zlib header asks for a preset dictionary, which image formats never use.
    case needsDictionary
    /// Block type 3.
    case badBlockType
    /// A stored block's LEN is not the complement of its NLEN.
    case badStoredLength
    /// A Huffman code is over-subscribed or incomplete, or a dynamic header's counts are out
    /// of range (more than 286 literal/length or 30 distance codes, no end-of-block code).
    case badCodeLengths
    /// A code-length repeat with nothing to repeat, or running past the declared counts.
    case badRepeat
    /// A literal/length or distance code that the block's code does not define (including
    /// the fixed code's 286, 287, 30 and 31).
    case badSymbol
    /// A match reaching before the start of the output.
    case distanceTooFar
    /// The zlib trailer's Adler-32 differs from the output's.
    case checksumMismatch
    /// The input ended inside the stream; `produced` bytes of output are valid.
    case truncated(produced: Int)
    /// The stream would write past the caller's capacity; the output is full and valid.
    case outputFull

    public var description: String {
        switch self {
        case .badHeader: "bad zlib header"
        case .needsDictionary: "zlib stream needs a preset dictionary"
        case .badBlockType: "invalid Deflate block type"
        case .badStoredLength: "stored block length check failed"
        case .badCodeLengths: "invalid Huffman code lengths"
        case .badRepeat: "invalid code length repeat"
        case .badSymbol: "invalid literal/length or distance code"
        case .distanceTooFar: "match distance before the start of the output"
        case .checksumMismatch: "Adler-32 mismatch"
        case .truncated(let produced): "input ends inside the stream after \(produced) bytes"
        case .outputFull: "output larger than expected"
        }
    }
}
