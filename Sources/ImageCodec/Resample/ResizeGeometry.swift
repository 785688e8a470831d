/// How a displayed image is fitted to the size a page asks for.
public enum ResizeMode: Sendable, Hashable {
    /// Longest edge at most `maxEdge`, aspect ratio kept.
    case fit(maxEdge: Int)
    /// Fill exactly `width` × `height`, cropping the overflow around the centre.
    case cover(width: Int, height: Int)
}

/// The result of fitting a source size to a `ResizeMode`: scale to `scaledWidth` ×
/// `scaledHeight`, then crop `crop` (for cover) to reach `outputWidth` × `outputHeight`.
public struct ResizePlan: Sendable, Equatable {
    public var scaledWidth: Int
    public var scaledHeight: Int
    public var cropX: Int
    public var cropY: Int
    public var outputWidth: Int
    public var outputHeight: Int

    public init(scaledWidth: Int, scaledHeight: Int, cropX: Int, cropY: Int, outputWidth: Int, outputHeight: Int) {
        self.scaledWidth = scaledWidth
        self.scaledHeight = scaledHeight
        self.cropX = cropX
        self.cropY = cropY
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
    }
}

extension ResizeMode {
    /// Plans the resize of a `width` × `height` (already oriented) source. Without
    /// `allowUpscale`, a source smaller than the target keeps its size (cover then crops
    /// what it can).
    public func plan(width: Int, height: Int, allowUpscale: Bool = false) -> ResizePlan {
        fatalError("ResizeMode.plan is not built yet")
    }
}
