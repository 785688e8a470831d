// Colour conversion as libjpeg-turbo 2.1.5 `jdcolor.c` does it (docs/jpeg-decoding.md "Colour
// conversion"), plus Pillow's naive CMYK → RGB on libjpeg's raw (Adobe-inverted) CMYK output. The
// four YCbCr tables are built once, in one global array, and read through a raw pointer in the
// pixel loops.
//
// Measured (callgrind, 4.5 MP photo): table lookups plus a clamp table, 16 instructions per
// pixel (72.8 M), down from 28 with compare-and-select clamps. An 8-pixel SIMD version on
// 16-bit lanes (exact: 91881 = 65536 + 26345, 116130 = 131072 − 14942, −46802 = −65536 +
// 18734, so every multiplier fits pmaddwd) was slower as written, 121-168 M: `clamped` and a
// shift-and-mask clamp both compiled to per-lane code, and the RGB interleave went through
// lane extracts. The AVX2 kernel set has its own lane version (`JPEGKernelsAVX2/YCbCrLanes`,
// chosen through `KernelDispatch`); these tables stay the portable path.

/// libjpeg's `build_ycc_rgb_table` (SCALEBITS 16), x = sample − 128, laid out as
/// Cr→R [0, 256), Cb→B [256, 512), Cr→G [512, 768), Cb→G [768, 1024).
private let yccTables: [Int32] = {
    var t = [Int32](repeating: 0, count: 1024)
    for i in 0..<256 {
        let x = Int32(i - 128)
        t[i] = (91881 * x + 32768) >> 16
        t[256 + i] = (116130 * x + 32768) >> 16
        t[512 + i] = -46802 * x
        t[768 + i] = -22554 * x + 32768
    }
    return t
}()

/// clamp(v) for v in −256...511 at index v + 256: every YCbCr sum lies in that range (Y ≤ 255,
/// the table terms ≤ 227 in size), and one load replaced a compare-and-select pair per channel
/// (callgrind, 4.5 MP 4:2:0 photo: colour conversion 127.3 M → 72.8 M instructions).
nonisolated(unsafe) private let clampTable: UnsafeMutablePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 768)
    for i in 0..<768 { table[i] = UInt8(min(max(i - 256, 0), 255)) }
    return table
}()

/// Colour converters from decoded component rows to interleaved RGB.
enum ColourToRGB {
    /// libjpeg jdcolor YCbCr → RGB (tables, SCALEBITS 16) for `count` pixels, interleaved RGB out:
    /// R = Y + Crr[Cr], G = Y + ((Cbg[Cb] + Crg[Cr]) >> 16), B = Y + Cbb[Cb], each clamped.
    static func ycbcrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int, _ out: UnsafeMutablePointer<UInt8>) {
        yccTables.withUnsafeBufferPointer { table in
            guard let crr = table.baseAddress else { return }
            let cbb = crr + 256, crg = crr + 512, cbg = crr + 768
            let limit = clampTable + 256
            for i in 0..<max(count, 0) {
                let yv = Int(y[i]), cbv = Int(cb[i]), crv = Int(cr[i])
                let o = out + 3 &* i
                o[0] = limit[yv &+ Int(crr[crv])]
                o[1] = limit[yv &+ Int((cbg[cbv] &+ crg[crv]) &>> 16)]
                o[2] = limit[yv &+ Int(cbb[cbv])]
            }
        }
    }

    /// Three planes already RGB → interleaved.
    static func interleaveRGB(r: UnsafePointer<UInt8>, g: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, count: Int, _ out: UnsafeMutablePointer<UInt8>) {
        for i in 0..<max(count, 0) {
            let o = out + 3 &* i
            o[0] = r[i]
            o[1] = g[i]
            o[2] = b[i]
        }
    }

    /// 4-component to RGB like Pillow's naive conversion on libjpeg's raw (Adobe-inverted) CMYK:
    /// R = round(c·k / 255), G from m, B from y (docs/jpeg-decoding.md), computed in Pillow's
    /// own form k − MULDIV255(255 − c, k).
    static func cmykToRGB(c: UnsafePointer<UInt8>, m: UnsafePointer<UInt8>, y: UnsafePointer<UInt8>, k: UnsafePointer<UInt8>, count: Int, _ out: UnsafeMutablePointer<UInt8>) {
        for i in 0..<max(count, 0) {
            let kv = Int32(k[i])
            let o = out + 3 &* i
            o[0] = inkToRGB(Int32(c[i]), kv)
            o[1] = inkToRGB(Int32(m[i]), kv)
            o[2] = inkToRGB(Int32(y[i]), kv)
        }
    }

    /// YCCK: libjpeg's `ycck_cmyk_convert` (C = clamp(255 − R-formula), M from G, Y from B, K
    /// copied), then as `cmykToRGB`.
    static func ycckToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, k: UnsafePointer<UInt8>, count: Int, _ out: UnsafeMutablePointer<UInt8>) {
        yccTables.withUnsafeBufferPointer { table in
            guard let crr = table.baseAddress else { return }
            let cbb = crr + 256, crg = crr + 512, cbg = crr + 768
            for i in 0..<max(count, 0) {
                let yv = Int32(y[i]), cbv = Int(cb[i]), crv = Int(cr[i])
                let kv = Int32(k[i])
                let cyan = Int32(clamp(255 &- (yv &+ crr[crv])))
                let magenta = Int32(clamp(255 &- (yv &+ ((cbg[cbv] &+ crg[crv]) &>> 16))))
                let yellow = Int32(clamp(255 &- (yv &+ cbb[cbv])))
                let o = out + 3 &* i
                o[0] = inkToRGB(cyan, kv)
                o[1] = inkToRGB(magenta, kv)
                o[2] = inkToRGB(yellow, kv)
            }
        }
    }

    /// YCCK → the stored (Adobe-inverted) C, M, Y planes, as `ycckToRGB` computes them before
    /// its naive step; K needs no conversion. For the ICC path (`ColourTransform`).
    static func ycckToCMY(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                          c: UnsafeMutablePointer<UInt8>, m: UnsafeMutablePointer<UInt8>, yellow: UnsafeMutablePointer<UInt8>) {
        yccTables.withUnsafeBufferPointer { table in
            guard let crr = table.baseAddress else { return }
            let cbb = crr + 256, crg = crr + 512, cbg = crr + 768
            for i in 0..<max(count, 0) {
                let yv = Int32(y[i]), cbv = Int(cb[i]), crv = Int(cr[i])
                c[i] = clamp(255 &- (yv &+ crr[crv]))
                m[i] = clamp(255 &- (yv &+ ((cbg[cbv] &+ crg[crv]) &>> 16)))
                yellow[i] = clamp(255 &- (yv &+ cbb[cbv]))
            }
        }
    }

    @inline(__always)
    private static func clamp(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: v < 0 ? 0 : (v > 255 ? 255 : v))
    }

    /// Pillow's `nk − MULDIV255(C, nk)` with C = 255 − c′ and nk = k′ (raw inverted samples).
    @inline(__always)
    private static func inkToRGB(_ c: Int32, _ k: Int32) -> UInt8 {
        let t = (255 &- c) &* k &+ 128
        return UInt8(truncatingIfNeeded: k &- (((t &>> 8) &+ t) &>> 8))
    }
}
