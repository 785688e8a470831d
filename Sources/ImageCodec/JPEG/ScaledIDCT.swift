// Dequantise + inverse DCT, ported from libjpeg-turbo 2.1.5 so that pixels match `djpeg -dct int`
// bit for bit (docs/jpeg-decoding.md "The IDCTs"): `jpeg_idct_islow` for 8×8 and `jidctred.c`
// for 4×4, 2×2, 1×1.
// The reduced sizes are libjpeg's box-filter shrinks of the 8×8 IDCT, not low-frequency IDCTs.
//
// Why it looks like this:
// - Arithmetic is 64-bit like libjpeg's JLONG; the workspace is 32-bit like libjpeg's `int`
//   array and is written with truncation, so even corrupt coefficients give libjpeg's result and
//   can never trap. Dequantisation multiplies by the table value read as a signed 16-bit number,
//   as libjpeg-turbo's SIMD-enabled build stores it (MULTIPLIER = short); real tables are ≤ 255.
// - The workspace is a local `InlineArray` (the 2×2's ten values are named locals) and I/O goes
//   through raw pointers: measured fastest on this toolchain (docs/toolchain.md "Writing fast
//   Swift here"), with no allocation or ARC per block.
// - libjpeg's "all AC terms zero" shortcuts give exactly the full-path values (the DC-only
//   rounding term is below one step); they are kept because most columns and rows of photo
//   blocks are zero. A block whose 63 AC terms are all zero is one flat level (both shortcuts).
// - The range limit is a 1024-byte table like libjpeg's: the compare-and-clamp form compiled to
//   branches that mispredict on noisy blocks (about 2× slower there).
// - Checked against libjpeg-turbo's own exported C functions (jpeg_idct_islow/4x4/2x2/1x1) on
//   200,000 random blocks including arbitrary Int16 coefficients and 16-bit tables: identical.
//   Speed on the luma blocks of an 18 MP photo: 8×8 about 135-160 ns/block against 137 for
//   libjpeg's C (not its SIMD), 4×4 equal to C, 2×2 faster.

/// The 1024 entries of libjpeg's post-IDCT range-limit table, indexed by the low 10 bits.
/// Immutable after its one-time initialisation; a raw pointer avoids array access costs per pixel.
nonisolated(unsafe) private let rangeLimitTable: UnsafeMutablePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 1024)
    for low in 0..<1024 {
        let s = (low >= 512 ? low - 1024 : low) + 128
        table[low] = UInt8(min(max(s, 0), 255))
    }
    return table
}()

/// Which of its three paths `ScaledIDCT.idct8x8` took for a block.
enum IDCT8x8Path: Equatable {
    /// All 63 AC terms zero: one level for the whole block.
    case flat
    /// `idct8x8Vector`: the block's values were within its exactness bounds.
    case vector
    /// `idct8x8Scalar`: anything else (corrupt data, 16-bit tables).
    case scalar
}

/// Dequantising inverse DCTs producing 8×8, 4×4, 2×2 or 1×1 clamped pixels per block.
enum ScaledIDCT {
    /// Dequantise + IDCT one block. `coef`: 64 Int16 in natural (row-major) order; `quant`: 64
    /// UInt16 in natural order. Writes 8×8 clamped pixels to `out` with row stride `stride` bytes.
    ///
    /// Returns the path taken, so tests can show that photos really take the vector path (a
    /// guard that always failed would keep every pixel right and lose the speed silently). The
    /// decoder ignores it: it is a register, with no counter or branch added per block.
    @discardableResult
    static func idct8x8(_ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                        _ out: UnsafeMutablePointer<UInt8>, _ stride: Int) -> IDCT8x8Path {
        if acIsZero(coef) {
            // Both passes' DC-only shortcuts combined: one level for the whole block.
            let v = rangeLimit((dequant(coef, quant, 0) &+ 4) &>> 3)
            let word = UInt64(v) &* 0x0101_0101_0101_0101
            for row in 0..<8 {
                UnsafeMutableRawPointer(out + row &* stride).storeBytes(of: word, as: UInt64.self)
            }
            return .flat
        }
        if idct8x8Vector(coef, quant, out, stride) { return .vector }
        idct8x8Scalar(coef, quant, out, stride)
        return .scalar
    }

