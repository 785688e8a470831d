/// Progressive Huffman scans (libjpeg `jdphuff.c`): DC first/refine, AC first/refine with
/// EOB runs, into the coefficient store. Refinement decides "already non-zero" from the
/// block's mask, so positions the scaled IDCT never reads need no stored value.
///
/// One value decodes one scan and can stop after any iMCU row and resume later: its bit
/// reader, restart state, DC predictors and EOB run are the whole state between rows. The
/// whole-image decode runs each scan to the end in turn; `ProgressiveBandDecoder` runs every
/// scan over one band before the next, into a store holding only that band.
struct ProgressiveScanDecoder {
    let scan: JPEGScanHeader
    private let keep: [HuffmanTable]
    private let lookups: [HuffmanLookup]
    private(set) var reader: BitReader
    private var restart: RestartState
    private var pred = InlineArray<4, Int32>(repeating: 0)
    private var eobrun = 0
    /// The next MCU row (interleaved scan) or block row (single-component scan) to decode.
    private var nextRow = 0
    /// Out of data with no restart marker left: no later row can change a coefficient.
    private var finished = false
    /// Problems found in this scan's entropy data, in order.
    private(set) var warnings: [String] = []

    /// Takes the Huffman tables the scan names from `tables` (as they are at its SOS); throws
    /// `.corrupt` when one is undefined. Decoding starts at `reader`'s position.
    init(scan: JPEGScanHeader, tables: JPEGTables, reader: BitReader) throws {
        let isDC = scan.ss == 0
        var keep: [HuffmanTable] = []
        if !(isDC && scan.ah != 0) {
            for i in 0..<scan.components.count {
                let slot = isDC ? scan.dcSlots[i] : scan.acSlots[i]
                guard slot <= 3, let t = isDC ? tables.dc[slot] : tables.ac[slot] else {
                    throw ImageCodecError(.corrupt, "scan uses an undefined Huffman table")
                }
                keep.append(t)
            }
        }
        self.scan = scan
        self.keep = keep
        lookups = keep.map(\.view)
        self.reader = reader
        restart = RestartState(interval: tables.restartInterval)
    }

    /// Decodes the rows of iMCU rows up to and including `band` not decoded yet into `store`
    /// (whole-image, or a band store holding `band`).
    mutating func decode(throughBand band: Int, frame: JPEGFrame, plan: DecodePlan, store: CoefficientStore,
                         lastGoodIMCURow: inout Int) {
        if finished { return }
        // Locals keep the bit reader and counters in registers (a property is reloaded).
        var reader = self.reader
        var restart = self.restart
        var pred = self.pred
        var eobrun = self.eobrun
        var row = nextRow
        defer {
            self.reader = reader
            self.restart = restart
            self.pred = pred
            self.eobrun = eobrun
            nextRow = row
        }
        let comps = scan.components
        let isDC = scan.ss == 0
        let ah = scan.ah, al = scan.al, ss = scan.ss, se = scan.se
        if comps.count > 1 {
            let end = min(frame.mcuRows, band &+ 1)
            while row < end {
                let my = row
                if restart.isFinished(reader) {
                    finished = true
                    return
                }
                for mx in 0..<frame.mcusPerLine {
                    if !restart.outOfData { lastGoodIMCURow = my }
                    if restart.beforeMCU(&reader) { for i in 0..<4 { pred[i] = 0 } }
                    if restart.outOfData { continue }
                    for (i, c) in comps.enumerated() {
                        let p = plan.components[c]
                        let plane = store.planes[c]
                        for by in 0..<p.v {
                            let storeRow = (my &* p.v &+ by) % plane.blocksHigh
                            for bx in 0..<p.h {
                                let block = storeRow &* plane.blocksWide &+ mx &* p.h &+ bx
                                let v = plane.values + block &* plane.slots
                                if ah == 0 {
                                    ProgressiveScanDecoder.dcFirst(&reader, lookups[i], &pred[i], v, al)
                                } else if reader.bit() != 0 {
                                    v[0] |= Int16(truncatingIfNeeded: 1 << al)
                                }
                            }
                        }
                    }
                    restart.afterMCU(reader, warnings: &warnings)
                }
                row &+= 1
            }
            return
        }
        let c = comps[0]
        let p = plan.components[c]
        let plane = store.planes[c]
        let lookup = lookups.first
        let end = min(p.dataBlocksHigh, (band &+ 1) &* p.v)
        while row < end {
            let by = row
            if restart.isFinished(reader) {
                finished = true
                return
            }
            let storeRow = by % plane.blocksHigh
            let imcuRow = by / p.v
            for bx in 0..<p.dataBlocksWide {
                if !restart.outOfData { lastGoodIMCURow = imcuRow }
                if restart.beforeMCU(&reader) {
                    pred[0] = 0
                    eobrun = 0
                }
                if restart.outOfData { continue }
                let block = storeRow &* plane.blocksWide &+ bx
                let v = plane.values + block &* plane.slots
                // Every scan but a DC refinement has its table (`init`).
                if let lookup {
                    if isDC {
                        ProgressiveScanDecoder.dcFirst(&reader, lookup, &pred[0], v, al)
                    } else if ah == 0 {
                        ProgressiveScanDecoder.acFirst(&reader, lookup, &eobrun, v, &plane.masks[block], plane.slotOfZigzag,
                                                       plane.sink, ss, se, al)
                    } else {
                        ProgressiveScanDecoder.acRefine(&reader, lookup, &eobrun, v, &plane.masks[block], plane.slotOfZigzag,
                                                        plane.keptMask, plane.sink, ss, se, al)
                    }
                } else if reader.bit() != 0 {
                    v[0] |= Int16(truncatingIfNeeded: 1 << al)
                }
                restart.afterMCU(reader, warnings: &warnings)
            }
            row &+= 1
        }
    }

