/// Separable resampling (placeholder until the resampler work lands).
public enum Resampler {
    /// Resizes to exactly `width` × `height`.
    public static func resize(_ bitmap: Bitmap, width: Int, height: Int) throws -> Bitmap {
        throw ImageCodecError(.unsupported, "resampling is not built yet")
    }
}
