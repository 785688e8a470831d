import ImageCodec

// URL text of a size: "480" (fit the longest edge) or "240x240" (cover, then crop).
// Parsing is strict so that one size has exactly one spelling, hence one cache key.

extension SizeSpec {
    /// Longest number accepted per side: five digits, so "99999" but never "100000".
    static let maxDigits = 5

    /// The sizes the gallery's pages ask for: fit edges for detail views (srcset 1x/2x/3x of
    /// the page widths, capped at 2560) and square covers for grids (1x/2x/3x of 80-240).
    public static let defaultAllowed: Set<SizeSpec> = {
        let fits = [120, 160, 240, 320, 360, 480, 640, 720, 960, 1080, 1280, 1440, 1920, 2560]
        let squares = [80, 120, 160, 240, 320, 360, 480, 640, 720]
        return Set(fits.map { SizeSpec(mode: .fit(maxEdge: $0)) } + squares.map { SizeSpec(mode: .cover(width: $0, height: $0)) })
    }()

    /// "480" → fit 480, "240x160" → cover 240×160; nil for signs, spaces, leading zeros,
    /// zero, more than five digits or anything else.
    static func parse(_ text: String) -> ResizeMode? {
        let parts = text.utf8.split(separator: UInt8(ascii: "x"), maxSplits: 2, omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let edge = number(parts[0]) else { return nil }
            return .fit(maxEdge: edge)
        case 2:
            guard let w = number(parts[0]), let h = number(parts[1]) else { return nil }
            return .cover(width: w, height: h)
        default:
            return nil
        }
    }

    /// A positive decimal of 1-5 ASCII digits without a leading zero.
    private static func number(_ digits: Substring.UTF8View.SubSequence) -> Int? {
        guard !digits.isEmpty, digits.count <= maxDigits, digits.first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for d in digits {
            guard d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(d - UInt8(ascii: "0"))
        }
        return value
    }

    /// The pixel size a render of this spec has for a source displayed at `width` × `height`
    /// (never enlarged).
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let plan = mode.plan(width: width, height: height)
        return (plan.outputWidth, plan.outputHeight)
    }

    /// Canonical text of a mode: what `parse` reads back.
    static func text(of mode: ResizeMode) -> String {
        switch mode {
        case .fit(let edge): return String(edge)
        case .cover(let w, let h): return "\(w)x\(h)"
        }
    }
}
