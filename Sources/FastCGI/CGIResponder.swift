#if canImport(Glibc)
import Glibc
#endif

/// Plain CGI: the request is the process environment and stdin, the answer goes to stdout.
struct CGIResponder {
    let handler: any FastCGIHandler
    let maxBodyBytes: Int

    func respond() -> Int32 {
        var params: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { params[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            cursor += 1
        }
        let declared = Int(params["CONTENT_LENGTH"] ?? "") ?? 0
        let response: FastCGIResponse
        if declared > maxBodyBytes {
            response = FastCGIResponse(status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                       body: Array("Request body too large\n".utf8))
        } else {
            response = handler.handle(FastCGIRequest(params: params, body: readStdin(declared)))
        }
        let ok = writeAll(response.encodedHead()) && (response.omitBody || writeAll(response.body))
        return ok ? 0 : 1
    }

    private func readStdin(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
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

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }
}
