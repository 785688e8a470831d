/// Reverses the five PNG row filters (docs/png.md "Filters") in place.
///
/// Why this shape: the row and the row above are raw pointers taken once by the caller, all
/// index and sample arithmetic wraps (&+ &-) because the caller sized both rows, and Paeth
/// picks its predictor with selects instead of nested branches, which photographic rows
/// mispredict constantly. Paeth and Average carry a dependency from each pixel to the next,
/// so the 3- and 4-byte cases (RGB8, RGBA8: nearly every photo) of Paeth work on whole pixels
/// as vectors.
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
            case 3, 4: paethLanes(row, prior, count, bpp)
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

    /// Paeth for 3- and 4-byte pixels: the pixel's bytes are the lanes of one vector, so the
    /// chain from each pixel to the next (the left pixel feeds the predictor) is a handful of
    /// vector operations instead of three or four interleaved scalar chains. Measured at about
    /// half the time of the scalar form on photographic RGB rows.
    ///
    /// A 3-byte pixel is read and written as 4 bytes whose last lane keeps the byte that is
    /// there (the next pixel's filtered byte, not yet read), so every pixel but the last goes
    /// through the vector; the last pixel, whose fourth byte may lie past the row, is scalar.
    private static func paethLanes(_ row: UnsafeMutablePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ count: Int, _ bpp: Int) {
        guard count >= 8 else { return paethGeneric(row, prior, count, bpp) }
        // First pixel: a = c = 0, so the predictor is b.
        for i in 0..<bpp { row[i] = row[i] &+ prior[i] }
        let keep: SIMDMask<SIMD4<Int16>> = [false, false, false, bpp == 3]
        let lowByte = SIMD4<Int16>(repeating: 0xFF)
        var a = load4(UnsafePointer(row))
        var c = load4(prior)
        var i = bpp
        // The filtered bytes are read one pixel ahead, before this pixel's store: a 3-byte
        // pixel's read would otherwise overlap the 4-byte store just made, and the processor
        // stalls on a load it cannot forward from that store.
        var x = load4(UnsafePointer(row + i))
        // Pixels whose 4-byte read and write stay inside the row: all but a 3-byte row's last.
        while i &+ 4 <= count {
            let b = load4(prior + i)
            let next = i &+ bpp
            let xNext = next &+ 4 <= count ? load4(UnsafePointer(row + next)) : x
            let p = b &- c
            let q = a &- c
            let pa = magnitude4(p), pb = magnitude4(q), pc = magnitude4(p &+ q)
            let useB = pb .< pa
            let nearest = a.replacing(with: b, where: useB)
            let distance = pa.replacing(with: pb, where: useB)
            let predictor = nearest.replacing(with: c, where: pc .< distance)
            a = ((x &+ predictor) & lowByte).replacing(with: x, where: keep)
            store4(a, row + i)
            x = xNext
            c = b
            i = next
        }
        // What is left (the last pixel of a 3-byte row) goes the scalar way.
        while i < count {
            let p = predict(Int(row[i &- bpp]), Int(prior[i]), Int(prior[i &- bpp]))
            row[i] = row[i] &+ UInt8(truncatingIfNeeded: p)
            i &+= 1
        }
    }

    @inline(__always)
    private static func load4(_ p: UnsafePointer<UInt8>) -> SIMD4<Int16> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self)
        return SIMD4<Int16>(truncatingIfNeeded: v)
    }

    @inline(__always)
    private static func store4(_ v: SIMD4<Int16>, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), as: SIMD4<UInt8>.self)
    }

    @inline(__always)
    private static func magnitude4(_ v: SIMD4<Int16>) -> SIMD4<Int16> {
        let sign = v &>> 15
        return (v ^ sign) &- sign
    }
}
