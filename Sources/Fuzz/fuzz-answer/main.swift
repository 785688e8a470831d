import ImagePipeline

// libFuzzer entry point for the HTTP/1.1 answer framing both of our clients trust with bytes from
// the network (originals from an origin server, the warmer's pages). This file must hold
// declarations only: top-level statements would make Swift emit its own `main` and the fuzzer
// would silently never run (docs/toolchain.md "Fuzzing").

/// The input as a peer would send it, cut into the pieces the first byte chooses: each
/// `receive` hands over at most that many bytes (1 to 256), so every line and chunk boundary
/// falls across reads somewhere in the corpus.
final class FuzzedAnswerStream: HTTPByteStream {
    private let bytes: [UInt8]
    private var position = 1
    private let piece: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        piece = bytes.isEmpty ? 1 : Int(bytes[0]) + 1
    }

    func receive(into buffer: inout [UInt8], from offset: Int) throws(HTTPTransferError) -> Int {
        let n = min(piece, bytes.count - max(position, 0), buffer.count - offset)
        guard n > 0 else { return 0 }
        buffer.replaceSubrange(offset..<offset + n, with: bytes[position..<position + n])
        position += n
        return n
    }
}

/// Reads answers one after another as a kept-alive connection would, until the stream ends
/// or an answer is refused. A refusal must be an `HTTPTransferError` (the type says so); what
/// is checked here is that no answer hands over more body than its Content-Length says, that
/// the kept body stays bounded as the clients bound it, and that nothing traps or hangs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let stream = FuzzedAnswerStream(Array(UnsafeBufferPointer(start: data, count: size)))
    var reader = HTTPAnswerReader()
    let keepLimit = 1 << 20
    for _ in 0..<64 {
        do {
            let head = try reader.readHead(stream)
            precondition((200...599).contains(head.status), "a final answer with status \(head.status)")
            var kept = 0
            let toTheClose = try reader.readBody(stream, status: head.status, headers: head.headers) { piece throws(HTTPTransferError) in
                kept += piece.count
                if kept > keepLimit { throw .failed("body over the limit") }
            }
            if let text = head.headers["content-length"], head.headers["transfer-encoding"] == nil,
               head.status != 204, head.status != 304, let length = Int(text.trimmingSpaces()) {
                precondition(kept == length, "Content-Length \(length), \(kept) bytes handed over")
            }
            if toTheClose { return 0 }
        } catch {
            return 0
        }
    }
    return 0
}

extension String {
    /// Without the spaces and tabs around it, as the reader trims field values.
    func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
