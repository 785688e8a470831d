/// The eight pixels across one loop-filter edge (p3 p2 p1 p0 | q0 q1 q2 q3) for 16 positions
/// along it, one 16-bit lane per position: lanes 0-7 come from the first pointer, 8-15 from
/// the second (the two halves of a luma edge, or the same edge in U and V).
///
/// A horizontal edge's rows are loaded as they lie in memory; a vertical edge's 16 rows of
/// 8 bytes are transposed into lanes with the 8×8 interleave transpose and back after.
/// Only p2…q2 are written back: no filter changes p3 or q3.
struct VP8EdgeLanes {
    typealias Lanes = SIMD16<Int16>
    var p3: Lanes, p2: Lanes, p1: Lanes, p0: Lanes, q0: Lanes, q1: Lanes, q2: Lanes, q3: Lanes

    @inline(__always)
    private static func widen(_ a: UInt64, _ b: UInt64) -> Lanes {
        Lanes(lowHalf: SIMD8<Int16>(widening: unsafeBitCast(a, to: SIMD8<UInt8>.self)),
              highHalf: SIMD8<Int16>(widening: unsafeBitCast(b, to: SIMD8<UInt8>.self)))
    }

    @inline(__always)
    private static func narrow(_ v: SIMD8<Int16>) -> UInt64 { unsafeBitCast(SIMD8<UInt8>(narrowing: v), to: UInt64.self) }

    @inline(__always)
    private static func load(_ p: UnsafeMutablePointer<UInt8>) -> UInt64 { UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) }

    @inline(__always)
    private static func store(_ v: UInt64, _ p: UnsafeMutablePointer<UInt8>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: UInt64.self) }

    /// The horizontal edge above row `a` (and `b`): rows −4…3 at `stride`, 8 pixels from each.
    @inline(__always)
    init(horizontalEdge a: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func row(_ k: Int) -> Lanes { Self.widen(Self.load(a + k &* stride), Self.load(b + k &* stride)) }
        p3 = row(-4); p2 = row(-3); p1 = row(-2); p0 = row(-1)
        q0 = row(0); q1 = row(1); q2 = row(2); q3 = row(3)
    }

    @inline(__always)
    func storeHorizontalEdge(_ a: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func row(_ v: Lanes, _ k: Int) {
            Self.store(Self.narrow(v.lowHalf), a + k &* stride)
            Self.store(Self.narrow(v.highHalf), b + k &* stride)
        }
        row(p2, -3); row(p1, -2); row(p0, -1); row(q0, 0); row(q1, 1); row(q2, 2)
    }

    /// The vertical edge left of column `a` (and `b`): 8 rows from each, bytes −4…3 of a row.
    @inline(__always)
    init(verticalEdge a: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func rows(_ base: UnsafeMutablePointer<UInt8>)
            -> (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>) {
            @inline(__always) func r(_ k: Int) -> SIMD8<Int16> {
                SIMD8<Int16>(widening: unsafeBitCast(Self.load(base + (k &* stride &- 4)), to: SIMD8<UInt8>.self))
            }
            return transpose8x8(r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7))
        }
        let x = rows(a), y = rows(b)
        p3 = Lanes(lowHalf: x.0, highHalf: y.0); p2 = Lanes(lowHalf: x.1, highHalf: y.1)
        p1 = Lanes(lowHalf: x.2, highHalf: y.2); p0 = Lanes(lowHalf: x.3, highHalf: y.3)
        q0 = Lanes(lowHalf: x.4, highHalf: y.4); q1 = Lanes(lowHalf: x.5, highHalf: y.5)
        q2 = Lanes(lowHalf: x.6, highHalf: y.6); q3 = Lanes(lowHalf: x.7, highHalf: y.7)
    }

    @inline(__always)
    func storeVerticalEdge(_ a: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func rows(_ base: UnsafeMutablePointer<UInt8>, _ c: (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>,
                                                                            SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>)) {
            let t = transpose8x8(c.0, c.1, c.2, c.3, c.4, c.5, c.6, c.7)
            @inline(__always) func r(_ v: SIMD8<Int16>, _ k: Int) { Self.store(Self.narrow(v), base + (k &* stride &- 4)) }
            r(t.0, 0); r(t.1, 1); r(t.2, 2); r(t.3, 3); r(t.4, 4); r(t.5, 5); r(t.6, 6); r(t.7, 7)
        }
        rows(a, (p3.lowHalf, p2.lowHalf, p1.lowHalf, p0.lowHalf, q0.lowHalf, q1.lowHalf, q2.lowHalf, q3.lowHalf))
        rows(b, (p3.highHalf, p2.highHalf, p1.highHalf, p0.highHalf, q0.highHalf, q1.highHalf, q2.highHalf, q3.highHalf))
    }
}
