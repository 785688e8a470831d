import CZlib

/// A zlib stream in stable heap memory. zlib's state keeps a pointer back to its `z_stream`
/// and refuses calls from any other address, so the struct must never move: a Swift `var`
/// passed with `&` may be a temporary copy, a heap allocation cannot.
final class ZlibStream {
    enum Mode { case inflate, deflate(level: Int) }

    let stream: UnsafeMutablePointer<z_stream>
    private let mode: Mode

    init(_ mode: Mode) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.mode = mode
        let status: Int32
        switch mode {
        case .inflate:
            status = czlib_inflateInit(stream)
        case .deflate(let level):
            status = czlib_deflateInit2(stream, Int32(level), Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY)
        }
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ImageCodecError(.limitExceeded, "zlib could not start (status \(status))")
        }
    }

    deinit {
        switch mode {
        case .inflate: inflateEnd(stream)
        case .deflate: deflateEnd(stream)
        }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Points zlib's input at `count` bytes; they must stay valid until consumed.
    func setInput(_ base: UnsafePointer<UInt8>, count: Int) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
        stream.pointee.avail_in = UInt32(count)
    }

    /// Points zlib's output at `count` free bytes.
    func setOutput(_ base: UnsafeMutablePointer<UInt8>, count: Int) {
        stream.pointee.next_out = base
        stream.pointee.avail_out = UInt32(count)
    }

    var availableIn: Int { Int(stream.pointee.avail_in) }
    var availableOut: Int { Int(stream.pointee.avail_out) }

    /// zlib's message for the last error, or the status number.
    func describe(_ status: Int32) -> String {
        if let msg = stream.pointee.msg { return String(cString: msg) }
        return "zlib status \(status)"
    }

    /// Inflates a whole zlib stream held in memory, stopping with nil as soon as the output
    /// would pass `cap` bytes, so a small compressed chunk can never claim much memory.
    static func inflateCapped(_ input: UnsafeBufferPointer<UInt8>, cap: Int) throws -> [UInt8]? {
        guard let base = input.baseAddress, input.count > 0 else { return nil }
        let z = try ZlibStream(.inflate)
        z.setInput(base, count: input.count)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let status: Int32 = chunk.withUnsafeMutableBufferPointer { buf in
                // The buffer is non-empty, so baseAddress exists.
                z.setOutput(buf.baseAddress!, count: buf.count)
                return inflate(z.stream, Z_NO_FLUSH)
            }
            let produced = chunk.count - z.availableOut
            guard out.count + produced <= cap else { return nil }
            out.append(contentsOf: chunk[0..<produced])
            if status == Z_STREAM_END { return out }
            // Z_OK means progress; anything else (bad data, input ended early) drops the chunk.
            guard status == Z_OK else { return nil }
        }
    }
}
