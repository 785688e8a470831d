/// One HTTP/1.1 GET of an original and its answer, over an `OriginConnection`: the status, the
/// headers, and the body (framed by `HTTPAnswerReader`), never more than `maxBytes` of it.
struct OriginExchange {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    /// Why a body is refused past `maxBytes` (the same words for a Content-Length that says so
    /// and a body that turns out so).
    static let tooLarge = "larger than the origin byte limit"

    private let connection: OriginConnection
    private var reader = HTTPAnswerReader()

    init(connection: OriginConnection) {
        self.connection = connection
    }

    /// Sends the GET for `target` (path and query, percent-encoded) and reads the answer; the
    /// body only of a 2xx answer (an error page or a redirect is of no use).
    mutating func get(target: String, host: String, headers: [(String, String)], maxBytes: Int) throws(HTTPTransferError) -> Answer {
        var request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nAccept-Encoding: identity\r\n"
        for (name, value) in headers {
            guard !value.utf8.contains(where: { $0 == 13 || $0 == 10 }) else { continue }
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        try connection.send(Array(request.utf8))
        let (status, fields) = try reader.readHead(connection)
        var answer = Answer(status: status, headers: fields, body: [])
        guard (200...299).contains(status) else { return answer }
        if let length = fields["content-length"].flatMap({ Int($0) }), length > maxBytes { throw .failed(Self.tooLarge) }
        var body: [UInt8] = []
        _ = try reader.readBody(connection, status: status, headers: fields) { (piece) throws(HTTPTransferError) in
            guard body.count + piece.count <= maxBytes else { throw .failed(Self.tooLarge) }
            body += piece
        }
        answer.body = body
        return answer
    }
}
