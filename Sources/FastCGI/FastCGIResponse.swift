/// What a handler answers: status, headers and body bytes. The writer adds Content-Length.
public struct FastCGIResponse: Sendable {
    /// HTTP status code (200, 404, ...).
    public var status: Int
    /// Header lines in order; names as they should appear. Do not set Content-Length or Status.
    public var headers: [(name: String, value: String)]
    /// The body. For HEAD requests set `omitBody`: Content-Length still tells its size.
    public var body: [UInt8]
    /// Send the headers (with the body's Content-Length) but not the body itself.
    public var omitBody: Bool
    /// A body written while it is sent, instead of `body` (which is then ignored): for answers
    /// too large to hold in memory. Its `length` is the Content-Length.
    public var stream: FastCGIBodyStream?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], omitBody: Bool = false,
                stream: FastCGIBodyStream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.omitBody = omitBody
        self.stream = stream
    }

    /// The Content-Length: the stream's length when there is one, else the body's.
    public var contentLength: Int { stream?.length ?? body.count }

    /// The first header value with `name`, case-insensitive.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The CGI response head: Status line, headers, Content-Length, blank line.
    public func encodedHead() -> [UInt8] {
        var head = "Status: \(status) \(FastCGIResponse.reason(for: status))\r\n"
        for (name, value) in headers {
            head += "\(FastCGIResponse.clean(name)): \(FastCGIResponse.clean(value))\r\n"
        }
        head += "Content-Length: \(contentLength)\r\n\r\n"
        return Array(head.utf8)
    }

    /// Header text never carries CR or LF (no response splitting, whatever a handler put there).
    private static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 13 || $0 == 10 }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }

    /// The standard reason phrase for `status`.
    public static func reason(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 422: return "Unprocessable Content"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }
}

/// A response body produced piece by piece while it is sent, in constant memory.
///
/// The transport calls `produce` once with a `send` function (unless the body is omitted, as
/// for HEAD), then `finished` exactly once in every case, so a handler can hold a resource
/// (a download slot) from answering until the body is done. `send` hands bytes to the web
/// server and returns false once the client is gone: `produce` should stop then. Writing fewer
/// than `length` bytes leaves the client with a truncated answer (its Content-Length tells it
/// so), which is how a failure after the headers is reported.
public struct FastCGIBodyStream: Sendable {
    /// Bytes `produce` writes in total.
    public var length: Int
    public var produce: @Sendable (_ send: (UnsafeRawBufferPointer) -> Bool) -> Void
    public var finished: @Sendable () -> Void

    public init(length: Int, produce: @escaping @Sendable (_ send: (UnsafeRawBufferPointer) -> Bool) -> Void,
                finished: @escaping @Sendable () -> Void = {}) {
        self.length = length
        self.produce = produce
        self.finished = finished
    }
}

/// Answers requests. Called from several worker threads at once.
public protocol FastCGIHandler: Sendable {
    func handle(_ request: FastCGIRequest) -> FastCGIResponse
}

extension FastCGIHandler {
    /// The answer to one request, for both transports (FastCGI and plain CGI): 413 without
    /// reading the body when its declared CONTENT_LENGTH is over `maxBodyBytes`, else this
    /// handler's answer to the parameters and the body `readBody` returns for that length.
    func answer(params: [String: String], maxBodyBytes: Int, readBody: (Int) -> [UInt8]) -> FastCGIResponse {
        let declared = Int(params["CONTENT_LENGTH"] ?? "") ?? 0
        guard declared <= maxBodyBytes else {
            return FastCGIResponse(status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                   body: Array("Request body too large\n".utf8))
        }
        return handle(FastCGIRequest(params: params, body: declared > 0 ? readBody(declared) : []))
    }
}