    @inline(__always)
    static func dcFirst(_ r: inout BitReader, _ t: HuffmanLookup, _ pred: inout Int32,
                        _ v: UnsafeMutablePointer<Int16>, _ al: Int) {
        let s = r.decodeSymbol(t)
        if s != 0 { pred = pred &+ r.receiveExtend(s) }
        v[0] = Int16(truncatingIfNeeded: pred &<< Int32(truncatingIfNeeded: al))
    }

    @inline(__always)
    static func acFirst(_ r: inout BitReader, _ t: HuffmanLookup, _ eobrun: inout Int,
                        _ v: UnsafeMutablePointer<Int16>, _ mask: inout UInt64,
                        _ slotOf: UnsafeMutablePointer<Int8>, _ sink: UnsafeMutablePointer<Int16>,
                        _ ss: Int, _ se: Int, _ al: Int) {
        if eobrun > 0 {
            eobrun &-= 1
            return
        }
        var k = ss
        while k <= se {
            r.fill()
            let f = t.fastAC[r.peek(HuffmanTable.lookaheadBits)]
            if f != 0 {
                r.skip(Int(f & 0xFF))
                k &+= Int((f &>> 8) & 0xFF)
                let value = Int16(truncatingIfNeeded: (f &>> 16) &<< Int32(truncatingIfNeeded: al))
                let slot = Int(slotOf[k])
                (slot >= 0 ? v + slot : sink).pointee = value
                let bit = UInt64(1) &<< UInt64(truncatingIfNeeded: min(k, 63))
                if value != 0 { mask |= bit } else { mask &= ~bit }
                k &+= 1
                continue
            }
            let rs = r.decodeSymbol(t)
            let run = rs &>> 4, size = rs & 15
            if size != 0 {
                k &+= run
                let value = Int16(truncatingIfNeeded: r.receiveExtend(size) &<< Int32(truncatingIfNeeded: al))
                let slot = Int(slotOf[k])
                (slot >= 0 ? v + slot : sink).pointee = value
                let bit = UInt64(1) &<< UInt64(truncatingIfNeeded: min(k, 63))
                if value != 0 { mask |= bit } else { mask &= ~bit }
            } else if run == 15 {
                k &+= 15
            } else {
                eobrun = (1 &<< run) &+ r.receive(run) &- 1
                return
            }
            k &+= 1
        }
    }

    /// Reads one correction bit for each set bit of `positions`, lowest position first, and adds
    /// `p1` in the direction of the sign where the bit is 1 and the value lacks that bit.
    ///
    /// The bits are taken in one read, and only the positions the IDCT keeps (`kept`) are
    /// visited: a kept position's bit is found by counting the positions below it. At 1/4 scale
    /// that is 25 of 64 positions, at 1/8 only the DC, which refinement scans never touch.
    @inline(__always)
    static func correctAll(_ r: inout BitReader, _ v: UnsafeMutablePointer<Int16>, _ positions: UInt64,
                           _ kept: UInt64, _ slotOf: UnsafeMutablePointer<Int8>, _ p1: Int16) {
        let n = positions.nonzeroBitCount
        if n == 0 { return }
        // `fill` leaves at least 40 bits; more corrections than that (rare) go the long way.
        if n > 40 {
            r = correctedLong(r, v, positions, kept, slotOf, p1)
            return
        }
        apply(r.take(n), n, positions, kept, v, slotOf, p1)
    }

