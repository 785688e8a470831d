/// The WebP container (RIFF): `RIFF` size `WEBP`, then chunks of a 4-byte tag, a 32-bit
/// little-endian size and the payload padded to an even length. A plain lossy file is one
/// `VP8 ` chunk; a file with alpha or a colour profile is `VP8X` (feature flags and canvas
/// size), then `ICCP`, `ALPH`, `VP8 ` in the order the WebP container specification requires.
enum RIFFWriter {
    /// VP8X feature flags (WebP container specification, "Extended file format").
    static let iccFlag: UInt8 = 0x20
    static let alphaFlag: UInt8 = 0x10

    /// A complete file from the VP8 frame and, when the image has transparency, the `ALPH`
    /// payload (its header byte and the compressed alpha); `iccProfile` goes into an `ICCP` chunk.
    static func file(width: Int, height: Int, vp8: [UInt8], alpha: [UInt8]?, iccProfile: [UInt8]? = nil) -> [UInt8] {
        var body: [UInt8] = Array("WEBP".utf8)
        let icc = iccProfile.flatMap { $0.isEmpty ? nil : $0 }
        if alpha != nil || icc != nil {
            var extended = [UInt8](repeating: 0, count: 10)
            if alpha != nil { extended[0] |= alphaFlag }
            if icc != nil { extended[0] |= iccFlag }
            putUInt24(&extended, at: 4, width - 1)
            putUInt24(&extended, at: 7, height - 1)
            appendChunk(&body, "VP8X", extended)
            if let icc { appendChunk(&body, "ICCP", icc) }
            if let alpha { appendChunk(&body, "ALPH", alpha) }
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
