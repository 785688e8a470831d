/// The WebP container (RIFF): `RIFF` size `WEBP`, then chunks of a 4-byte tag, a 32-bit
/// little-endian size and the payload padded to an even length. A plain lossy file is one
/// `VP8 ` chunk; a file with alpha is `VP8X` (feature flags and canvas size), `ALPH`, `VP8 `.
enum RIFFWriter {
    /// A complete file from the VP8 frame and, when the image has transparency, the `ALPH`
    /// payload (its header byte and the compressed alpha).
    static func file(width: Int, height: Int, vp8: [UInt8], alpha: [UInt8]?) -> [UInt8] {
        var body: [UInt8] = Array("WEBP".utf8)
        if let alpha {
            var extended = [UInt8](repeating: 0, count: 10)
            extended[0] = 0x10 // the alpha flag
            putUInt24(&extended, at: 4, width - 1)
            putUInt24(&extended, at: 7, height - 1)
            appendChunk(&body, "VP8X", extended)
            appendChunk(&body, "ALPH", alpha)
        }
        appendChunk(&body, "VP8 ", vp8)
        var out: [UInt8] = Array("RIFF".utf8)
        out.reserveCapacity(body.count + 8)
        appendUInt32(&out, body.count)
        out.append(contentsOf: body)
        return out
    }

    private static func appendChunk(_ out: inout [UInt8], _ tag: String, _ payload: [UInt8]) {
        out.append(contentsOf: Array(tag.utf8))
        appendUInt32(&out, payload.count)
        out.append(contentsOf: payload)
        if payload.count & 1 == 1 { out.append(0) }
    }

    private static func appendUInt32(_ out: inout [UInt8], _ v: Int) {
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    private static func putUInt24(_ out: inout [UInt8], at i: Int, _ v: Int) {
        for k in 0..<3 { out[i + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) }
    }
}
