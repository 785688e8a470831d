/// Human names of source colour spaces, for the facts a photo page shows.
extension ImageInfo {
    /// The colour space the file declares, as a person would name it: "sRGB", "Display P3",
    /// "Adobe RGB", "ProPhoto RGB", "BT.2020" (recognised from the primaries of an ICC
    /// matrix profile, H.273 code points or PNG cHRM), else the ICC profile's own description
    /// ("Coated FOGRA39", ...), else "Gray" / "CMYK" / "Custom RGB". nil when the file declares
    /// nothing (its pixels are then taken as sRGB). Parses the profile on each call (a few
    /// microseconds): cache the answer if it is needed per request.
    public var colourSpaceName: String? {
        if let cp = codePoints {
            switch cp.primaries {
            case 1, 2: return "sRGB"
            case 9: return "BT.2020"
            case 11: return "DCI-P3"
            case 12: return "Display P3"
            case 5, 6, 7: return "BT.601"
            default: return "H.273 primaries \(cp.primaries)"
            }
        }
        if let bytes = iccProfile {
            guard let p = try? ICCProfile(bytes) else { return "Unreadable ICC profile" }
            if let m = p.colorants, p.colourSpace == "RGB ", let known = ColourSpaceNames.match(m) { return known }
            if let d = p.description, !d.isEmpty { return d }
            switch p.colourSpace {
            case "GRAY": return "Gray"
            case "CMYK": return "CMYK"
            default: return "Custom RGB"
            }
        }
        if srgbIntent != nil { return "sRGB" }
        if let c = chromaticities { return c.d50Colorants().flatMap(ColourSpaceNames.match) ?? "Custom RGB" }
        return nil
    }
}

enum ColourSpaceNames {
    static let known: [(String, Matrix3)] = [
        ("sRGB", Chromaticities.srgb), ("Display P3", .displayP3), ("Adobe RGB", .adobeRGB),
        ("ProPhoto RGB", .proPhotoRGB), ("BT.2020", .bt2020), ("DCI-P3", .dciP3),
    ].compactMap { name, c in c.d50Colorants().map { (name, $0) } }

    /// The named space whose D50 colorants are within 0.005 of `m`.
    static func match(_ m: Matrix3) -> String? {
        known.first { $0.1.distance(to: m) < 0.005 }?.0
    }
}
