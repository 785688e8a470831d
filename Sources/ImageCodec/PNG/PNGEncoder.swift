/// PNG encoder (placeholder until the encoder work lands).
public enum PNGEncoder {
    /// Encodes an 8-bit bitmap as PNG; `compressionLevel` is zlib's 0...9.
    public static func encode(_ bitmap: Bitmap, compressionLevel: Int = 6) throws -> [UInt8] {
        throw ImageCodecError(.unsupported, "PNG encoding is not built yet")
    }
}