    /// `correctAll` for more than 40 positions, in two reads. Takes and returns the reader by
    /// value so that the common path keeps it in registers.
    @inline(never)
    static func correctedLong(_ reader: BitReader, _ v: UnsafeMutablePointer<Int16>, _ positions: UInt64,
                              _ kept: UInt64, _ slotOf: UnsafeMutablePointer<Int8>, _ p1: Int16) -> BitReader {
        var r = reader
        var later = positions
        for _ in 0..<32 { later &= later &- 1 }
        let first = positions & ~later
        apply(r.take(32), 32, first, kept, v, slotOf, p1)
        let n = later.nonzeroBitCount
        apply(r.take(n), n, later, kept, v, slotOf, p1)
        return r
    }

    /// Applies the `count` correction bits in the low bits of `word` (first bit highest) to the
    /// kept ones of `positions`. The bits are close to random, so the update is computed
    /// without branches on them (a mispredicted branch per bit costs more than the arithmetic).
    @inline(__always)
    static func apply(_ word: UInt64, _ count: Int, _ positions: UInt64, _ kept: UInt64,
                      _ v: UnsafeMutablePointer<Int16>, _ slotOf: UnsafeMutablePointer<Int8>, _ p1: Int16) {
        var m = positions & kept
        while m != 0 {
            let lowest = m & (0 &- m)
            let index = (positions & (lowest &- 1)).nonzeroBitCount
            let bit = Int16(truncatingIfNeeded: (word &>> UInt64(truncatingIfNeeded: count &- 1 &- index)) & 1)
            let slot = Int(slotOf[lowest.trailingZeroBitCount])
            let x = v[slot]
            let sign = x &>> 15
            let delta = (p1 ^ sign) &- sign
            let applies = bit & Int16(truncatingIfNeeded: (x & p1) == 0 ? 1 : 0)
            v[slot] = x &+ (delta & (0 &- applies))
            m &= m &- 1
        }
    }

    /// libjpeg `decode_mcu_AC_refine`. The walk over positions uses the non-zero mask: the
    /// target of a run is the (run+1)-th zero position, and every non-zero position before it
    /// takes a correction bit, in increasing order as in the bit stream.
    ///
    /// `live` holds the positions not walked yet (k...se), so the ranges before and after a
    /// target are plain mask arithmetic on its lowest set bit, without shifts by k or branches.
    ///
    /// Not inlined (the optimiser declined anyway, leaving the reader behind a pointer): the
    /// reader, EOB run and mask are copied into locals on entry and written back on exit, so
    /// that every bit read works on registers instead of loading and storing through `inout`.
    @inline(never)
    static func acRefine(_ reader: inout BitReader, _ t: HuffmanLookup, _ eobrunIO: inout Int,
                         _ v: UnsafeMutablePointer<Int16>, _ maskIO: inout UInt64,
                         _ slotOf: UnsafeMutablePointer<Int8>, _ kept: UInt64, _ sink: UnsafeMutablePointer<Int16>,
                         _ ss: Int, _ se: Int, _ al: Int) {
        var r = reader
        var eobrun = eobrunIO
        var mask = maskIO
        defer {
            reader = r
            eobrunIO = eobrun
            maskIO = mask
        }
        let p1 = Int16(truncatingIfNeeded: 1 << al)
        // Positions ss...se (1 ≤ ss ≤ se ≤ 63, checked at the scan header).
        let top: UInt64 = se >= 63 ? .max : (UInt64(1) &<< UInt64(truncatingIfNeeded: se &+ 1)) &- 1
        var live = top & ~((UInt64(1) &<< UInt64(truncatingIfNeeded: ss)) &- 1)
        if eobrun == 0 {
            while live != 0 {
                let rs = r.decodeSymbol(t)
                let run = rs &>> 4
                let size = rs & 15
                var newValue: Int16 = 0
                if size != 0 {
                    // The sign bit follows the code; `decodeSymbol` filled to at least 40 bits
                    // and used at most 17, so it is read without another fill check.
                    newValue = r.bufferedBit() != 0 ? p1 : 0 &- p1
                } else if run != 15 {
                    eobrun = (1 &<< run) &+ r.receive(run)
                    break
                }
                var zeros = ~mask & live
                for _ in 0..<run { zeros &= zeros &- 1 }
                // The target's bit, 0 when the run passes se (libjpeg then stops at se + 1).
                let targetBit = zeros & (0 &- zeros)
                let before = targetBit &- 1
                correctAll(&r, v, mask & live & before, kept, slotOf, p1)
                live &= ~(targetBit | before)
                if newValue != 0 {
                    let k = targetBit == 0 ? se &+ 1 : targetBit.trailingZeroBitCount
                    let slot = Int(slotOf[k])
                    (slot >= 0 ? v + slot : sink).pointee = newValue
                    mask |= UInt64(1) &<< UInt64(truncatingIfNeeded: min(k, 63))
                }
            }
        }
        if eobrun > 0 {
            correctAll(&r, v, mask & live, kept, slotOf, p1)
            eobrun &-= 1
        }
    }
}
