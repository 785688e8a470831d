/// Why an HTTP transfer stopped: no bytes in time, or anything else (with what happened).
public enum HTTPTransferError: Error, CustomStringConvertible {
    case timedOut(String)
    case failed(String)

    public var description: String {
        switch self {
        case .timedOut(let why), .failed(let why): why
        }
    }
}

/// Where an answer's bytes come from: a plain socket, or a TLS session over one.
public protocol HTTPByteStream: AnyObject {
    /// Reads what has arrived into `buffer[offset...]` (waiting for some); 0 at the end of
    /// the stream.
    func receive(into buffer: inout [UInt8], from offset: Int) throws(HTTPTransferError) -> Int
}

/// The framing of HTTP/1.1 answers, shared by both of our clients (`OriginFetcher` for
/// originals, the warmer's keep-alive `HTTPConnection`): the status line and header fields,
/// then a body delimited by chunks, by Content-Length or by the close. Bytes are buffered
/// here between calls, so what follows one answer on a kept-alive connection stays for the
/// next. Every line and the whole head are bounded; a body goes to the caller's sink piece by
/// piece, and the sink decides what to keep and when it is too much.
public struct HTTPAnswerReader {
    /// Longest head (status line and fields) accepted, and longest chunk-size or trailer line.
    public static let maxHeaderBytes = 64 * 1024
    static let maxLineBytes = 4096

    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0, end = 0

    public init() {}

    /// Forgets what is buffered (the connection it came from was closed).
    public mutating func reset() {
        start = 0
        end = 0
    }

    /// The status and header fields (names lowercased, repeats joined by ", ") of the next
    /// final answer; interim 1xx answers before it are skipped.
    public mutating func readHead(_ stream: HTTPByteStream) throws(HTTPTransferError) -> (status: Int, headers: [String: String]) {
        while true {
            let head = try readOneHead(stream)
            if !(100...199).contains(head.status) { return head }
        }
    }

    /// Reads the body of an answer with `status` and `headers`, handing it to `sink` as it
    /// arrives. True when the body ended with the stream (no length given): the connection
    /// cannot carry another answer.
    public mutating func readBody(_ stream: HTTPByteStream, status: Int, headers: [String: String],
                                  into sink: (ArraySlice<UInt8>) throws(HTTPTransferError) -> Void) throws(HTTPTransferError) -> Bool {
        if status == 204 || status == 304 || (100...199).contains(status) { return false }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            try readChunks(stream, into: sink)
            return false
        }
        if let text = headers["content-length"] {
            guard let length = Int(trimmed(text)), length >= 0 else {
                throw .failed("Content-Length \"\(text.prefix(40))\" is not a length")
            }
            let got = try read(stream, count: length, into: sink)
            if got < length { throw .failed("body has \(got) of \(length) bytes") }
            return false
        }
        _ = try read(stream, count: Int.max, into: sink)
        return true
    }

    /// Refills the buffer; false at the end of the stream.
    private mutating func fill(_ stream: HTTPByteStream) throws(HTTPTransferError) -> Bool {
        if start == end { start = 0; end = 0 }
        if end == buffer.count {
            buffer.replaceSubrange(0..<end - start, with: buffer[start..<end])
            end -= start
            start = 0
        }
        let n = try stream.receive(into: &buffer, from: end)
        end += n
        return n > 0
    }

    /// One line without its CRLF (or LF), at most `limit` bytes.
    private mutating func readLine(_ stream: HTTPByteStream, limit: Int) throws(HTTPTransferError) -> String {
        var scanned = start
        while true {
            if let lf = buffer[scanned..<end].firstIndex(of: 10) {
                var stop = lf
                if stop > start && buffer[stop - 1] == 13 { stop -= 1 }
                let line = String(decoding: buffer[start..<stop], as: UTF8.self)
                start = lf + 1
                return line
            }
            guard end - start < limit else { throw .failed("a line of the answer is longer than \(limit) bytes") }
            let offset = end - start
            guard try fill(stream) else { throw .failed("the answer ended inside its head or a chunk line") }
            scanned = start + offset
        }
    }

    private mutating func readOneHead(_ stream: HTTPByteStream) throws(HTTPTransferError) -> (status: Int, headers: [String: String]) {
        var budget = HTTPAnswerReader.maxHeaderBytes
        let statusLine = try readLine(stream, limit: budget)
        budget -= statusLine.utf8.count
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]),
              (100...599).contains(status) else {
            throw .failed("not an HTTP/1.x answer: \"\(statusLine.prefix(60))\"")
        }
        var fields: [String: String] = [:]
        while true {
            let line = try readLine(stream, limit: max(budget, 1))
            budget -= line.utf8.count + 2
            guard budget > 0 else { throw .failed("head longer than \(HTTPAnswerReader.maxHeaderBytes) bytes") }
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = trimmed(line[line.index(after: colon)...])
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return (status, fields)
    }

    /// Hands up to `count` bytes of the stream to `sink`; how many came before the end.
    private mutating func read(_ stream: HTTPByteStream, count: Int,
                               into sink: (ArraySlice<UInt8>) throws(HTTPTransferError) -> Void) throws(HTTPTransferError) -> Int {
        var got = 0
        while got < count {
            if start == end, try !fill(stream) { break }
            let take = min(end - start, count - got)
            try sink(buffer[start..<start + take])
            start += take
            got += take
        }
        return got
    }

    private mutating func readChunks(_ stream: HTTPByteStream,
                                     into sink: (ArraySlice<UInt8>) throws(HTTPTransferError) -> Void) throws(HTTPTransferError) {
        while true {
            let line = try readLine(stream, limit: HTTPAnswerReader.maxLineBytes)
            let digits = trimmed(line.prefix { $0 != ";" })
            guard !digits.isEmpty, digits.count <= 15, let size = Int(digits, radix: 16) else {
                throw .failed("chunk size \"\(line.prefix(40))\" is not hexadecimal")
            }
            if size == 0 { break }
            guard try read(stream, count: size, into: sink) == size else { throw .failed("the answer ended inside a chunk") }
            guard try readLine(stream, limit: 2).isEmpty else { throw .failed("a chunk not followed by CRLF") }
        }
        // Trailer fields, up to the empty line.
        var budget = HTTPAnswerReader.maxHeaderBytes
        while budget > 0 {
            let line = try readLine(stream, limit: HTTPAnswerReader.maxLineBytes)
            if line.isEmpty { return }
            budget -= line.utf8.count + 2
        }
        throw .failed("trailers longer than \(HTTPAnswerReader.maxHeaderBytes) bytes")
    }

    /// `text` without the spaces and tabs around it.
    private func trimmed(_ text: some StringProtocol) -> String {
        var s = Substring(text)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
