import CZlib
import ImageCodec

/// Our `Inflate` against zlib's `inflate` on the same bytes and output size: both must end the
/// same way (complete, truncated, output full, or refused) with the same bytes written. Shared
/// by `fuzz-inflate` and the tests.
public enum InflateDifferential {
    /// How a decoder ended and how many bytes it wrote.
    public enum Outcome: Equatable, Sendable {
        case complete(Int), truncated(Int), full, failed
    }

    /// A fuzz input: byte 0 picks the wrapper (bit 0: raw) and Adler checking (bit 1: skip),
    /// bytes 1-2 the output capacity (big endian, plus 1); the rest is the stream.
    public static func check(fuzzInput data: UnsafeBufferPointer<UInt8>) -> String? {
        guard data.count >= 3 else { return nil }
        let raw = data[0] & 1 != 0, skipAdler = data[0] & 2 != 0
        let capacity = (Int(data[1]) << 8 | Int(data[2])) + 1
        let stream = UnsafeBufferPointer(rebasing: data[3...])
        return disagreement(stream, capacity: capacity, raw: raw, checkAdler: !skipAdler)
    }

    /// nil when ours and zlib agree on `stream` inflated into `capacity` bytes, else why not.
    /// With `checkAdler: false` zlib's checksum failure is the only difference allowed.
    public static func disagreement(_ stream: UnsafeBufferPointer<UInt8>, capacity: Int, raw: Bool,
                                    checkAdler: Bool = true) -> String? {
        let ours = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        let theirs = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { ours.deallocate(); theirs.deallocate() }
        ours.initialize(repeating: 0xA5, count: capacity)
        theirs.initialize(repeating: 0x5A, count: capacity)
        var a = inflateOurs(stream, into: ours, capacity: capacity, raw: raw, checkAdler: checkAdler)
        var b = inflateZlib(stream, into: theirs, capacity: capacity, raw: raw)
        if !checkAdler, b.outcome == .failed, b.checksumOnly, case .complete = a { b.outcome = a }
        // Input and output ending together is "full" for zlib (avail_out is 0), "truncated"
        // for us when the next symbol was the one cut: the same stop, the same bytes.
        if a == .truncated(capacity) { a = .full }
        guard a == b.outcome else { return "ours \(a), zlib \(b.outcome)" }
        let n: Int
        switch a {
        case .complete(let k), .truncated(let k): n = k
        case .full: n = capacity
        case .failed: n = 0
        }
        for i in 0..<n where ours[i] != theirs[i] { return "byte \(i) of \(n) differs: ours \(ours[i]), zlib \(theirs[i])" }
        return nil
    }

    public static func inflateOurs(_ stream: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                                   capacity: Int, raw: Bool, checkAdler: Bool = true) -> Outcome {
        do {
            let n = raw ? try Inflate.raw(stream, into: out, capacity: capacity)
                        : try Inflate.zlib(stream, into: out, capacity: capacity, checkAdler: checkAdler)
            return .complete(n)
        } catch {
            switch error {
            case .truncated(let produced): return .truncated(produced)
            case .outputFull: return .full
            default: return .failed
            }
        }
    }

    /// zlib with a 32 KiB window, fed everything at once, called until it stops progressing.
    public static func inflateZlib(_ stream: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                                   capacity: Int, raw: Bool) -> (outcome: Outcome, checksumOnly: Bool) {
        let z = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        z.initialize(to: z_stream())
        defer { inflateEnd(z); z.deinitialize(count: 1); z.deallocate() }
        guard czlib_inflateInit2(z, raw ? -15 : 15) == Z_OK else { return (.failed, false) }
        z.pointee.next_in = stream.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
        z.pointee.avail_in = UInt32(stream.count)
        z.pointee.next_out = out
        z.pointee.avail_out = UInt32(capacity)
        var status = Z_OK
        while true {
            let before = (z.pointee.avail_in, z.pointee.avail_out)
            status = inflate(z, Z_NO_FLUSH)
            if status != Z_OK || (z.pointee.avail_in, z.pointee.avail_out) == before { break }
        }
        let produced = capacity - Int(z.pointee.avail_out)
        switch status {
        case Z_STREAM_END: return (.complete(produced), false)
        case Z_OK, Z_BUF_ERROR: return (z.pointee.avail_out == 0 ? .full : .truncated(produced), false)
        default:
            let message = z.pointee.msg.map { String(cString: $0) } ?? ""
            return (.failed, message == "incorrect data check")
        }
    }
}
