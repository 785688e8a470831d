/// Where an image says its numbers live, reduced to one of three models a conversion can be
/// built from. Precedence follows the PNG 3rd edition rules, which also fit JPEG and HEIF:
/// H.273 code points (cICP / nclx), then the ICC profile, then PNG sRGB, then cHRM + gAMA.
/// Untagged images are sRGB.
enum ColourSource: Sendable {
    /// RGB through three tone curves and a colorant matrix to PCS XYZ (D50).
    case matrixTRC(Matrix3, [ToneCurve])
    /// One channel through a tone curve to the PCS luminance (a neutral gray).
    case gray(ToneCurve)
    /// An ICC AToB LUT (RGB or CMYK in).
    case lut(ICCLut)

    /// Device channels the source model reads (1, 3 or 4).
    var channels: Int {
        switch self {
        case .matrixTRC: return 3
        case .gray: return 1
        case .lut(let l): return l.inputs
        }
    }

    /// The source model `info` describes, or nil when it is sRGB (tagged or assumed): nothing
    /// to convert. Throws for profiles or code points we cannot use (callers fall back to no
    /// colour management for that image).
    static func of(_ info: ImageInfo) throws -> ColourSource? {
        if let cp = info.codePoints { return try of(codePoints: cp) }
        if let icc = info.iccProfile { return try of(profile: try ICCProfile(icc)) }
        if info.srgbIntent != nil { return nil }
        if let c = info.chromaticities {
            guard let m = c.d50Colorants() else { throw ImageCodecError(.corrupt, "PNG cHRM values do not describe a colour space") }
            let curve = try gammaCurve(info.gamma, snapToSRGB: false) ?? .srgb
            return reduced(.matrixTRC(m, [curve, curve, curve]))
        }
        if let curve = try gammaCurve(info.gamma, snapToSRGB: true) {
            let gray = info.colorSpace == "Gray" || info.colorSpace == "GrayAlpha"
            // Only the tone curve is known: keep sRGB's primaries.
            return reduced(gray ? .gray(curve) : .matrixTRC(Chromaticities.srgb.d50Colorants() ?? .identity, [curve, curve, curve]))
        }
        return nil
    }

    static func of(profile p: ICCProfile) throws -> ColourSource? {
        if p.isSRGB || p.isSRGBGray { return nil }
        let needed = ICCProfile.channels(p.colourSpace)
        guard needed > 0 else { throw ImageCodecError(.unsupported, "ICC colour space '\(p.colourSpace)' is not converted") }
        // lcms2 prefers the LUT when a profile has both (relative colorimetric: A2B1, else A2B0).
        if let lut = p.colorimetricLUT { return .lut(lut) }
        if needed == 3, let m = p.colorants, p.curves.count == 3 { return .matrixTRC(m, p.curves) }
        if needed == 1, p.curves.count == 1 { return .gray(p.curves[0]) }
        throw ImageCodecError(.unsupported, "ICC profile for '\(p.colourSpace)' has no usable transform")
    }

    /// H.273: primaries 1 (BT.709/sRGB), 4-7, 9 (BT.2020), 11/12 (P3), 22 (EBU 3213); transfer
    /// 13 (sRGB), 1/6/14/15 (BT.709-family camera curves: decoded as sRGB, as browsers show
    /// such stills), 4 (γ 2.2), 5 (γ 2.8), 8 (linear); 2 = unspecified means sRGB's.
    static func of(codePoints cp: ColourCodePoints) throws -> ColourSource? {
        let curve: ToneCurve
        switch cp.transfer {
        case 1, 2, 6, 13, 14, 15: curve = .srgb
        case 4: curve = .gamma(2.2)
        case 5: curve = .gamma(2.8)
        case 8: curve = .identity
        default: throw ImageCodecError(.unsupported, "H.273 transfer \(cp.transfer) (HDR or unusual) is not converted")
        }
        let primaries: Chromaticities
        switch cp.primaries {
        case 1, 2: primaries = .srgb
        case 5: primaries = .bt601_625
        case 6, 7: primaries = .bt601_525
        case 9: primaries = .bt2020
        case 11: primaries = .dciP3
        case 12: primaries = .displayP3
        case 22: primaries = Chromaticities(whiteX: 0.3127, whiteY: 0.3290, redX: 0.630, redY: 0.340,
                                            greenX: 0.295, greenY: 0.605, blueX: 0.155, blueY: 0.077)
        default: throw ImageCodecError(.unsupported, "H.273 primaries \(cp.primaries) are not converted")
        }
        guard let m = primaries.d50Colorants() else { throw ImageCodecError(.corrupt, "H.273 primaries are degenerate") }
        return reduced(.matrixTRC(m, [curve, curve, curve]))
    }

    /// A PNG gAMA value as a tone curve; nil when absent, or (`snapToSRGB`, gAMA without
    /// cHRM) within 1 % of 1/2.2: files written for sRGB displays say 0.45455, and treating
    /// them as sRGB avoids a pointless shift in the darks.
    private static func gammaCurve(_ gamma: Double?, snapToSRGB: Bool) throws -> ToneCurve? {
        guard let g = gamma else { return nil }
        guard g.isFinite, g > 0.01, g <= 10 else { throw ImageCodecError(.corrupt, "PNG gAMA \(g) is out of range") }
        if snapToSRGB, abs(g - 0.45455) < 0.0045 { return nil }
        return .gamma(1 / g)
    }

    /// nil for a model that is sRGB within tolerance.
    private static func reduced(_ s: ColourSource) -> ColourSource? {
        switch s {
        case .matrixTRC(let m, let c):
            guard let srgb = Chromaticities.srgb.d50Colorants(), m.distance(to: srgb) < 0.002,
                  c.allSatisfy({ $0.isClose(to: .srgb, tolerance: 1.0 / 512) }) else { return s }
            return nil
        case .gray(let c):
            return c.isClose(to: .srgb, tolerance: 1.0 / 512) ? nil : s
        case .lut:
            return s
        }
    }
}
