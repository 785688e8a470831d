import CFastCGI

/// Reads one accepted request from libfcgi's streams and writes the handler's answer back.
struct FastCGIExchange {
    let request: UnsafeMutablePointer<FCGX_Request>
    let maxBodyBytes: Int

    func serve(with handler: any FastCGIHandler) {
        write(handler.answer(params: FastCGIRequest.parameters(from: request.pointee.envp), maxBodyBytes: maxBodyBytes,
                             readBody: readBody(upTo:)))
    }

    private func readBody(upTo count: Int) -> [UInt8] {
        guard let input = request.pointee.in else { return [] }
        var body = [UInt8](repeating: 0, count: count)
        let got = body.withUnsafeMutableBufferPointer { buf -> Int in
            var total = 0
            while total < count {
                let n = buf.baseAddress!.advanced(by: total).withMemoryRebound(to: CChar.self, capacity: count - total) {
                    FCGX_GetStr($0, Int32(count - total), input)
                }
                if n <= 0 { break }
                total += Int(n)
            }
            return total
        }
        body.removeSubrange(got...)
        return body
    }

    private func write(_ response: FastCGIResponse) {
        defer { response.stream?.finished() }
        guard let out = request.pointee.out else { return }
        let head = response.encodedHead()
        let headSent = head.withUnsafeBytes { put($0, to: out) }
        guard headSent, !response.omitBody else { return }
        if let stream = response.stream {
            stream.produce { put($0, to: out) }
        } else {
            _ = response.body.withUnsafeBytes { put($0, to: out) }
        }
    }

    /// Writes all of `bytes`; false when the web server's connection failed.
    private func put(_ bytes: UnsafeRawBufferPointer, to stream: UnsafeMutablePointer<FCGX_Stream>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        // FCGX_PutStr takes an Int32 length: write large bodies in bounded pieces.
        while offset < bytes.count {
            let n = min(bytes.count - offset, 1 << 20)
            let wrote = (base + offset).withMemoryRebound(to: CChar.self, capacity: n) { FCGX_PutStr($0, Int32(n), stream) }
            if wrote != Int32(n) { return false }
            offset += n
        }
        return true
    }
}
