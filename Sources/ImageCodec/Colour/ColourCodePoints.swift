/// A colour space named by ITU-T H.273 code points, as HEIF `colr`/`nclx`, a video stream's VUI
/// or PNG `cICP` carry it, instead of an ICC profile.
public struct ColourCodePoints: Sendable, Equatable, Hashable {
    /// colour_primaries: 1 BT.709/sRGB, 9 BT.2020, 12 Display P3 (SMPTE EG 432-1), 2 unspecified, ...
    public var primaries: Int
    /// transfer_characteristics: 13 sRGB, 1/6/14/15 BT.709-like, 8 linear, 16 PQ, 18 HLG, 2 unspecified, ...
    public var transfer: Int
    /// matrix_coefficients: 0 identity (RGB), 1 BT.709, 5/6 BT.601, 9 BT.2020 NCL, 2 unspecified, ...
    public var matrix: Int
    /// Full-range samples (true) or limited "video" range (false).
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }
}