    /// The scalar 8×8 ISLOW IDCT, exact for any input (the reference the vector path is
    /// tested against).
    static func idct8x8Scalar(_ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                              _ out: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let limit = rangeLimitTable
        var ws = InlineArray<64, Int32>(repeating: 0)

        // Pass 1: columns of the dequantised input into the workspace, scaled up by 2^PASS1_BITS.
        for col in 0..<8 {
            if coef[col &+ 8] == 0 && coef[col &+ 16] == 0 && coef[col &+ 24] == 0 && coef[col &+ 32] == 0
                && coef[col &+ 40] == 0 && coef[col &+ 48] == 0 && coef[col &+ 56] == 0 {
                let dc = Int32(truncatingIfNeeded: dequant(coef, quant, col) &<< 2)
                for row in 0..<8 { ws[col &+ row &* 8] = dc }
                continue
            }
            let r = islow1D(
                dequant(coef, quant, col), dequant(coef, quant, col &+ 8),
                dequant(coef, quant, col &+ 16), dequant(coef, quant, col &+ 24),
                dequant(coef, quant, col &+ 32), dequant(coef, quant, col &+ 40),
                dequant(coef, quant, col &+ 48), dequant(coef, quant, col &+ 56))
            // DESCALE by CONST_BITS - PASS1_BITS = 11.
            ws[col] = narrow((r.0 &+ 1024) &>> 11)
            ws[col &+ 8] = narrow((r.1 &+ 1024) &>> 11)
            ws[col &+ 16] = narrow((r.2 &+ 1024) &>> 11)
            ws[col &+ 24] = narrow((r.3 &+ 1024) &>> 11)
            ws[col &+ 32] = narrow((r.4 &+ 1024) &>> 11)
            ws[col &+ 40] = narrow((r.5 &+ 1024) &>> 11)
            ws[col &+ 48] = narrow((r.6 &+ 1024) &>> 11)
            ws[col &+ 56] = narrow((r.7 &+ 1024) &>> 11)
        }

        // Pass 2: rows of the workspace to pixels; DESCALE by CONST_BITS + PASS1_BITS + 3 = 18.
        for row in 0..<8 {
            let b = row &* 8
            let o = out + row &* stride
            let w0 = Int(ws[b]), w1 = Int(ws[b &+ 1]), w2 = Int(ws[b &+ 2]), w3 = Int(ws[b &+ 3])
            let w4 = Int(ws[b &+ 4]), w5 = Int(ws[b &+ 5]), w6 = Int(ws[b &+ 6]), w7 = Int(ws[b &+ 7])
            if w1 == 0 && w2 == 0 && w3 == 0 && w4 == 0 && w5 == 0 && w6 == 0 && w7 == 0 {
                let v = rangeLimit((w0 &+ 16) &>> 5, limit)
                for k in 0..<8 { o[k] = v }
                continue
            }
            let r = islow1D(w0, w1, w2, w3, w4, w5, w6, w7)
            let half = 1 << 17
            o[0] = rangeLimit((r.0 &+ half) &>> 18, limit)
            o[1] = rangeLimit((r.1 &+ half) &>> 18, limit)
            o[2] = rangeLimit((r.2 &+ half) &>> 18, limit)
            o[3] = rangeLimit((r.3 &+ half) &>> 18, limit)
            o[4] = rangeLimit((r.4 &+ half) &>> 18, limit)
            o[5] = rangeLimit((r.5 &+ half) &>> 18, limit)
            o[6] = rangeLimit((r.6 &+ half) &>> 18, limit)
            o[7] = rangeLimit((r.7 &+ half) &>> 18, limit)
        }
    }

