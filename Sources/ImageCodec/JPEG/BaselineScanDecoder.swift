/// Sequential (baseline and extended) Huffman scans, libjpeg `jdhuff.c decode_mcu_slow`
/// semantics. A scan holding every component of the frame streams straight into the
/// renderer one iMCU row at a time; a scan holding some components of a multi-component frame
/// (non-interleaved sequential) fills the coefficient store instead.
enum BaselineScanDecoder {
    /// Huffman tables of one scan component, borrowed for the duration of the scan.
    struct ComponentTables {
        let dc: HuffmanLookup
        let ac: HuffmanLookup
    }

    /// Decodes one block into `coef` (natural order, zero on entry). With `skip` (components
    /// whose IDCT reads only the DC) the AC symbols are parsed but not stored, several per
    /// lookup (`ACSkipTable`).
    @inline(__always)
    static func decodeBlock(_ r: inout BitReader, _ t: ComponentTables, _ pred: inout Int32,
                            _ coef: UnsafeMutablePointer<Int16>, _ natural: UnsafePointer<Int>,
                            skip: UnsafePointer<UInt32>?) {
        let s = r.decodeSymbol(t.dc)
        if s != 0 { pred = pred &+ r.receiveExtend(s) }
        coef[0] = Int16(truncatingIfNeeded: pred)
        var k = 1
        // Both loops refill only when the next lookup could run short (a fill leaves at least
        // 40 bits; the single-symbol paths fill for themselves): refilling whenever fewer than
        // 40 bits were left meant a refill every two or three lookups.
        if let skip {
            // The valid bits left-aligned in `window`: a lookup is then one shift, and consuming
            // one more (the reader's accumulator only changes at a fill). Each entry's index
            // depends on the previous entry, so this chain sets the pace of a 1/8 decode.
            var window = r.acc &<< UInt64(truncatingIfNeeded: 64 &- r.bits)
            while k < 64 {
                if r.bits < ACSkipTable.bits {
                    r.fill()
                    window = r.acc &<< UInt64(truncatingIfNeeded: 64 &- r.bits)
                }
                let e = skip[Int(truncatingIfNeeded: window &>> UInt64(64 &- ACSkipTable.bits))]
                // Also false for an entry with no symbol (its field is 255).
                if k &+ Int((e &>> 8) & 0xFF) < 64 {
                    let used = e & 0xFF
                    r.skip(Int(used))
                    window &<<= UInt64(used)
                    // End-of-block adds 64, which ends the loop.
                    k &+= Int(e &>> 16)
                    continue
                }
                let rs = r.decodeSymbol(t.ac)
                let run = rs &>> 4, size = rs & 15
                if size != 0 {
                    r.skip(size)
                    k &+= run &+ 1
                } else {
                    if run != 15 { break }
                    k &+= 16
                }
                window = r.acc &<< UInt64(truncatingIfNeeded: 64 &- r.bits)
            }
        } else {
            while k < 64 {
                if r.bits < HuffmanTable.lookaheadBits { r.fill() }
                let f = t.ac.fastAC[r.peek(HuffmanTable.lookaheadBits)]
                if f != 0 {
                    r.skip(Int(f & 0xFF))
                    k &+= Int((f &>> 8) & 0xFF)
                    coef[natural[k]] = Int16(truncatingIfNeeded: f &>> 16)
                    k &+= 1
                    continue
                }
                let rs = r.decodeSymbol(t.ac)
                let run = rs &>> 4, size = rs & 15
                if size != 0 {
                    k &+= run
                    coef[natural[k]] = Int16(truncatingIfNeeded: r.receiveExtend(size))
                    k &+= 1
                } else {
                    if run != 15 { break }
                    k &+= 16
                }
            }
        }
    }

    /// One block position of an MCU in a streamed scan, resolved once per scan so the MCU
    /// loop reads no arrays, classes or plans per block.
    struct BlockSlot {
        /// Scan component index (predictor and tables).
        let scanIndex: Int
        let component: Int
        let tables: ComponentTables
        /// Set for components whose IDCT reads only the DC.
        let skip: UnsafePointer<UInt32>?
        let quant: UnsafePointer<UInt16>
        /// From the component's band origin to this block in the first MCU of the row.
        let offset: Int
        /// From one MCU's block to the next MCU's (h · IDCT size).
        let step: Int
        let size: Int
        let stride: Int
    }

    /// Tables for each scan component; throws when a slot was never defined.
    static func huffmanTables(for scan: JPEGScanHeader, _ tables: JPEGTables) throws -> ([ComponentTables], [HuffmanTable]) {
        var out: [ComponentTables] = [], keep: [HuffmanTable] = []
        for i in 0..<scan.components.count {
            guard scan.dcSlots[i] <= 3, scan.acSlots[i] <= 3,
                  let dc = tables.dc[scan.dcSlots[i]], let ac = tables.ac[scan.acSlots[i]] else {
                throw ImageCodecError(.corrupt, "scan uses an undefined Huffman table")
            }
            out.append(ComponentTables(dc: dc.view, ac: ac.view))
            keep += [dc, ac]
        }
        return (out, keep)
    }

