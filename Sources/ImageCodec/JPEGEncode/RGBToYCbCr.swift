/// RGB(A) → YCbCr for one image row, bit-exact with libjpeg's `rgb_ycc_convert` (jccolor.c,
/// docs/jpeg-encoding.md "Colour conversion and downsampling"), in 16-bit fixed point:
///
///     Y  = ( 19595 R + 38470 G +  7471 B +   32768) >> 16
///     Cb = (-11059 R − 21709 G + 32768 B + 8421375) >> 16
///     Cr = ( 32768 R − 27439 G −  5329 B + 8421375) >> 16
///
/// (8421375 = 128 · 2^16 + 32767: libjpeg's CBCR_OFFSET plus ONE_HALF − 1.)
///
/// Shape, for SSE2 (no pshufb, no 32-bit multiply) through Swift SIMD types:
/// - 16 pixels per step. Each 32-bit lane holds one pixel, read with one unaligned 4-byte load
///   (R, G, B in the low three bytes; the fourth byte, the next pixel's R or the alpha, is
///   masked off). The four lane vectors hold pixels x+k, x+k+4, x+k+8, x+k+12 (k = 0...3), so
///   the results interleave into 16 bytes in pixel order with shifts, masks and ors.
/// - The weights of each row sum to 2^16 or 0, so with dR = R − G and dB = B − G the same sums
///   need four products instead of seven:
///       Y  = G · 2^16 + 19595 dR + 7471 dB + 32768
///       Cb = 2^15 dB − 11059 dR + 8421375,   Cr = 2^15 dR − 5329 dB + 8421375
///   Each product is a lane in −255...255 times a constant below 2^15: one pmaddwd.
/// - Cb and Cr are computed as 255 − Cb = ((2^24 − 1) − sum) >> 16, so the products are added,
///   not subtracted (the complement costs one xor per 16 outputs). Every sum is below 2^24 and
///   only its bits 16...23 are used, and LLVM trims a constant to the bits a result uses: a
///   subtracted product became a multiply by a 24-bit constant (pmuludq emulation), and so did
///   a product shifted left to byte 3 (the shift folds into the constant), which is why the
///   fourth lane vector moves up with a 16-bit-lane shift.
/// - Constants are SIMD values (`Lanes(repeating:)`), never scalar operands: `SIMD op Scalar`
///   is a generic per-lane loop, and LLVM turned most of it back into scalar imul.
///
/// Measured (callgrind, 1920×1080 RGB, one encode): the per-channel table adds (eight loads
/// and adds per pixel) cost 47.8 M instructions, 23 per pixel. The seven products of the
/// formulas above, one pmaddwd each, cost 29.5 M: LLVM fused pairs of them into one pmaddwd
/// with four to seven word shuffles to interleave the operands. With the differences: 24.3 M,
/// 11.7 per pixel (about 190 instructions per 16-pixel step).
/// Tried and dropped (prototypes, instructions per step):
/// - Writing pmaddwd on [R, B] word pairs as even-lane plus odd-lane products: instcombine
///   splits the pattern and LLVM pairs the products again through shuffles, 1.4×.
/// - Narrowing the results with packssdw/packuswb via lane-by-lane conversions: LLVM rewrote
///   the `>> 16` and truncations as pshuflw/pshufhw chains, 1.2× the shift-and-mask merge.
/// - Three 16-byte loads and dword shuffles for the deinterleave: LLVM narrows them back to
///   the same 4-byte loads, or (with cross-lane shifts) scalar loads and shld, up to 1.5×.
enum RGBToYCbCr {
    private typealias Lanes = SIMD4<UInt32>

    /// Converts `width` pixels at `src` (`channels` = 3 or 4 bytes each, alpha ignored) into
    /// `width` samples at each of `y`, `cb`, `cr`.
    static func convertRow(_ src: UnsafePointer<UInt8>, channels: Int, width: Int,
                           y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                           cr: UnsafeMutablePointer<UInt8>) {
        assert(channels == 3 || channels == 4)
        // The 4-byte load of a row's last RGB pixel would read one byte past the row, so for
        // RGB the vector steps stop one pixel early and the scalar loop takes it (and takes
        // whole rows narrower than one step).
        let done = channels == 4
            ? vectorSteps(src, channels: 4, end: width, y: y, cb: cb, cr: cr)
            : vectorSteps(src, channels: 3, end: width &- 1, y: y, cb: cb, cr: cr)
        var s = src + done &* channels
        for x in done..<width {
            (y[x], cb[x], cr[x]) = pixel(r: s[0], g: s[1], b: s[2])
            s += channels
        }
    }

