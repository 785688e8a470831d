// The 8×8 transpose shared by the vector IDCT (decoder) and the vector FDCT (encoder).

/// 8×8 transpose of 16-bit lanes in three interleave stages (16-, 32-, 64-bit units), the
/// lane patterns LLVM emits as punpck{l,h}{wd,dq,qdq}.
@inline(__always)
func transpose8x8(_ r0: SIMD8<Int16>, _ r1: SIMD8<Int16>, _ r2: SIMD8<Int16>, _ r3: SIMD8<Int16>,
                  _ r4: SIMD8<Int16>, _ r5: SIMD8<Int16>, _ r6: SIMD8<Int16>, _ r7: SIMD8<Int16>)
    -> (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>) {
    typealias W = SIMD4<Int32>
    typealias Q = SIMD2<Int64>
    @inline(__always) func lo16(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> W {
        unsafeBitCast(SIMD8<Int16>(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]), to: W.self)
    }
    @inline(__always) func hi16(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> W {
        unsafeBitCast(SIMD8<Int16>(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]), to: W.self)
    }
    @inline(__always) func lo32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[0], b[0], a[1], b[1]), to: Q.self) }
    @inline(__always) func hi32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[2], b[2], a[3], b[3]), to: Q.self) }
    @inline(__always) func lo64(_ a: Q, _ b: Q) -> SIMD8<Int16> { unsafeBitCast(Q(a[0], b[0]), to: SIMD8<Int16>.self) }
    @inline(__always) func hi64(_ a: Q, _ b: Q) -> SIMD8<Int16> { unsafeBitCast(Q(a[1], b[1]), to: SIMD8<Int16>.self) }
    let t0 = lo16(r0, r1), t1 = hi16(r0, r1), t2 = lo16(r2, r3), t3 = hi16(r2, r3)
    let t4 = lo16(r4, r5), t5 = hi16(r4, r5), t6 = lo16(r6, r7), t7 = hi16(r6, r7)
    let u0 = lo32(t0, t2), u1 = hi32(t0, t2), u2 = lo32(t1, t3), u3 = hi32(t1, t3)
    let u4 = lo32(t4, t6), u5 = hi32(t4, t6), u6 = lo32(t5, t7), u7 = hi32(t5, t7)
    return (lo64(u0, u4), hi64(u0, u4), lo64(u1, u5), hi64(u1, u5),
            lo64(u2, u6), hi64(u2, u6), lo64(u3, u7), hi64(u3, u7))
}
