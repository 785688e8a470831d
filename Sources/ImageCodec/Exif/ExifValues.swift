/// A TIFF RATIONAL: two unsigned 32-bit integers. Kept as the fraction the camera wrote, so
/// an exposure of 1/120 s is shown as such rather than as a rounded decimal. The denominator
/// is never zero (a zero one makes the field absent), so `value` is always finite.
public struct ExifRational: Sendable, Equatable, Hashable {
    public let numerator: UInt32
    public let denominator: UInt32

    /// nil when `denominator` is 0 (EXIF's "unknown").
    public init?(numerator: UInt32, denominator: UInt32) {
        guard denominator != 0 else { return nil }
        self.numerator = numerator
        self.denominator = denominator
    }

    public var value: Double { Double(numerator) / Double(denominator) }
}

/// A position from the GPS IFD, in the WGS 84 degrees GPS receivers report.
public struct GPSPosition: Sendable, Equatable, Hashable {
    /// Degrees north (negative: south), -90...90.
    public var latitude: Double
    /// Degrees east (negative: west), -180...180.
    public var longitude: Double
    /// Metres above sea level (negative: below); nil when the file has none.
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}