    /// libjpeg's formula for one pixel (the scalar tail).
    @inline(__always)
    private static func pixel(r: UInt8, g: UInt8, b: UInt8) -> (UInt8, UInt8, UInt8) {
        let r = Int32(r), g = Int32(g), b = Int32(b)
        let y = (19595 &* r &+ 38470 &* g &+ 7471 &* b &+ 32768) >> 16
        let cb = (32768 &* b &+ 8_421_375 &- 11059 &* r &- 21709 &* g) >> 16
        let cr = (32768 &* r &+ 8_421_375 &- 27439 &* g &- 5329 &* b) >> 16
        return (UInt8(truncatingIfNeeded: y), UInt8(truncatingIfNeeded: cb), UInt8(truncatingIfNeeded: cr))
    }

    /// Converts pixels 0..<`end` 16 at a time (`end` ≥ 16), the last step overlapping the one
    /// before when `end` is not a multiple of 16 (it rewrites the same values); returns the
    /// number of pixels done: `end`, or 0 when `end` < 16. A step at x reads bytes up to
    /// x · channels + 15 · channels + 3, so for RGB `end` must leave one pixel after it.
    @inline(__always)
    private static func vectorSteps(_ src: UnsafePointer<UInt8>, channels: Int, end: Int,
                                    y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                                    cr: UnsafeMutablePointer<UInt8>) -> Int {
        guard end >= 16 else { return 0 }
        let raw = UnsafeRawPointer(src)
        @inline(__always) func step(_ x: Int) {
            let p = raw + x &* channels
            @inline(__always) func lanes(_ k: Int) -> Lanes {
                let q = p + k &* channels
                return Lanes(q.loadUnaligned(as: UInt32.self),
                             q.loadUnaligned(fromByteOffset: 4 &* channels, as: UInt32.self),
                             q.loadUnaligned(fromByteOffset: 8 &* channels, as: UInt32.self),
                             q.loadUnaligned(fromByteOffset: 12 &* channels, as: UInt32.self))
            }
            let a = sums(lanes(0)), b = sums(lanes(1)), c = sums(lanes(2)), d = sums(lanes(3))
            UnsafeMutableRawPointer(y + x).storeBytes(of: merge(a.y, b.y, c.y, d.y), as: Lanes.self)
            UnsafeMutableRawPointer(cb + x).storeBytes(of: ~merge(a.cb, b.cb, c.cb, d.cb), as: Lanes.self)
            UnsafeMutableRawPointer(cr + x).storeBytes(of: ~merge(a.cr, b.cr, c.cr, d.cr), as: Lanes.self)
        }
        var x = 0
        while x &+ 16 <= end {
            step(x)
            x &+= 16
        }
        if x < end { step(end &- 16) }
        return end
    }

    /// The three sums for four pixels, each below 2^24 with the result in bits 16...23: Y, and
    /// the complemented forms of Cb and Cr (see the type's comment).
    @inline(__always)
    private static func sums(_ v: Lanes) -> (y: Lanes, cb: Lanes, cr: Lanes) {
        let byte = Lanes(repeating: 0xFF)
        let r = v & byte
        let g = (v &>> Lanes(repeating: 8)) & byte
        let b = (v &>> Lanes(repeating: 16)) & byte
        // Signed (wrapping) differences in −255...255.
        let dr = r &- g, db = b &- g
        let fifteen = Lanes(repeating: 15)
        // (2^24 − 1) − 8421375 = 255 · 2^15.
        let complementOffset = Lanes(repeating: 8_355_840)
        let y = (g &<< Lanes(repeating: 16)) &+ dr &* Lanes(repeating: 19595)
            &+ db &* Lanes(repeating: 7471) &+ Lanes(repeating: 32768)
        let cb = dr &* Lanes(repeating: 11059) &- (db &<< fifteen) &+ complementOffset
        let cr = db &* Lanes(repeating: 5329) &- (dr &<< fifteen) &+ complementOffset
        return (y, cb, cr)
    }

    /// Bits 16...23 of lane i of a, b, c, d → bytes 4i, 4i+1, 4i+2, 4i+3.
    @inline(__always)
    private static func merge(_ a: Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes) -> Lanes {
        (a &>> Lanes(repeating: 16))
            | ((b &>> Lanes(repeating: 8)) & Lanes(repeating: 0xFF00))
            | (c & Lanes(repeating: 0xFF_0000))
            | (unsafeBitCast(unsafeBitCast(d, to: SIMD8<UInt16>.self) &<< SIMD8<UInt16>(repeating: 8), to: Lanes.self)
                & Lanes(repeating: 0xFF00_0000))
    }
}