    /// libjpeg `jpeg_idct_4x4`: 4×4 pixels, each the (±1) mean of a 2×2 group of the 8×8 IDCT.
    /// Reads the 49 coefficients outside row 4 and column 4. The range-limit table is fetched
    /// once per block: each read of the lazily made global is a call.
    static func idct4x4(_ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ out: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let limit = rangeLimitTable
        var ws = InlineArray<32, Int32>(repeating: 0)

        // Pass 1: columns 0-3 and 5-7 (column 4 is never read by pass 2) into a 4×8 workspace.
        for col in 0..<8 where col != 4 {
            if coef[col &+ 8] == 0 && coef[col &+ 16] == 0 && coef[col &+ 24] == 0
                && coef[col &+ 40] == 0 && coef[col &+ 48] == 0 && coef[col &+ 56] == 0 {
                let dc = Int32(truncatingIfNeeded: dequant(coef, quant, col) &<< 2)
                ws[col] = dc; ws[col &+ 8] = dc; ws[col &+ 16] = dc; ws[col &+ 24] = dc
                continue
            }
            let r = red4x4(
                dequant(coef, quant, col), dequant(coef, quant, col &+ 8),
                dequant(coef, quant, col &+ 16), dequant(coef, quant, col &+ 24),
                dequant(coef, quant, col &+ 40), dequant(coef, quant, col &+ 48),
                dequant(coef, quant, col &+ 56))
            // DESCALE by CONST_BITS - PASS1_BITS + 1 = 12.
            ws[col] = narrow((r.0 &+ 2048) &>> 12)
            ws[col &+ 8] = narrow((r.1 &+ 2048) &>> 12)
            ws[col &+ 16] = narrow((r.2 &+ 2048) &>> 12)
            ws[col &+ 24] = narrow((r.3 &+ 2048) &>> 12)
        }

        // Pass 2: the 4 workspace rows; DESCALE by CONST_BITS + PASS1_BITS + 3 + 1 = 19.
        for row in 0..<4 {
            let b = row &* 8
            let o = out + row &* stride
            let w0 = Int(ws[b]), w1 = Int(ws[b &+ 1]), w2 = Int(ws[b &+ 2]), w3 = Int(ws[b &+ 3])
            let w5 = Int(ws[b &+ 5]), w6 = Int(ws[b &+ 6]), w7 = Int(ws[b &+ 7])
            if w1 == 0 && w2 == 0 && w3 == 0 && w5 == 0 && w6 == 0 && w7 == 0 {
                let v = rangeLimit((w0 &+ 16) &>> 5, limit)
                o[0] = v; o[1] = v; o[2] = v; o[3] = v
                continue
            }
            let r = red4x4(w0, w1, w2, w3, w5, w6, w7)
            let half = 1 << 18
            o[0] = rangeLimit((r.0 &+ half) &>> 19, limit)
            o[1] = rangeLimit((r.1 &+ half) &>> 19, limit)
            o[2] = rangeLimit((r.2 &+ half) &>> 19, limit)
            o[3] = rangeLimit((r.3 &+ half) &>> 19, limit)
        }
    }

    /// libjpeg `jpeg_idct_2x2`: 2×2 pixels, each the (±1) mean of a 4×4 group of the 8×8 IDCT.
    /// Reads the 25 coefficients in rows and columns {0, 1, 3, 5, 7}. The workspace is ten
    /// named values rather than an array, which measured faster here (not for 4×4, whose 28
    /// values do not fit in registers), and the range-limit table is fetched once per block.
    static func idct2x2(_ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ out: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let limit = rangeLimitTable
        // Pass 1: one column to two workspace rows; DESCALE by CONST_BITS - PASS1_BITS + 2 = 13.
        @inline(__always) func column(_ col: Int) -> (Int, Int) {
            if coef[col &+ 8] == 0 && coef[col &+ 24] == 0 && coef[col &+ 40] == 0 && coef[col &+ 56] == 0 {
                let dc = Int(narrow(dequant(coef, quant, col) &<< 2))
                return (dc, dc)
            }
            let r = red2x2(
                dequant(coef, quant, col), dequant(coef, quant, col &+ 8),
                dequant(coef, quant, col &+ 24), dequant(coef, quant, col &+ 40),
                dequant(coef, quant, col &+ 56))
            return (Int(narrow((r.0 &+ 4096) &>> 13)), Int(narrow((r.1 &+ 4096) &>> 13)))
        }
        // Pass 2: DESCALE by CONST_BITS + PASS1_BITS + 3 + 2 = 20.
        @inline(__always) func row(_ w0: Int, _ w1: Int, _ w3: Int, _ w5: Int, _ w7: Int, _ o: UnsafeMutablePointer<UInt8>) {
            if w1 == 0 && w3 == 0 && w5 == 0 && w7 == 0 {
                let v = rangeLimit((w0 &+ 16) &>> 5, limit)
                o[0] = v; o[1] = v
                return
            }
            let r = red2x2(w0, w1, w3, w5, w7)
            let half = 1 << 19
            o[0] = rangeLimit((r.0 &+ half) &>> 20, limit)
            o[1] = rangeLimit((r.1 &+ half) &>> 20, limit)
        }
        let c0 = column(0), c1 = column(1), c3 = column(3), c5 = column(5), c7 = column(7)
        row(c0.0, c1.0, c3.0, c5.0, c7.0, out)
        row(c0.1, c1.1, c3.1, c5.1, c7.1, out + stride)
    }

    /// libjpeg `jpeg_idct_1x1`: the block's DC level, 128 + round(DC·q / 8), clamped.
    static func idct1x1(_ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ out: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        out[0] = rangeLimit((dequant(coef, quant, 0) &+ 4) &>> 3)
    }

    // MARK: - Shared steps

