import Foundation

/// One HTTP/1.1 GET and its answer, over an `OriginConnection`: the status, the headers
/// (names lowercased, repeats joined by ", "), and the body (sized by Content-Length, chunked,
/// or up to the close), never more than `maxBytes` of it.
struct OriginExchange {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// The body went past `maxBytes` (it was dropped).
        var tooLarge = false
    }

    /// Longest header block accepted, and longest chunk-size line.
    static let maxHeaderBytes = 64 * 1024
    static let maxLineBytes = 4096

    private let connection: OriginConnection
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0, end = 0

    init(connection: OriginConnection) {
        self.connection = connection
    }

    /// Sends the GET for `target` (path and query, percent-encoded) and reads the answer.
    /// `wantsBody(status)` says whether a body is read at all (not for an error or a redirect).
    mutating func get(target: String, host: String, headers: [(String, String)], maxBytes: Int,
                      wantsBody: (Int) -> Bool) throws(OriginTransferError) -> Answer {
        var request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nAccept-Encoding: identity\r\n"
        for (name, value) in headers {
            guard !value.utf8.contains(where: { $0 == 13 || $0 == 10 }) else { continue }
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        try connection.send(Array(request.utf8))
        var (status, fields) = try readHead()
        // 1xx answers (100 Continue and the like) come before the real one.
        while (100...199).contains(status) { (status, fields) = try readHead() }
        var answer = Answer(status: status, headers: fields, body: [])
        guard wantsBody(status), status != 204, status != 304 else { return answer }
        if let coding = fields["transfer-encoding"]?.lowercased(), coding.contains("chunked") {
            try readChunked(into: &answer, maxBytes: maxBytes)
        } else if let text = fields["content-length"] {
            guard let length = Int(text.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                throw .failed("Content-Length \"\(text.prefix(40))\" is not a length")
            }
            if length > maxBytes { answer.tooLarge = true; return answer }
            answer.body.reserveCapacity(length)
            let got = try read(into: &answer.body, upTo: length)
            if got < length { throw .failed("body has \(got) of \(length) bytes") }
        } else {
            let got = try read(into: &answer.body, upTo: maxBytes == Int.max ? maxBytes : maxBytes + 1)
            if got > maxBytes { answer.body = []; answer.tooLarge = true }
        }
        return answer
    }

    /// Refills the buffer; false at the end of the stream.
    private mutating func fill() throws(OriginTransferError) -> Bool {
        if start == end { start = 0; end = 0 }
        if end == buffer.count {
            buffer.replaceSubrange(0..<end - start, with: buffer[start..<end])
            end -= start
            start = 0
        }
        let n = try connection.receive(into: &buffer, from: end)
        end += n
        return n > 0
    }

    /// One line without its CRLF (or LF), at most `limit` bytes.
    private mutating func readLine(limit: Int) throws(OriginTransferError) -> String {
        while true {
            if let lf = buffer[start..<end].firstIndex(of: 10) {
                var stop = lf
                if stop > start && buffer[stop - 1] == 13 { stop -= 1 }
                let line = String(decoding: buffer[start..<stop], as: UTF8.self)
                start = lf + 1
                return line
            }
            guard end - start < limit else { throw .failed("a header line longer than \(limit) bytes") }
            guard try fill() else { throw .failed("the answer ended inside its headers") }
        }
    }

    /// A status line and its header lines.
    private mutating func readHead() throws(OriginTransferError) -> (Int, [String: String]) {
        var budget = OriginExchange.maxHeaderBytes
        let statusLine = try readLine(limit: budget)
        budget -= statusLine.utf8.count
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            throw .failed("not an HTTP/1.x answer: \"\(statusLine.prefix(60))\"")
        }
        var fields: [String: String] = [:]
        while true {
            let line = try readLine(limit: max(budget, 1))
            budget -= line.utf8.count + 2
            guard budget > 0 else { throw .failed("headers longer than \(OriginExchange.maxHeaderBytes) bytes") }
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return (status, fields)
    }

    /// Appends up to `count` bytes of the stream to `body`; how many it got before the end.
    private mutating func read(into body: inout [UInt8], upTo count: Int) throws(OriginTransferError) -> Int {
        var got = 0
        while got < count {
            if start == end, try !fill() { break }
            let take = min(end - start, count - got)
            body.append(contentsOf: buffer[start..<start + take])
            start += take
            got += take
        }
        return got
    }

    private mutating func readChunked(into answer: inout Answer, maxBytes: Int) throws(OriginTransferError) {
        while true {
            let line = try readLine(limit: OriginExchange.maxLineBytes)
            let digits = line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
            guard !digits.isEmpty, digits.count <= 15, let size = Int(digits, radix: 16) else {
                throw .failed("chunk size \"\(line.prefix(40))\" is not hexadecimal")
            }
            if size == 0 { break }
            if answer.body.count + size > maxBytes {
                answer.body = []
                answer.tooLarge = true
                return
            }
            let got = try read(into: &answer.body, upTo: size)
            guard got == size else { throw .failed("the answer ended inside a chunk") }
            guard try readLine(limit: 2).isEmpty else { throw .failed("a chunk not followed by CRLF") }
        }
        // Trailer fields, up to the empty line.
        var budget = OriginExchange.maxHeaderBytes
        while budget > 0 {
            let line = try readLine(limit: OriginExchange.maxLineBytes)
            if line.isEmpty { return }
            budget -= line.utf8.count + 2
        }
        throw .failed("trailers longer than \(OriginExchange.maxHeaderBytes) bytes")
    }
}
