/// Reverses the five PNG row filters (docs/png.md "Filters") in place.
///
/// Why this shape: the row and the row above are raw pointers taken once by the caller, all
/// index and sample arithmetic wraps (&+ &-) because the caller sized both rows, and Paeth
/// picks its predictor with selects instead of nested branches, which photographic rows
/// mispredict constantly. Paeth and Average carry a dependency from each pixel to the next,
/// so the 3- and 4-byte cases (RGB8, RGBA8: nearly every photo) get loops that keep the
/// left pixel's bytes in registers.
enum PNGUnfilter {
    /// Unfilters `count` bytes of `row` whose filter byte was `type`. `prior` is the
    /// reconstructed row above (all zeros on a pass's first row); `bpp` ≥ 1 is the byte
    /// distance to the left pixel. Throws on a filter type above 4.
    static func apply(type: UInt8, row: UnsafeMutablePointer<UInt8>, prior: UnsafePointer<UInt8>,
                      count: Int, bpp: Int) throws {
        switch type {
        case 0:
            return
        case 1:
            var i = bpp
            while i < count {
                row[i] = row[i] &+ row[i &- bpp]
                i &+= 1
            }
        case 2:
            for i in 0..<count { row[i] = row[i] &+ prior[i] }
        case 3:
            for i in 0..<min(bpp, count) { row[i] = row[i] &+ (prior[i] >> 1) }
            var i = bpp
            while i < count {
                let sum = UInt16(row[i &- bpp]) &+ UInt16(prior[i])
                row[i] = row[i] &+ UInt8(truncatingIfNeeded: sum >> 1)
                i &+= 1
            }
        case 4:
            switch bpp {
            case 3: paeth3(row, prior, count)
            case 4: paeth4(row, prior, count)
            default: paethGeneric(row, prior, count, bpp)
            }
        default:
            throw ImageCodecError(.corrupt, "PNG filter type \(type) is invalid")
        }
    }

    /// The Paeth predictor: of a (left), b (above) and c (above-left), the one nearest to
    /// a + b − c, ties going to a, then b. Written as two running-minimum selects (same
    /// result as the spec's nested comparison) so it compiles to conditional moves.
    @inline(__always)
    static func predict(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = b &- c
        let q = a &- c
        let pa = magnitude(p)
        let pb = magnitude(q)
        let pc = magnitude(p &+ q)
        let nearest = pb < pa ? b : a
        let distance = pb < pa ? pb : pa
        return pc < distance ? c : nearest
    }

    @inline(__always)
    static func magnitude(_ v: Int) -> Int {
        let sign = v >> 63
        return (v ^ sign) &- sign
    }

    private static func paethGeneric(_ row: UnsafeMutablePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ count: Int, _ bpp: Int) {
        // First pixel: a = c = 0, so the predictor is b.
        for i in 0..<min(bpp, count) { row[i] = row[i] &+ prior[i] }
        var i = bpp
        while i < count {
            let p = predict(Int(row[i &- bpp]), Int(prior[i]), Int(prior[i &- bpp]))
            row[i] = row[i] &+ UInt8(truncatingIfNeeded: p)
            i &+= 1
        }
    }

    private static func paeth3(_ row: UnsafeMutablePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ count: Int) {
        guard count >= 3 else { return paethGeneric(row, prior, count, 3) }
        var a0 = Int(row[0] &+ prior[0]), a1 = Int(row[1] &+ prior[1]), a2 = Int(row[2] &+ prior[2])
        row[0] = UInt8(truncatingIfNeeded: a0); row[1] = UInt8(truncatingIfNeeded: a1); row[2] = UInt8(truncatingIfNeeded: a2)
        var c0 = Int(prior[0]), c1 = Int(prior[1]), c2 = Int(prior[2])
        var i = 3
        while i &+ 3 <= count {
            let b0 = Int(prior[i]), b1 = Int(prior[i &+ 1]), b2 = Int(prior[i &+ 2])
            a0 = (Int(row[i]) &+ predict(a0, b0, c0)) & 0xFF
            a1 = (Int(row[i &+ 1]) &+ predict(a1, b1, c1)) & 0xFF
            a2 = (Int(row[i &+ 2]) &+ predict(a2, b2, c2)) & 0xFF
            row[i] = UInt8(truncatingIfNeeded: a0)
            row[i &+ 1] = UInt8(truncatingIfNeeded: a1)
            row[i &+ 2] = UInt8(truncatingIfNeeded: a2)
            c0 = b0; c1 = b1; c2 = b2
            i &+= 3
        }
    }

    private static func paeth4(_ row: UnsafeMutablePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ count: Int) {
        guard count >= 4 else { return paethGeneric(row, prior, count, 4) }
        var a0 = Int(row[0] &+ prior[0]), a1 = Int(row[1] &+ prior[1])
        var a2 = Int(row[2] &+ prior[2]), a3 = Int(row[3] &+ prior[3])
        row[0] = UInt8(truncatingIfNeeded: a0); row[1] = UInt8(truncatingIfNeeded: a1)
        row[2] = UInt8(truncatingIfNeeded: a2); row[3] = UInt8(truncatingIfNeeded: a3)
        var c0 = Int(prior[0]), c1 = Int(prior[1]), c2 = Int(prior[2]), c3 = Int(prior[3])
        var i = 4
        while i &+ 4 <= count {
            let b0 = Int(prior[i]), b1 = Int(prior[i &+ 1]), b2 = Int(prior[i &+ 2]), b3 = Int(prior[i &+ 3])
            a0 = (Int(row[i]) &+ predict(a0, b0, c0)) & 0xFF
            a1 = (Int(row[i &+ 1]) &+ predict(a1, b1, c1)) & 0xFF
            a2 = (Int(row[i &+ 2]) &+ predict(a2, b2, c2)) & 0xFF
            a3 = (Int(row[i &+ 3]) &+ predict(a3, b3, c3)) & 0xFF
            row[i] = UInt8(truncatingIfNeeded: a0)
            row[i &+ 1] = UInt8(truncatingIfNeeded: a1)
            row[i &+ 2] = UInt8(truncatingIfNeeded: a2)
            row[i &+ 3] = UInt8(truncatingIfNeeded: a3)
            c0 = b0; c1 = b1; c2 = b2; c3 = b3
            i &+= 4
        }
    }
}
