/// Baseline JPEG encoder (placeholder until the encoder work lands).
public enum JPEGEncoder {
    /// Chroma subsampling of the output.
    public enum Subsampling: String, Sendable { case s420 = "4:2:0", s444 = "4:4:4" }

    /// Encodes `bitmap` (gray or RGB; alpha is dropped) at `quality` 1...100.
    public static func encode(_ bitmap: Bitmap, quality: Int = 82, subsampling: Subsampling = .s420,
                              optimizeHuffman: Bool = false) throws -> [UInt8] {
        throw ImageCodecError(.unsupported, "JPEG encoding is not built yet")
    }
}
