import FastCGI
import Foundation

/// A body of known length answered whole (200) or as the one byte range asked for (206), with
/// `If-Range` honoured: what the ZIP download and the motion clip have in common. Several
/// ranges get the whole body, as RFC 9110 allows.
struct RangedReply {
    let status: Int
    /// The bytes of the body to send.
    let range: Range<Int>
    /// The caller's headers, with `Content-Range` added for a part.
    let headers: [(name: String, value: String)]

    /// The answer for `request` to a body of `total` bytes validated by `etag`; nil when the
    /// range asked for lies past the end (answer with `unsatisfiable`).
    init?(request: FastCGIRequest, total: Int, etag: String, headers: [(name: String, value: String)]) {
        var headers = headers
        var range = 0..<total
        var status = 200
        if let header = request.header("Range"), RangedReply.ifRangeAllows(request.header("If-Range"), etag: etag) {
            switch ByteRange.parse(header, length: total) {
            case .whole: break
            case .unsatisfiable: return nil
            case .part(let part):
                range = part
                status = 206
                headers.append(("Content-Range", "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(total)"))
            }
        }
        self.status = status
        self.range = range
        self.headers = headers
    }

    /// 416 for a range past the end of `total` bytes.
    static func unsatisfiable(total: Int, etag: String) -> FastCGIResponse {
        FastCGIResponse(status: 416, headers: [("Content-Range", "bytes */\(total)"), ("Accept-Ranges", "bytes"), ("ETag", etag)])
    }

    /// The answer to a HEAD: the headers and length, no body.
    var headOnly: FastCGIResponse {
        FastCGIResponse(status: status, headers: headers, stream: FastCGIBodyStream(length: range.count, produce: { _ in }))
    }

    /// The answer to a GET: `produce` sends exactly the bytes of `range`.
    func response(produce: @escaping @Sendable (_ send: (UnsafeRawBufferPointer) -> Bool) -> Void,
                  finished: @escaping @Sendable () -> Void = {}) -> FastCGIResponse {
        FastCGIResponse(status: status, headers: headers, stream: FastCGIBodyStream(length: range.count, produce: produce, finished: finished))
    }

    /// RFC 9110 If-Range: the range applies when the header is absent or names this ETag
    /// (strong comparison; a date never matches: the ETag is the validator we give).
    static func ifRangeAllows(_ header: String?, etag: String) -> Bool {
        guard let header else { return true }
        return header.trimmingCharacters(in: .whitespaces) == etag
    }
}

/// One `Range: bytes=...` header against a body of `length` bytes. Only a single range is
/// served; several ranges get the whole body, as RFC 9110 allows.
enum ByteRange: Equatable {
    case whole
    case part(Range<Int>)
    case unsatisfiable

    static func parse(_ header: String, length: Int) -> ByteRange {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes="), text.utf8.count <= 100 else { return .whole }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        func number(_ s: Substring) -> Int? {
            guard !s.isEmpty, s.utf8.count <= 18, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(s)
        }
        if first.isEmpty {
            // The last N bytes.
            guard let n = number(last) else { return .whole }
            guard n > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - n)..<length)
        }
        guard let start = number(first) else { return .whole }
        guard start < length else { return .unsatisfiable }
        if last.isEmpty { return .part(start..<length) }
        guard let end = number(last), end >= start else { return .whole }
        return .part(start..<min(length, end + 1))
    }
}
