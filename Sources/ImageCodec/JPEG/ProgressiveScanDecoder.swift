/// Progressive Huffman scans (libjpeg `jdphuff.c`): DC first/refine, AC first/refine with
/// EOB runs, into the coefficient store. Refinement decides "already non-zero" from the
/// block's mask, so positions the scaled IDCT never reads need no stored value.
enum ProgressiveScanDecoder {
    static func decode(_ input: inout BitReader, scan: JPEGScanHeader, frame: JPEGFrame,
                       tables: JPEGTables, plan: DecodePlan, store: CoefficientStore,
                       lastGoodIMCURow: inout Int, warnings: inout [String]) throws {
        let isDC = scan.ss == 0
        var keep: [HuffmanTable] = []
        var lookups: [HuffmanLookup] = []
        if !(isDC && scan.ah != 0) {
            for i in 0..<scan.components.count {
                let slot = isDC ? scan.dcSlots[i] : scan.acSlots[i]
                guard slot <= 3, let t = isDC ? tables.dc[slot] : tables.ac[slot] else {
                    throw ImageCodecError(.corrupt, "scan uses an undefined Huffman table")
                }
                keep.append(t)
                lookups.append(t.view)
            }
        }
        defer { withExtendedLifetime(keep) {} }
        // A local copy keeps the bit reader in registers (an inout parameter is reloaded).
        var reader = input
        defer { input = reader }
        var restart = RestartState(interval: tables.restartInterval)
        var pred = [Int32](repeating: 0, count: scan.components.count)
        var eobrun = 0
        let comps = scan.components
        let al = scan.al, ss = scan.ss, se = scan.se
        if comps.count > 1 {
            for my in 0..<frame.mcuRows {
                if restart.isFinished(reader) { return }
                for mx in 0..<frame.mcusPerLine {
                    if !restart.outOfData { lastGoodIMCURow = my }
                    if restart.beforeMCU(&reader) { for i in pred.indices { pred[i] = 0 } }
                    if restart.outOfData { continue }
                    for (i, c) in comps.enumerated() {
                        let p = plan.components[c]
                        let plane = store.planes[c]
                        for by in 0..<p.v {
                            for bx in 0..<p.h {
                                let block = (my &* p.v &+ by) &* plane.blocksWide &+ mx &* p.h &+ bx
                                let v = plane.values + block &* plane.slots
                                if scan.ah == 0 {
                                    dcFirst(&reader, lookups[i], &pred[i], v, al)
                                } else if reader.bit() != 0 {
                                    v[0] |= Int16(truncatingIfNeeded: 1 << al)
                                }
                            }
                        }
                    }
                    restart.afterMCU(reader, warnings: &warnings)
                }
            }
            return
        }
        let c = comps[0]
        let p = plan.components[c]
        let plane = store.planes[c]
        for by in 0..<p.dataBlocksHigh {
            if restart.isFinished(reader) { return }
            for bx in 0..<p.dataBlocksWide {
                if !restart.outOfData { lastGoodIMCURow = by / p.v }
                if restart.beforeMCU(&reader) {
                    pred[0] = 0
                    eobrun = 0
                }
                if restart.outOfData { continue }
                let block = by &* plane.blocksWide &+ bx
                let v = plane.values + block &* plane.slots
                if isDC {
                    if scan.ah == 0 {
                        dcFirst(&reader, lookups[0], &pred[0], v, al)
                    } else if reader.bit() != 0 {
                        v[0] |= Int16(truncatingIfNeeded: 1 << al)
                    }
                } else if scan.ah == 0 {
                    acFirst(&reader, lookups[0], &eobrun, v, &plane.masks[block], plane.slotOfZigzag, ss, se, al)
                } else {
                    acRefine(&reader, lookups[0], &eobrun, v, &plane.masks[block], plane.slotOfZigzag, ss, se, al)
                }
                restart.afterMCU(reader, warnings: &warnings)
            }
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
                        _ slotOf: UnsafeMutablePointer<Int8>, _ ss: Int, _ se: Int, _ al: Int) {
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
                if slot >= 0 { v[slot] = value }
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
                if slot >= 0 { v[slot] = value }
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

    /// Adds `p1` in the direction of the sign when a correction bit is 1 and the bit is not set yet.
    @inline(__always)
    static func correct(_ r: inout BitReader, _ v: UnsafeMutablePointer<Int16>, _ slot: Int, _ p1: Int16) {
        if r.bit() != 0 && slot >= 0 {
            let x = v[slot]
            if x & p1 == 0 { v[slot] = x >= 0 ? x &+ p1 : x &- p1 }
        }
    }

    /// Bits lo...hi of a 64-bit mask (empty when lo > hi); 0 ≤ lo ≤ 64, hi ≤ 63.
    @inline(__always)
    static func bitRange(_ lo: Int, _ hi: Int) -> UInt64 {
        guard lo <= hi else { return 0 }
        let top: UInt64 = hi >= 63 ? .max : (UInt64(1) &<< UInt64(truncatingIfNeeded: hi &+ 1)) &- 1
        return top & ~((UInt64(1) &<< UInt64(truncatingIfNeeded: lo)) &- 1)
    }

    /// Reads one correction bit for each non-zero position in `positions`, lowest first.
    @inline(__always)
    static func correctAll(_ r: inout BitReader, _ v: UnsafeMutablePointer<Int16>, _ positions: UInt64,
                           _ slotOf: UnsafeMutablePointer<Int8>, _ p1: Int16) {
        var m = positions
        while m != 0 {
            correct(&r, v, Int(slotOf[m.trailingZeroBitCount]), p1)
            m &= m &- 1
        }
    }

    /// libjpeg `decode_mcu_AC_refine`. The walk over positions uses the non-zero mask: the
    /// target of a run is the (run+1)-th zero position, and every non-zero position before it
    /// takes a correction bit, in increasing order as in the bit stream.
    @inline(__always)
    static func acRefine(_ r: inout BitReader, _ t: HuffmanLookup, _ eobrun: inout Int,
                         _ v: UnsafeMutablePointer<Int16>, _ mask: inout UInt64,
                         _ slotOf: UnsafeMutablePointer<Int8>, _ ss: Int, _ se: Int, _ al: Int) {
        let p1 = Int16(truncatingIfNeeded: 1 << al)
        var k = ss
        if eobrun == 0 {
            while k <= se {
                let rs = r.decodeSymbol(t)
                let run = rs &>> 4
                let size = rs & 15
                var newValue: Int16 = 0
                if size != 0 {
                    newValue = r.bit() != 0 ? p1 : 0 &- p1
                } else if run != 15 {
                    eobrun = (1 &<< run) &+ r.receive(run)
                    break
                }
                var zeros = ~mask & bitRange(k, se)
                for _ in 0..<run { zeros &= zeros &- 1 }
                let target = zeros == 0 ? se &+ 1 : zeros.trailingZeroBitCount
                correctAll(&r, v, mask & bitRange(k, target &- 1), slotOf, p1)
                k = target
                if newValue != 0 {
                    let slot = Int(slotOf[k])
                    if slot >= 0 { v[slot] = newValue }
                    mask |= UInt64(1) &<< UInt64(truncatingIfNeeded: min(k, 63))
                }
                k &+= 1
            }
        }
        if eobrun > 0 {
            correctAll(&r, v, mask & bitRange(k, se), slotOf, p1)
            eobrun &-= 1
        }
    }
}
