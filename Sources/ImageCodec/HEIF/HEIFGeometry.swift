/// The transformative properties of an item (`clap`, `irot`, `imir`, applied in the order the
/// item lists them, ISO/IEC 23008-12 §6.5.x) folded into one crop rectangle of the untransformed
/// image followed by one of the eight EXIF orientations. Any sequence of crops, quarter turns
/// and mirrors has that form, and it lets the decoder reduce in stored orientation and turn
/// only the small result.
///
/// Conventions follow libheif 1.23 (checked against it on generated files): `irot` counts
/// anticlockwise quarter turns; `imir` axis 0 exchanges top and bottom, axis 1 left and right;
/// `clap` edges are rounded as libheif's `left_rounded`/`top_rounded` do and clamped to the image.
struct HEIFTransform: Equatable {
    /// The kept rectangle of the untransformed image.
    var cropX: Int, cropY: Int, cropWidth: Int, cropHeight: Int
    /// How the kept rectangle is shown (`Orientation.apply` semantics).
    var orientation: Orientation

    init(width: Int, height: Int) {
        cropX = 0; cropY = 0; cropWidth = width; cropHeight = height
        orientation = .up
    }

    var displayWidth: Int { orientation.swapsAxes ? cropHeight : cropWidth }
    var displayHeight: Int { orientation.swapsAxes ? cropWidth : cropHeight }

    /// Applies one property after those already applied; other properties are ignored.
    mutating func apply(_ property: HEIFProperty) throws {
        switch property {
        case .irot(let quarters):
            for _ in 0..<(quarters & 3) { orientation = Self.compose(orientation, then: .rotatedCounterClockwise) }
        case .imir(let axis):
            orientation = Self.compose(orientation, then: axis == 0 ? .mirroredVertically : .mirrored)
        case .clap(let c):
            try applyClap(c)
        default:
            break
        }
    }

    private mutating func applyClap(_ c: CleanAperture) throws {
        let w = Int64(displayWidth), h = Int64(displayHeight)
        // left = horizOff + (w - 1)/2 - (cleanWidth - 1)/2, truncated toward zero; right =
        // round(cleanWidth - 1 + left); top and bottom both rounded (libheif's Box_clap).
        guard let left = Self.clapEdge(offN: c.horizOffN, offD: c.horizOffD, size: w, cleanN: c.widthN, cleanD: c.widthD, round: false),
              let top = Self.clapEdge(offN: c.vertOffN, offD: c.vertOffD, size: h, cleanN: c.heightN, cleanD: c.heightD, round: true),
              let right = Self.roundedSum(c.widthN, c.widthD, minusOnePlus: left),
              let bottom = Self.roundedSum(c.heightN, c.heightD, minusOnePlus: top) else {
            throw ImageCodecError(.corrupt, "'clap' fractions overflow")
        }
        let l = max(0, left), t = max(0, top), r = min(right, w - 1), b = min(bottom, h - 1)
        guard l <= r, t <= b else { throw ImageCodecError(.corrupt, "'clap' leaves nothing of \(w)x\(h)") }
        // (l...r, t...b) is in display coordinates: map both corners back to the crop.
        let (x0, y0) = storedPoint(Int(l), Int(t))
        let (x1, y1) = storedPoint(Int(r), Int(b))
        cropX += min(x0, x1); cropY += min(y0, y1)
        cropWidth = abs(x1 - x0) + 1; cropHeight = abs(y1 - y0) + 1
    }

    /// The crop-relative stored pixel shown at display (x, y) (`Orientation.apply`'s mapping).
    func storedPoint(_ x: Int, _ y: Int) -> (Int, Int) {
        let w = cropWidth, h = cropHeight
        switch orientation {
        case .up: return (x, y)
        case .mirrored: return (w - 1 - x, y)
        case .rotated180: return (w - 1 - x, h - 1 - y)
        case .mirroredVertically: return (x, h - 1 - y)
        case .transposed: return (y, x)
        case .rotatedClockwise: return (y, h - 1 - x)
        case .transversed: return (w - 1 - y, h - 1 - x)
        case .rotatedCounterClockwise: return (w - 1 - y, x)
        }
    }

    /// Whether display column 0 (row 0) shows the last stored column (row) of the crop: the
    /// reduction grid is anchored at that end so that reduced pixels match a reduction of the
    /// displayed image.
    var anchorsAtRight: Bool { storedPoint(0, 0).0 != 0 }
    var anchorsAtBottom: Bool { storedPoint(0, 0).1 != 0 }

    // MARK: - Arithmetic

    private static func clapEdge(offN: Int64, offD: Int64, size: Int64, cleanN: Int64, cleanD: Int64, round: Bool) -> Int64? {
        // off/offD + (size-1)/2 - (cleanN/cleanD - 1)/2 = num / (2·offD·cleanD)
        guard let den = mul(2 * offD, cleanD), let a = mul(2 * offN, cleanD), let od = mul(offD, cleanD),
              let b = mul(size - 1, od), let c = mul(cleanN - cleanD, offD),
              let ab = add(a, b), let num = add(ab, -c) else { return nil }
        guard round else { return num / den }
        return add(num, den / 2).map { $0 / den }
    }

    /// round(n/d - 1 + edge), C-style.
    private static func roundedSum(_ n: Int64, _ d: Int64, minusOnePlus edge: Int64) -> Int64? {
        guard let e = mul(edge - 1, d), let ne = add(n, e), let total = add(ne, d / 2) else { return nil }
        return total / d
    }

    /// Checked arithmetic: the fields are 32-bit, but their products are not.
    private static func mul(_ a: Int64, _ b: Int64) -> Int64? {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? nil : r
    }

    private static func add(_ a: Int64, _ b: Int64) -> Int64? {
        let (r, o) = a.addingReportingOverflow(b)
        return o ? nil : r
    }

    /// `first` followed by `second`, as one orientation. Each is a map from display axes to
    /// stored axes with an optional reversal; composing the maps composes the orientations.
    static func compose(_ first: Orientation, then second: Orientation) -> Orientation {
        let a = axes(first), b = axes(second)
        // Display axis i of the result reads axis b[i].axis of the intermediate image, which
        // reads stored axis a[that].axis.
        let x = (a[b[0].axis].axis, a[b[0].axis].reversed != b[0].reversed)
        let y = (a[b[1].axis].axis, a[b[1].axis].reversed != b[1].reversed)
        for o in Orientation.allCases {
            let c = axes(o)
            if c[0].axis == x.0, c[0].reversed == x.1, c[1].axis == y.0, c[1].reversed == y.1 { return o }
        }
        return .up
    }

    /// For display x and y: which stored axis (0 = x) they run along and whether reversed.
    private static func axes(_ o: Orientation) -> [(axis: Int, reversed: Bool)] {
        switch o {
        case .up: return [(0, false), (1, false)]
        case .mirrored: return [(0, true), (1, false)]
        case .rotated180: return [(0, true), (1, true)]
        case .mirroredVertically: return [(0, false), (1, true)]
        case .transposed: return [(1, false), (0, false)]
        case .rotatedClockwise: return [(1, true), (0, false)]
        case .transversed: return [(1, true), (0, true)]
        case .rotatedCounterClockwise: return [(1, false), (0, true)]
        }
    }
}
