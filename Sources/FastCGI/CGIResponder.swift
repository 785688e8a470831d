#if canImport(Glibc)
import Glibc
#endif

/// Plain CGI: the request is the process environment and stdin, the answer goes to stdout.
struct CGIResponder {
    let handler: any FastCGIHandler
    let maxBodyBytes: Int

    func respond() -> Int32 {
        let response = handler.answer(params: FastCGIRequest.parameters(from: environ), maxBodyBytes: maxBodyBytes,
                                      readBody: readStdin)
        defer { response.stream?.finished() }
        var ok = response.encodedHead().withUnsafeBytes { writeAll($0) }
        if ok && !response.omitBody {
            if let stream = response.stream {
                stream.produce { bytes in
                    ok = ok && writeAll(bytes)
                    return ok
                }
            } else {
                ok = response.body.withUnsafeBytes { writeAll($0) }
            }
        }
        return ok ? 0 : 1
    }

    private func readStdin(_ count: Int) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: count)
        let got = body.withUnsafeMutableBytes { raw -> Int in
            var total = 0
            while total < count {
                let n = read(0, raw.baseAddress! + total, count - total)
                if n <= 0 { break }
                total += n
            }
            return total
        }
        body.removeSubrange(got...)
        return body
    }

    private func writeAll(_ raw: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < raw.count {
            let n = write(1, raw.baseAddress! + offset, raw.count - offset)
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
}
