/// What colour space rendered images are sent in.
public enum ColourOutput: String, Sendable, CaseIterable {
    /// Everything converted to sRGB, sent without a profile (the default: every browser and
    /// viewer shows it right).
    case srgb
    /// Sources wider than sRGB are kept in Display P3 and sent with a compact embedded P3
    /// profile; the rest is sRGB as with `.srgb`.
    case wide
}

/// A conversion from one source colour space to sRGB (or Display P3), built once per source and
/// applied to 8-bit pixels through tables: per-channel linearisation, a 3×3 matrix and an
/// encoding table for matrix/TRC sources; a sampled `DeviceLink` for LUT-based (and CMYK)
/// sources; one 256-entry table for gray. Rendering intent: relative colorimetric, colours
/// outside the destination are clipped per channel, no black point compensation (lcms2's
/// `cmsCreateTransform(..., INTENT_RELATIVE_COLORIMETRIC, 0)`).
///
/// Cost per pixel (release build): matrix/TRC about 3 ns, device link about 10 ns (CMYK about
/// twice that); building one takes well under a millisecond for matrix/TRC and tens of
/// milliseconds for a CMYK LUT, so callers keep built transforms (`ColourStage` caches them).
public final class ColourTransform: Sendable {
    /// The colour space of converted pixels.
    public enum Destination: String, Sendable { case srgb = "sRGB", displayP3 = "Display P3" }

    public let destination: Destination
    /// Samples per pixel the source model reads: 1 (gray), 3 (RGB) or 4 (CMYK).
    public let sourceChannels: Int
    private let kernel: Kernel

    private enum Kernel: Sendable {
        /// 3×256 linear values, a row-major 3×3 matrix, and `encodeSize` encoded values.
        case matrix(linear: [Float], matrix: [Float], encode: [UInt8])
        case gray([UInt8])
        case link(DeviceLink)
    }

    /// Entries of the linear → 8-bit encoding table: fine enough that the steep start of the
    /// sRGB curve loses less than 0.1 of a level.
    static let encodeSize = 16_384

    /// The profile to embed with converted pixels: nil for sRGB (sent untagged), our compact
    /// Display P3 profile otherwise.
    public var outputProfile: [UInt8]? { destination == .displayP3 ? DisplayP3Profile.bytes : nil }

    /// Our compact ICC v4 Display P3 profile (492 bytes), as `.wide` renders embed it.
    public static var displayP3Profile: [UInt8] { DisplayP3Profile.bytes }

    /// Whether this transform reads CMYK (it then runs inside the JPEG decoder, see
    /// `ImageCodec.decode(_:scale:limits:cmyk:)`).
    public var convertsCMYK: Bool { sourceChannels == 4 }

    /// The transform for the image `info` describes, or nil when its pixels are already sRGB
    /// (an sRGB profile, the sRGB chunk, or nothing at all). Throws (`.corrupt`,
    /// `.unsupported`, `.limitExceeded`, `.truncated`) for a profile or chunk we cannot use,
    /// or one that does not fit the image's channels; callers then show the pixels unconverted.
    public static func make(for info: ImageInfo, output: ColourOutput = .srgb) throws -> ColourTransform? {
        guard let source = try ColourSource.of(info) else { return nil }
        let imageChannels: Int
        switch info.colorSpace {
        case "Gray", "GrayAlpha": imageChannels = 1
        case "CMYK", "YCCK": imageChannels = 4
        default: imageChannels = 3
        }
        guard source.channels == imageChannels else {
            throw ImageCodecError(.corrupt, "colour profile for \(source.channels) channels on a \(info.colorSpace) image")
        }
        return try ColourTransform(source: source, output: output)
    }

    /// A transform for an ICC profile alone (tests, tools). nil for sRGB profiles.
    public static func make(profile: [UInt8], output: ColourOutput = .srgb) throws -> ColourTransform? {
        guard let source = try ColourSource.of(profile: try ICCProfile(profile)) else { return nil }
        return try ColourTransform(source: source, output: output)
    }