    /// Decodes a scan covering every frame component and renders the image band by band.
    ///
    /// The MCU's blocks are a precomputed list of `BlockSlot`s (with one component, one slot
    /// and one block per MCU), and the block decode is inlined into this one loop.
    static func decodeStreaming(_ input: inout BitReader, scan: JPEGScanHeader, frame: JPEGFrame,
                                tables: JPEGTables, renderer: MCURowRenderer, warnings: inout [String]) throws {
        let (ct, keep) = try huffmanTables(for: scan, tables)
        let plan = renderer.plan
        let comps = scan.components
        // One skip table per AC table: the chroma components usually share theirs.
        var skipTables: [(id: ObjectIdentifier, table: ACSkipTable)] = []
        var slotList: [BlockSlot] = []
        for (i, c) in comps.enumerated() {
            let p = plan.components[c]
            var skip: UnsafePointer<UInt32>? = nil
            if p.idctSize == 1 {
                let id = ObjectIdentifier(keep[2 &* i &+ 1])
                let table: ACSkipTable
                if let built = skipTables.first(where: { $0.id == id }) {
                    table = built.table
                } else {
                    table = ACSkipTable(ct[i].ac)
                    skipTables.append((id, table))
                }
                skip = UnsafePointer(table.entries)
            }
            let (v, h) = comps.count > 1 ? (p.v, p.h) : (1, 1)
            for by in 0..<v {
                for bx in 0..<h {
                    slotList.append(BlockSlot(scanIndex: i, component: c, tables: ct[i], skip: skip,
                                              quant: UnsafePointer(renderer.quant[c]),
                                              offset: by &* p.idctSize &* p.rowStride &+ bx &* p.idctSize,
                                              step: h &* p.idctSize, size: p.idctSize, stride: p.rowStride))
                }
            }
        }
        defer { withExtendedLifetime((keep, skipTables)) {} }
        // A local copy keeps the bit reader in registers (an inout parameter is reloaded).
        var reader = input
        defer { input = reader }
        var restart = RestartState(interval: tables.restartInterval)
        let slotCount = slotList.count
        let slots = UnsafeMutablePointer<BlockSlot>.allocate(capacity: slotCount)
        slots.initialize(from: slotList, count: slotCount)
        let origins = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>>.allocate(capacity: slotCount)
        let pred = UnsafeMutablePointer<Int32>.allocate(capacity: 4)
        pred.initialize(repeating: 0, count: 4)
        defer {
            slots.deinitialize(count: slotCount)
            slots.deallocate()
            origins.deallocate()
            pred.deallocate()
        }
        let scratch = renderer.scratch
        let idct8 = renderer.kernels.idct8x8
        let natural = JPEGStandardTables.naturalPointer
        // One component: only the blocks holding image data, row by row of blocks.
        let single = comps.count == 1 ? plan.components[comps[0]] : nil
        let rowsPerBand = single?.v ?? 1
        let mcusPerRow = single?.dataBlocksWide ?? frame.mcusPerLine
        let dcOnly = slotList.allSatisfy { $0.size == 1 && $0.skip != nil }
        for band in 0..<plan.bands {
            for by in 0..<rowsPerBand {
                if let single, band &* single.v &+ by >= single.dataBlocksHigh { break }
                for s in 0..<slotCount {
                    origins[s] = renderer.blockRow(slots[s].component, band: band, by: by) + slots[s].offset
                }
                if dcOnly {
                    decodeDCOnlyRow(&reader, slots: slots, count: slotCount, origins: origins, pred: pred,
                                    mcus: mcusPerRow, restart: &restart, warnings: &warnings,
                                    scratch: scratch, natural: natural)
                    continue
                }
                for mx in 0..<mcusPerRow {
                    if restart.beforeMCU(&reader) { pred.update(repeating: 0, count: 4) }
                    if restart.outOfData {
                        for s in 0..<slotCount {
                            let slot = slots[s]
                            MCURowRenderer.fillGrey(size: slot.size, origins[s] + mx &* slot.step, slot.stride)
                        }
                        continue
                    }
                    for s in 0..<slotCount {
                        let slot = slots[s]
                        let dst = origins[s] + mx &* slot.step
                        decodeBlock(&reader, slot.tables, &pred[slot.scanIndex], scratch, natural, skip: slot.skip)
                        MCURowRenderer.idct(size: slot.size, scratch, slot.quant, dst, slot.stride, idct8)
                        if slot.skip != nil {
                            scratch[0] = 0
                        } else {
                            UnsafeMutableRawPointer(scratch).initializeMemory(as: UInt64.self, repeating: 0, count: 16)
                        }
                    }
                    restart.afterMCU(reader, warnings: &warnings)
                }
            }
            if band > 0 { try renderer.emit(band: band - 1) }
        }
        try renderer.emit(band: plan.bands - 1)
    }

