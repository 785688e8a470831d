/// An ICC profile (v2 or v4) read from untrusted bytes: the header, the tag table, and the
/// tags a conversion to sRGB needs (colorants, white point, `chad`, tone curves, `A2B0`/`A2B1`
/// LUTs, the description).
///
/// Policy: the header and every tag-table entry are checked against the declared profile size
/// before anything is read; a tag this reader uses must parse completely or the whole profile is
/// refused with an `ImageCodecError` (`.corrupt`, `.truncated`, `.unsupported` or
/// `.limitExceeded`). Tags it does not use are never looked at beyond their table entry.
public struct ICCProfile: Sendable {
    /// The profile/device class ('mntr', 'scnr', 'prtr', 'spac', ...).
    public let deviceClass: String
    /// The data colour space ('RGB ', 'GRAY', 'CMYK', ...).
    public let colourSpace: String
    /// 'XYZ ' or 'Lab '.
    public let pcs: String
    /// Major version (2 or 4).
    public let majorVersion: Int
    /// The `desc` text (v2 `desc` ASCII or v4 `mluc` first record), when present.
    public let description: String?
    /// The 16-byte profile ID (MD5) of v4 profiles; all zero when not computed.
    public let profileID: [UInt8]

    /// Matrix/TRC part: colorant columns (rXYZ, gXYZ, bXYZ), PCS-relative (D50).
    let colorants: Matrix3?
    /// rTRC, gTRC, bTRC (RGB) or the single kTRC (gray).
    let curves: [ToneCurve]
    /// The media white point (`wtpt`), when present.
    let mediaWhite: XYZ?
    /// The chromatic adaptation (`chad`) from the device white to D50, when present.
    let adaptation: Matrix3?
    /// `A2B1` (relative colorimetric) and `A2B0` (perceptual) LUTs, when present.
    let relativeLUT: ICCLut?
    let perceptualLUT: ICCLut?

    /// Largest profile accepted, in bytes (equal to the default metadata cap).
    public static let maxBytes = 8 << 20
    /// Most tag-table entries accepted.
    static let maxTags = 512

    public init(_ bytes: [UInt8]) throws {
        guard bytes.count <= ICCProfile.maxBytes else {
            throw ImageCodecError(.limitExceeded, "ICC profile of \(bytes.count) bytes is over the \(ICCProfile.maxBytes) byte limit")
        }
        let r = ICCReader(bytes)
        guard bytes.count >= 132 else { throw ImageCodecError(.truncated, "ICC profile of \(bytes.count) bytes is shorter than its header") }
        let size = try r.u32(0)
        guard size >= 132, size <= bytes.count else {
            throw ImageCodecError(size > bytes.count ? .truncated : .corrupt,
                                  "ICC profile declares \(size) bytes but has \(bytes.count)")
        }
        guard try r.signature(36) == "acsp" else { throw ImageCodecError(.corrupt, "ICC profile lacks the 'acsp' signature") }
        majorVersion = Int(bytes[8])
        guard majorVersion == 2 || majorVersion == 4 else {
            throw ImageCodecError(.unsupported, "ICC profile version \(majorVersion) is not 2 or 4")
        }
        deviceClass = try r.signature(12)
        colourSpace = try r.signature(16)
        pcs = try r.signature(20)
        guard pcs == "XYZ " || pcs == "Lab " else { throw ImageCodecError(.unsupported, "ICC profile PCS '\(pcs)' is not XYZ or Lab") }
        profileID = Array(bytes[84..<100])

        let count = try r.u32(128)
        guard count <= ICCProfile.maxTags, count <= (size - 132) / 12 else {
            throw ImageCodecError(.corrupt, "ICC tag count \(count) does not fit a \(size) byte profile")
        }
        var tags: [String: Range<Int>] = [:]
        for i in 0..<count {
            let entry = 132 + 12 * i
            let sig = try r.signature(entry)
            let offset = try r.u32(entry + 4), length = try r.u32(entry + 8)
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, offset >= 128, end <= size, length >= 8 else {
                throw ImageCodecError(.corrupt, "ICC tag '\(sig)' at \(offset)+\(length) lies outside the \(size) byte profile")
            }
            if tags[sig] == nil { tags[sig] = offset..<end }
        }
        let tagReader = ICCTagReader(reader: r)

        description = tags["desc"].flatMap { try? tagReader.text($0) }
        mediaWhite = try tags["wtpt"].map { try tagReader.xyz($0) }
        adaptation = try tags["chad"].map { try tagReader.matrix($0) }

        switch colourSpace {
        case "RGB ":
            if let rr = tags["rXYZ"], let gr = tags["gXYZ"], let br = tags["bXYZ"],
               let rt = tags["rTRC"], let gt = tags["gTRC"], let bt = tags["bTRC"] {
                let m = Matrix3(columns: try tagReader.xyz(rr), try tagReader.xyz(gr), try tagReader.xyz(br))
                guard m.values.allSatisfy({ abs($0) <= 8 }), m.inverse != nil else {
                    throw ImageCodecError(.corrupt, "ICC colorant matrix is singular or out of range")
                }
                colorants = m
                curves = [try tagReader.curve(rt), try tagReader.curve(gt), try tagReader.curve(bt)]
            } else {
                colorants = nil
                curves = []
            }
        case "GRAY":
            colorants = nil
            curves = try tags["kTRC"].map { [try tagReader.curve($0)] } ?? []
        default:
            colorants = nil
            curves = []
        }
        let inputs = ICCProfile.channels(colourSpace), connection = pcs
        relativeLUT = try tags["A2B1"].map { try tagReader.lut($0, inputs: inputs, pcs: connection) }
        perceptualLUT = try tags["A2B0"].map { try tagReader.lut($0, inputs: inputs, pcs: connection) }
        let hasLUT = tags["A2B1"] != nil || tags["A2B0"] != nil
        guard hasLUT || colorants != nil || !curves.isEmpty else {
            throw ImageCodecError(.unsupported, "ICC profile for '\(colourSpace)' has neither matrix/TRC tags nor an A2B LUT")
        }
    }

