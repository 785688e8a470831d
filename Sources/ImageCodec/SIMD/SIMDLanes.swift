// Lane-width conversions for the SIMD kernels, written lane by lane.
//
// Why: the standard library's generic `SIMD8(truncatingIfNeeded:)` is specialised per type
// pair but not always inlined; when the optimiser kept it as a call (it did once a second
// kernel used the same pair), the 8×8 IDCT spent about 380 extra instructions per block in
// those calls (callgrind). Lane-by-lane construction is always inlined and LLVM folds it into
// the same unpack/shift sequences.

extension SIMD8 where Scalar == Int32 {
    /// Sign-extends eight 16-bit lanes.
    @inline(__always) init(widening v: SIMD8<Int16>) {
        self.init(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]),
                  Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }
}

extension SIMD8 where Scalar == Int16 {
    /// Keeps the low 16 bits of eight 32-bit lanes.
    @inline(__always) init(narrowing v: SIMD8<Int32>) {
        self.init(Int16(truncatingIfNeeded: v[0]), Int16(truncatingIfNeeded: v[1]),
                  Int16(truncatingIfNeeded: v[2]), Int16(truncatingIfNeeded: v[3]),
                  Int16(truncatingIfNeeded: v[4]), Int16(truncatingIfNeeded: v[5]),
                  Int16(truncatingIfNeeded: v[6]), Int16(truncatingIfNeeded: v[7]))
    }

    /// Zero-extends eight bytes.
    @inline(__always) init(widening v: SIMD8<UInt8>) {
        self.init(Int16(v[0]), Int16(v[1]), Int16(v[2]), Int16(v[3]),
                  Int16(v[4]), Int16(v[5]), Int16(v[6]), Int16(v[7]))
    }
}

extension SIMD8 where Scalar == UInt8 {
    /// Keeps the low 8 bits of eight 16-bit lanes.
    @inline(__always) init(narrowing v: SIMD8<Int16>) {
        self.init(UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]),
                  UInt8(truncatingIfNeeded: v[2]), UInt8(truncatingIfNeeded: v[3]),
                  UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]),
                  UInt8(truncatingIfNeeded: v[6]), UInt8(truncatingIfNeeded: v[7]))
    }
}

extension SIMD8 where Scalar == UInt32 {
    /// Zero-extends eight 16-bit lanes.
    @inline(__always) init(widening v: SIMD8<UInt16>) {
        self.init(UInt32(v[0]), UInt32(v[1]), UInt32(v[2]), UInt32(v[3]),
                  UInt32(v[4]), UInt32(v[5]), UInt32(v[6]), UInt32(v[7]))
    }
}

extension SIMD8 where Scalar == UInt16 {
    /// Keeps the low 16 bits of eight 32-bit lanes.
    @inline(__always) init(narrowing v: SIMD8<UInt32>) {
        self.init(UInt16(truncatingIfNeeded: v[0]), UInt16(truncatingIfNeeded: v[1]),
                  UInt16(truncatingIfNeeded: v[2]), UInt16(truncatingIfNeeded: v[3]),
                  UInt16(truncatingIfNeeded: v[4]), UInt16(truncatingIfNeeded: v[5]),
                  UInt16(truncatingIfNeeded: v[6]), UInt16(truncatingIfNeeded: v[7]))
    }
}