    /// One row of MCUs whose blocks are all read for their DC only and transformed 1×1 (every
    /// component at 1/8 that is not upsampled by its IDCT: 4:4:4 and gray thumbnails). The
    /// pixel is `ScaledIDCT.idct1x1`'s, computed here: the general loop's IDCT switch, call
    /// and scratch clearing cost more per block than the level itself.
    @inline(never)
    static func decodeDCOnlyRow(_ reader: inout BitReader, slots: UnsafePointer<BlockSlot>, count: Int,
                                origins: UnsafePointer<UnsafeMutablePointer<UInt8>>, pred: UnsafeMutablePointer<Int32>,
                                mcus: Int, restart: inout RestartState, warnings: inout [String],
                                scratch: UnsafeMutablePointer<Int16>, natural: UnsafePointer<Int>) {
        var r = reader
        defer { reader = r }
        for mx in 0..<mcus {
            if restart.beforeMCU(&r) { pred.update(repeating: 0, count: 4) }
            if restart.outOfData {
                for s in 0..<count { origins[s][mx &* slots[s].step] = 128 }
                continue
            }
            for s in 0..<count {
                let slot = slots[s]
                decodeBlock(&r, slot.tables, &pred[slot.scanIndex], scratch, natural, skip: slot.skip)
                let level = Int(scratch[0]) &* Int(Int16(bitPattern: slot.quant[0]))
                origins[s][mx &* slot.step] = ScaledIDCT.rangeLimit((level &+ 4) &>> 3)
                scratch[0] = 0
            }
            restart.afterMCU(r, warnings: &warnings)
        }
    }

    /// Decodes a sequential scan into the coefficient store (multi-scan sequential files).
    static func decodeIntoStore(_ input: inout BitReader, scan: JPEGScanHeader, frame: JPEGFrame,
                                tables: JPEGTables, plan: DecodePlan, store: CoefficientStore,
                                scratch: UnsafeMutablePointer<Int16>, warnings: inout [String]) throws {
        let (ct, keep) = try huffmanTables(for: scan, tables)
        defer { withExtendedLifetime(keep) {} }
        var reader = input
        defer { input = reader }
        var restart = RestartState(interval: tables.restartInterval)
        var pred = [Int32](repeating: 0, count: ct.count)
        let comps = scan.components
        let natural = JPEGStandardTables.naturalOrder
        func put(_ i: Int, _ c: Int, _ bx: Int, _ by: Int, _ nat: UnsafePointer<Int>) {
            let plane = store.planes[c]
            decodeBlock(&reader, ct[i], &pred[i], scratch, nat, skip: nil)
            guard bx < plane.blocksWide, by < plane.blocksHigh else { return }
            let block = by &* plane.blocksWide &+ bx
            let v = plane.values + block &* plane.slots
            var mask: UInt64 = 0
            for k in 0..<64 {
                let slot = Int(plane.slotOfZigzag[k])
                let value = scratch[natural[k]]
                if value != 0 { mask |= 1 &<< UInt64(k) }
                (slot >= 0 ? v + slot : plane.sink).pointee = value
            }
            plane.masks[block] = mask
            (UnsafeMutableRawPointer(scratch)).initializeMemory(as: UInt64.self, repeating: 0, count: 16)
        }
        let nat = JPEGStandardTables.naturalPointer
        if comps.count > 1 {
            for my in 0..<frame.mcuRows {
                if restart.isFinished(reader) { return }
                for mx in 0..<frame.mcusPerLine {
                    if restart.beforeMCU(&reader) { for i in pred.indices { pred[i] = 0 } }
                    if restart.outOfData { continue }
                    for (i, c) in comps.enumerated() {
                        let p = plan.components[c]
                        for by in 0..<p.v {
                            for bx in 0..<p.h { put(i, c, mx &* p.h &+ bx, my &* p.v &+ by, nat) }
                        }
                    }
                    restart.afterMCU(reader, warnings: &warnings)
                }
            }
        } else {
            let c = comps[0]
            let p = plan.components[c]
            for by in 0..<p.dataBlocksHigh {
                if restart.isFinished(reader) { return }
                for bx in 0..<p.dataBlocksWide {
                    if restart.beforeMCU(&reader) { pred[0] = 0 }
                    if restart.outOfData { continue }
                    put(0, c, bx, by, nat)
                    restart.afterMCU(reader, warnings: &warnings)
                }
            }
        }
    }
}
