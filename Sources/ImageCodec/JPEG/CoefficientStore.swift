/// Whole-image coefficients for files with several scans (progressive, or sequential with one
/// scan per component), which must be complete before any block can be transformed.
///
/// Why not libjpeg's 128 bytes per block: the chosen scaled IDCT reads only some positions
/// (docs/jpeg-decoding.md "The IDCTs": 64, 49, 25 or 1), so only those are kept as values.
/// Progressive refinement also needs to know which of the other positions are non-zero (runs count
/// zero positions, correction bits follow non-zero ones), so every block carries a 64-bit mask, bit
/// k = zigzag position k is non-zero. A 1/8 decode of a 4:2:0 file thus keeps 10 bytes per luma
/// block instead of 128.
///
/// A band store (`init(plan:band:)`) holds one iMCU row instead of the whole image: the
/// progressive decoder then runs every scan over one band at a time (`ProgressiveBandDecoder`).
/// Block row `r` of the image lives in plane row `r % blocksHigh`, which is `r` itself in a
/// whole-image store.
final class CoefficientStore {
    struct Plane {
        let blocksWide: Int
        /// Block rows held: the whole image, or the component's `v` rows of one iMCU row.
        let blocksHigh: Int
        /// Values kept per block.
        let slots: Int
        /// `blocksWide · blocksHigh · slots` values, block after block in raster order.
        let values: UnsafeMutablePointer<Int16>
        let masks: UnsafeMutablePointer<UInt64>
        /// Zigzag position (0...79, past 63 aliasing 63 as libjpeg does) → slot, or -1.
        let slotOfZigzag: UnsafeMutablePointer<Int8>
        /// Natural index of each slot, for expanding a block before the IDCT.
        let naturalOfSlot: UnsafeMutablePointer<Int>
        /// Bit k set when zigzag position k (0...63) has a slot: refinement visits only these.
        let keptMask: UInt64
        /// One value past the last block, written in place of positions without a slot, so the
        /// scan decoders store every coefficient without a branch on the position (at reduced
        /// scales whether a position is kept changes from one coefficient to the next, and
        /// that branch mispredicted often).
        let sink: UnsafeMutablePointer<Int16>
    }

    let planes: [Plane]
    /// Bytes held for values and masks.
    let byteCount: Int

    /// The positions the `idctSize` × `idctSize` IDCT reads (64, 49, 25 or 1; see
    /// docs/jpeg-decoding.md), in natural order: slots follow natural order, so a full-size block
    /// is stored exactly as the IDCT reads it and needs no expansion.
    static func keptPositions(idctSize: Int) -> [(zigzag: Int, natural: Int)] {
        let natural = JPEGStandardTables.naturalOrder
        var kept: [(zigzag: Int, natural: Int)] = []
        for n in 0..<64 {
            let row = n >> 3, col = n & 7
            let keep: Bool
            switch idctSize {
            case 1: keep = n == 0
            case 2: keep = [0, 1, 3, 5, 7].contains(row) && [0, 1, 3, 5, 7].contains(col)
            case 4: keep = row != 4 && col != 4
            default: keep = true
            }
            if keep, let k = natural.firstIndex(of: n) { kept.append((k, n)) }
        }
        return kept
    }

    /// What `init(plan:)` will hold in values and masks (`byteCount`), checked for overflow,
    /// so the decoder can weigh it against `DecodeLimits.maxMemoryBytes` first.
    static func byteCount(for plan: DecodePlan, band: Bool = false) -> Int? {
        DecodeMemoryEstimate.sum(plan.components.map { c in
            let slots = keptPositions(idctSize: c.idctSize).count
            return DecodeMemoryEstimate.product([c.blocksWide, band ? c.v : c.blocksHigh, slots * 2 + 8])
        })
    }

    /// A whole-image store, or with `band` one iMCU row of it. Throws `.limitExceeded` when
    /// the store would not fit in an `Int`.
    init(plan: DecodePlan, band: Bool = false) throws {
        var made: [Plane] = []
        var bytes = 0
        for c in plan.components {
            let kept = CoefficientStore.keptPositions(idctSize: c.idctSize)
            let rows = band ? c.v : c.blocksHigh
            let (blocks, o1) = c.blocksWide.multipliedReportingOverflow(by: rows)
            let (count, o2) = blocks.multipliedReportingOverflow(by: kept.count)
            guard !o1, !o2, count < Int(Int32.max) * 16 else {
                throw ImageCodecError(.limitExceeded, "coefficient store for \(c.blocksWide)x\(c.blocksHigh) blocks is too large")
            }
            bytes += count * 2 + blocks * 8
            let values = UnsafeMutablePointer<Int16>.allocate(capacity: count &+ 1)
            values.initialize(repeating: 0, count: count &+ 1)
            let masks = UnsafeMutablePointer<UInt64>.allocate(capacity: max(blocks, 1))
            masks.initialize(repeating: 0, count: max(blocks, 1))
            let slotOf = UnsafeMutablePointer<Int8>.allocate(capacity: 80)
            slotOf.initialize(repeating: -1, count: 80)
            let naturalOfSlot = UnsafeMutablePointer<Int>.allocate(capacity: kept.count)
            var keptMask: UInt64 = 0
            for (slot, position) in kept.enumerated() {
                slotOf[position.zigzag] = Int8(slot)
                naturalOfSlot[slot] = position.natural
                keptMask |= 1 << UInt64(position.zigzag)
            }
            for k in 64..<80 { slotOf[k] = slotOf[63] }
            made.append(Plane(blocksWide: c.blocksWide, blocksHigh: rows, slots: kept.count,
                              values: values, masks: masks, slotOfZigzag: slotOf, naturalOfSlot: naturalOfSlot,
                              keptMask: keptMask, sink: values + count))
        }
        planes = made
        byteCount = bytes
    }

    deinit {
        for p in planes {
            p.values.deallocate()
            p.masks.deallocate()
            p.slotOfZigzag.deallocate()
            p.naturalOfSlot.deallocate()
        }
    }

    /// Zeroes every value and mask, for the next band of a band store.
    func clear() {
        for p in planes {
            p.values.update(repeating: 0, count: p.blocksWide * p.blocksHigh * p.slots)
            p.masks.update(repeating: 0, count: p.blocksWide * p.blocksHigh)
        }
    }

    /// Block (`bx`, plane row `row`) of `component` as the IDCT reads it, when the plane keeps
    /// all 64 values (full-size IDCT); nil otherwise.
    @inline(__always) func naturalBlock(component: Int, bx: Int, row: Int) -> UnsafePointer<Int16>? {
        let p = planes[component]
        guard p.slots == 64 else { return nil }
        return UnsafePointer(p.values + (row &* p.blocksWide &+ bx) &* 64)
    }

    /// Writes block (`bx`, plane row `row`) of `component` into `coef` (natural order), whose
    /// positions outside the kept set must already be zero.
    @inline(__always) func expand(component: Int, bx: Int, row: Int, into coef: UnsafeMutablePointer<Int16>) {
        let p = planes[component]
        let v = p.values + (row &* p.blocksWide &+ bx) &* p.slots
        for j in 0..<p.slots { coef[p.naturalOfSlot[j]] = v[j] }
    }
}