    init(source: ColourSource, output: ColourOutput) throws {
        sourceChannels = source.channels
        switch source {
        case .gray(let curve):
            destination = .srgb
            kernel = .gray((0..<256).map { UInt8(nearest(linearToSRGB(curve.evaluate(Double($0) / 255)) * 255)) })
        case .matrixTRC(let colorants, let curves):
            var dest = Destination.srgb
            guard var m = ColourTransform.matrix(from: colorants, to: dest) else {
                throw ImageCodecError(.corrupt, "colour matrix cannot be inverted")
            }
            if output == .wide, ColourTransform.isWide(m) {
                dest = .displayP3
                guard let p3 = ColourTransform.matrix(from: colorants, to: dest) else {
                    throw ImageCodecError(.corrupt, "colour matrix cannot be inverted")
                }
                m = p3
            }
            destination = dest
            var linear = [Float](repeating: 0, count: 768)
            for c in 0..<3 { for i in 0..<256 { linear[c * 256 + i] = Float(curves[c].evaluate(Double(i) / 255)) } }
            kernel = .matrix(linear: linear, matrix: m.values.map { Float($0) }, encode: ColourTransform.encodeTable)
        case .lut(let lut):
            var dest = Destination.srgb
            if output == .wide, ColourTransform.lutIsWide(lut) { dest = .displayP3 }
            destination = dest
            guard let toRGB = ColourTransform.destinationColorants(dest).inverse else {
                throw ImageCodecError(.corrupt, "destination matrix cannot be inverted")
            }
            if lut.inputs == 1 {
                kernel = .gray((0..<256).map { UInt8(nearest(linearToSRGB(lut.evaluate([Double($0) / 255]).y) * 255)) })
            } else {
                let points = lut.inputs == 4 ? 17 : 33
                kernel = .link(DeviceLink(inputs: lut.inputs, points: points) { v in
                    let rgb = toRGB * lut.evaluate(v)
                    return (encodeFast(rgb.x), encodeFast(rgb.y), encodeFast(rgb.z))
                })
            }
        }
    }