    /// Whether coefficients 1...63 are all zero, read as sixteen 8-byte words.
    @inline(__always)
    private static func acIsZero(_ coef: UnsafePointer<Int16>) -> Bool {
        let raw = UnsafeRawPointer(coef)
        var any = raw.loadUnaligned(as: UInt64.self) & ~UInt64(0xFFFF).littleEndian
        for i in 1..<16 { any |= raw.loadUnaligned(fromByteOffset: 8 &* i, as: UInt64.self) }
        return any == 0
    }

    /// libjpeg's DEQUANTIZE with the table entry as a signed 16-bit multiplier.
    @inline(__always)
    private static func dequant(_ coef: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ i: Int) -> Int {
        Int(coef[i]) &* Int(Int16(bitPattern: quant[i]))
    }

    /// The `(int)` cast libjpeg applies when storing into its workspace.
    @inline(__always)
    private static func narrow(_ v: Int) -> Int32 { Int32(truncatingIfNeeded: v) }

    /// libjpeg's post-IDCT range-limit table: the low 10 bits are read as a signed value s,
    /// and the pixel is clamp(s + 128). Equal to clamp(v + 128) for sane data.
    ///
    /// Computed rather than looked up: this form serves one value per block (flat blocks, 1×1),
    /// where reading the global table cost a `swift_once` call per block.
    @inline(__always)
    static func rangeLimit(_ v: Int) -> UInt8 {
        let s = ((v & 1023) ^ 512) &- 512 &+ 128
        return UInt8(truncatingIfNeeded: s < 0 ? 0 : (s > 255 ? 255 : s))
    }

    /// `rangeLimit` with the table fetched by the caller, once per block.
    @inline(__always)
    static func rangeLimit(_ v: Int, _ table: UnsafeMutablePointer<UInt8>) -> UInt8 {
        table[v & 1023]
    }

    /// The LL&M 8-point IDCT of `jpeg_idct_islow` (CONST_BITS 13), before descaling.
    @inline(__always)
    private static func islow1D(_ c0: Int, _ c1: Int, _ c2: Int, _ c3: Int, _ c4: Int, _ c5: Int, _ c6: Int, _ c7: Int)
        -> (Int, Int, Int, Int, Int, Int, Int, Int) {
        // Even part.
        let z1 = (c2 &+ c6) &* 4433
        let t2 = z1 &+ c6 &* -15137
        let t3 = z1 &+ c2 &* 6270
        let t0 = (c0 &+ c4) &<< 13
        let t1 = (c0 &- c4) &<< 13
        let t10 = t0 &+ t3, t13 = t0 &- t3
        let t11 = t1 &+ t2, t12 = t1 &- t2

        // Odd part: a = c7, b = c5, c = c3, d = c1.
        let z5 = (c7 &+ c3 &+ c5 &+ c1) &* 9633
        let o1 = (c7 &+ c1) &* -7373
        let o2 = (c5 &+ c3) &* -20995
        let o3 = (c7 &+ c3) &* -16069 &+ z5
        let o4 = (c5 &+ c1) &* -3196 &+ z5
        let a = c7 &* 2446 &+ o1 &+ o3
        let b = c5 &* 16819 &+ o2 &+ o4
        let c = c3 &* 25172 &+ o2 &+ o3
        let d = c1 &* 12299 &+ o1 &+ o4

        return (t10 &+ d, t11 &+ c, t12 &+ b, t13 &+ a, t13 &- a, t12 &- b, t11 &- c, t10 &- d)
    }

    /// The 4-point step of `jpeg_idct_4x4` (input 4 is never used), before descaling.
    @inline(__always)
    private static func red4x4(_ c0: Int, _ c1: Int, _ c2: Int, _ c3: Int, _ c5: Int, _ c6: Int, _ c7: Int)
        -> (Int, Int, Int, Int) {
        let t0 = c0 &<< 14
        let t2 = c2 &* 15137 &+ c6 &* -6270
        let t10 = t0 &+ t2, t12 = t0 &- t2
        let p = c7 &* -1730 &+ c5 &* 11893 &+ c3 &* -17799 &+ c1 &* 8697
        let q = c7 &* -4176 &+ c5 &* -4926 &+ c3 &* 7373 &+ c1 &* 20995
        return (t10 &+ q, t12 &+ p, t12 &- p, t10 &- q)
    }

    /// The 2-point step of `jpeg_idct_2x2` (inputs 0, 1, 3, 5, 7), before descaling.
    @inline(__always)
    private static func red2x2(_ c0: Int, _ c1: Int, _ c3: Int, _ c5: Int, _ c7: Int) -> (Int, Int) {
        let t10 = c0 &<< 15
        let t0 = c7 &* -5906 &+ c5 &* 6967 &+ c3 &* -10426 &+ c1 &* 29692
        return (t10 &+ t0, t10 &- t0)
    }
}