    /// Samples per pixel of an ICC data colour space we convert from; 0 for the others.
    static func channels(_ space: String) -> Int {
        switch space {
        case "GRAY": return 1
        case "RGB ": return 3
        case "CMYK": return 4
        default: return 0
        }
    }

    /// The LUT a relative colorimetric conversion uses, as lcms2 picks it: A2B1, else A2B0.
    var colorimetricLUT: ICCLut? { relativeLUT ?? perceptualLUT }

    /// True for a matrix/TRC RGB profile equal to sRGB within tolerance: colorants within 0.002
    /// of sRGB's D50 colorants and every curve within 1/512 of the sRGB curve (so an 8-bit
    /// conversion would change no sample by more than about half a level).
    public var isSRGB: Bool {
        guard colourSpace == "RGB ", let colorants, curves.count == 3, colorimetricLUT == nil,
              let srgb = Chromaticities.srgb.d50Colorants(), colorants.distance(to: srgb) < 0.002 else { return false }
        return curves.allSatisfy { $0.isClose(to: .srgb, tolerance: 1.0 / 512) }
    }

    /// A gray profile whose tone curve is the sRGB curve (an identity for gray pixels).
    var isSRGBGray: Bool {
        colourSpace == "GRAY" && colorimetricLUT == nil && curves.count == 1 && curves[0].isClose(to: .srgb, tolerance: 1.0 / 512)
    }
}

/// Bounds-checked big-endian reads from profile bytes; every failure is a typed error.
struct ICCReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    @inline(__always) func need(_ offset: Int, _ count: Int) throws {
        guard offset >= 0, count >= 0, offset <= bytes.count - count else {
            throw ImageCodecError(.truncated, "ICC data ends before byte \(offset + count)")
        }
    }

    func u8(_ o: Int) throws -> Int { try need(o, 1); return Int(bytes[o]) }
    func u16(_ o: Int) throws -> Int { try need(o, 2); return Int(bytes[o]) << 8 | Int(bytes[o + 1]) }
    func u32(_ o: Int) throws -> Int {
        try need(o, 4)
        return Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
    }
    /// s15Fixed16Number: always finite, in −32768 ..< 32768.
    func s15f16(_ o: Int) throws -> Double { Double(Int32(truncatingIfNeeded: try u32(o))) / 65536 }
    func signature(_ o: Int) throws -> String {
        try need(o, 4)
        return String(decoding: bytes[o..<(o + 4)], as: UTF8.self)
    }
}