    /// Converts the colour samples of `bitmap` in place (alpha untouched). Throws
    /// `.invalidArgument` when the bitmap's layout does not fit the source (a gray bitmap for
    /// an RGB profile, or a CMYK transform, which only the JPEG decoder runs).
    public func apply(to bitmap: inout Bitmap) throws {
        let gray = bitmap.layout == .gray || bitmap.layout == .grayAlpha
        guard sourceChannels != 4, gray == (sourceChannels == 1) else {
            throw ImageCodecError(.invalidArgument, "colour transform for \(sourceChannels) channels on a \(bitmap.layout) bitmap")
        }
        let channels = bitmap.channels, count = bitmap.width * bitmap.height
        bitmap.pixels.withUnsafeMutableBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return }
            switch kernel {
            case .gray(let table):
                table.withUnsafeBufferPointer { t in
                    var o = p
                    for _ in 0..<count { o[0] = t[Int(o[0])]; o += channels }
                }
            case .matrix(let linear, let matrix, let encode):
                ColourTransform.applyMatrix(p, count: count, channels: channels, linear: linear, matrix: matrix, encode: encode)
            case .link(let link):
                link.applyRGB(p, count: count, channels: channels)
            }
        }
    }

    /// CMYK planes (as libjpeg outputs them; `inverted` for Adobe's 0 = full ink) → RGB.
    func convertCMYK(c: UnsafePointer<UInt8>, m: UnsafePointer<UInt8>, y: UnsafePointer<UInt8>, k: UnsafePointer<UInt8>,
                     count: Int, inverted: Bool, _ out: UnsafeMutablePointer<UInt8>) {
        guard case .link(let link) = kernel, link.inputs == 4 else { return }
        link.applyCMYK(c: c, m: m, y: y, k: k, count: count, inverted: inverted, out)
    }

    private static func applyMatrix(_ p: UnsafeMutablePointer<UInt8>, count: Int, channels: Int,
                                    linear: [Float], matrix: [Float], encode: [UInt8]) {
        linear.withUnsafeBufferPointer { lb in
            encode.withUnsafeBufferPointer { eb in
                guard let lin = lb.baseAddress, let enc = eb.baseAddress else { return }
                let m0 = matrix[0], m1 = matrix[1], m2 = matrix[2], m3 = matrix[3], m4 = matrix[4]
                let m5 = matrix[5], m6 = matrix[6], m7 = matrix[7], m8 = matrix[8]
                let scale = Float(encodeSize - 1)
                @inline(__always) func index(_ v: Float) -> Int {
                    Int(min(max(v, 0), 1) * scale + 0.5)
                }
                var o = p
                for _ in 0..<count {
                    let r = lin[Int(o[0])], g = lin[256 &+ Int(o[1])], b = lin[512 &+ Int(o[2])]
                    o[0] = enc[index(m0 * r + m1 * g + m2 * b)]
                    o[1] = enc[index(m3 * r + m4 * g + m5 * b)]
                    o[2] = enc[index(m6 * r + m7 * g + m8 * b)]
                    o += channels
                }
            }
        }
    }

    /// Linear 0...1 → 8-bit sRGB-encoded value, `encodeSize` entries.
    private static let encodeTable: [UInt8] = (0..<encodeSize).map {
        UInt8(nearest(linearToSRGB(Double($0) / Double(encodeSize - 1)) * 255))
    }

    /// PCS (D50) colorants of the destination: sRGB's and Display P3's, both Bradford-adapted.
    static func destinationColorants(_ d: Destination) -> Matrix3 {
        switch d {
        case .srgb: return srgbColorants
        case .displayP3: return DisplayP3Profile.colorants
        }
    }

    private static let srgbColorants = Chromaticities.srgb.d50Colorants() ?? .identity

    /// Source linear RGB → destination linear RGB.
    private static func matrix(from colorants: Matrix3, to d: Destination) -> Matrix3? {
        destinationColorants(d).inverse.map { $0 * colorants }
    }

    /// A source is wider than sRGB when one of its primaries needs a negative sRGB amount
    /// beyond rounding (Adobe RGB's green is about −0.4 red in sRGB).
    private static func isWide(_ toSRGB: Matrix3) -> Bool {
        toSRGB.values.contains { $0 < -0.01 }
    }

    /// The same test on a 9-point grid of the LUT's device values.
    private static func lutIsWide(_ lut: ICCLut) -> Bool {
        guard let toRGB = srgbColorants.inverse else { return false }
        let points = 9
        var total = 1
        for _ in 0..<lut.inputs { total *= points }
        var v = [Double](repeating: 0, count: lut.inputs)
        for n in 0..<total {
            var rest = n
            for axis in 0..<lut.inputs { v[axis] = Double(rest % points) / Double(points - 1); rest /= points }
            let rgb = toRGB * lut.evaluate(v)
            if min(rgb.x, rgb.y, rgb.z) < -0.02 { return true }
        }
        return false
    }
}

/// Linear → sRGB-encoded (0...1) through a 4,097-entry table with linear interpolation: accurate
/// to about 1e-5, and much cheaper than the power function while device links are sampled.
private let encodeFineTable: [Double] = (0...4096).map { linearToSRGB(Double($0) / 4096) }

func encodeFast(_ l: Double) -> Double {
    let v = min(max(l.isNaN ? 0 : l, 0), 1) * 4096
    let i = min(Int(v), 4095)
    let f = v - Double(i)
    return encodeFineTable[i] + (encodeFineTable[i + 1] - encodeFineTable[i]) * f
}
