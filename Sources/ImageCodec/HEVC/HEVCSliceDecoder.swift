/// Decodes the slice segments of one picture (H.265 7.3.8): the CTU loop in tile scan with
/// its substream and context handling (9.3.1: tiles, wavefront storage/sync, dependent
/// slice segments), SAO syntax, and the per-slice state the coding units read.
///
/// Serially, substreams are not located through the entry points: after end_of_subset_one_bit
/// the next one starts at the byte the arithmetic decoder reads next, which is where the entry
/// point says for a conforming stream; `HEVCWavefront` uses the entry points to decode a
/// wavefront segment's rows on two threads. Hot state (the arithmetic decoder, contexts, scratch blocks)
/// lives behind pointers allocated once per picture, so the per-bin and per-sample paths do
/// no exclusivity checks or allocations; measured with callgrind on a 1920x1080 intra picture:
/// about the instructions of libde265 (with its SIMD), filters included (docs/heif-hevc.md).
final class HEVCSliceDecoder {
    let frame: HEVCFrame
    let sps: HEVCSequenceParameterSet
    let pps: HEVCPictureParameterSet
    /// Context variables: the live set, the wavefront copy (after the second CTB of a row)
    /// and the dependent-slice copy (end of the previous slice segment).
    let contexts: UnsafeMutablePointer<UInt8>
    let wppContexts: UnsafeMutablePointer<UInt8>
    let sliceEndContexts: UnsafeMutablePointer<UInt8>
    /// Coefficient and residual scratch, 32×32 each.
    let coefficients: UnsafeMutablePointer<Int32>
    let residual: UnsafeMutablePointer<Int32>
    /// Intra reference samples (4 × 64 + 1) and a filtered copy.
    let references: UnsafeMutablePointer<Int32>
    let filteredReferences: UnsafeMutablePointer<Int32>
    /// Which reference samples are available, and the significant scan positions of a sub-block.
    let referenceAvailable: UnsafeMutablePointer<Bool>
    /// refMain of angular prediction (3 × 32 + 1 values).
    let angularLine: UnsafeMutablePointer<Int32>
    let significant: UnsafeMutablePointer<Int>
    /// The kernel set of this process (portable or AVX2), read once per picture.
    let kernels = HEVCKernelDispatch.selected

    /// The arithmetic decoder, behind a pointer so that decoding a bin is a plain memory
    /// access rather than an exclusivity-checked modify of a class property.
    let cabac: UnsafeMutablePointer<HEVCCABACEngine>
    /// Polled at the start of each CTB row: true ends the decode with an error (the caller
    /// no longer needs the picture).
    var stop: (() -> Bool)?
    /// Called before the first CTB of each CTB row the slices reach, with that row: a
    /// windowed frame (`HEVCRowStream`) finishes the rows above it there.
    var startRow: ((Int) throws -> Void)?
    /// The stream behind `startRow`, when the frame is windowed.
    var stream: HEVCRowStream?
    /// Whether wavefront slice segments may be decoded on two threads (`HEVCWavefront`), and
    /// the second decoder those runs use.
    var wavefront = HEVCWavefrontMode.serial
    var wavefrontHelper: HEVCSliceDecoder?
    /// Slice segments decoded on two threads so far (tests check the path was taken).
    var wavefrontSegments = 0
    /// The CTB row of the last CTB decoded (-1 before the first).
    private var decodingRow = -1
    // The per-slice and per-coding-unit state below is read and written for every block.
    // One decoder runs on one thread and never hands out overlapping accesses to these
    // plain values, so their dynamic exclusivity checks (a runtime call per access, about 5 %
    // of the decode) are switched off.
    @exclusivity(unchecked) var header = HEVCSliceHeader()
    /// SliceAddrRs of the current slice and its index among the picture's slices.
    @exclusivity(unchecked) var sliceAddress = 0
    @exclusivity(unchecked) var sliceIndex = -1
    @exclusivity(unchecked) var sliceQp = 26
    @exclusivity(unchecked) var cbQpOffset = 0
    @exclusivity(unchecked) var crQpOffset = 0

    // Coding unit state.
    @exclusivity(unchecked) var cuTransquantBypass = false
    @exclusivity(unchecked) var isCuQpDeltaCoded = false
    @exclusivity(unchecked) var cuQpDeltaVal = 0
    @exclusivity(unchecked) var qpYPred = 26
    @exclusivity(unchecked) var qpY = 26
    /// QpY of the last coding unit decoded: qPY_PREV of the next quantization group. Set to
    /// SliceQpY at the start of a slice, a tile, and a wavefront row (8.6.1).
    @exclusivity(unchecked) var lastQpY = 26
    @exclusivity(unchecked) var currentCtbAddrRs = 0
    /// IntraPredModeC of the coding unit; for a 4:4:4 NxN coding unit, one per partition
    /// (`chromaModes`, in partition order), since each then has its own intra_chroma_pred_mode.
    @exclusivity(unchecked) var chromaMode = 0
    @exclusivity(unchecked) var chromaModes = (0, 0, 0, 0)
    /// Origin and size of the coding unit whose transform tree is being decoded.
    @exclusivity(unchecked) var cuX = 0
    @exclusivity(unchecked) var cuY = 0
    @exclusivity(unchecked) var cuSize = 0
    @exclusivity(unchecked) var intraSplit = false

    let log2MinCuQpDeltaSize: Int
    /// log2 of SubWidthC and SubHeightC (0 for monochrome, where no chroma is decoded).
    let chromaShiftX: Int
    let chromaShiftY: Int
    /// ChromaArrayType (chroma_format_idc: separate colour planes are refused).
    let chromaArrayType: Int
    let qpBdOffsetY: Int
    let qpBdOffsetC: Int
    /// The scaling factors of intra blocks, flattened (see `scalingFactorOffset`), or nil
    /// when scaling lists are off.
    let flatScalingFactors: UnsafeMutablePointer<UInt8>?

    init(frame: HEVCFrame) {
        self.frame = frame
        sps = frame.sps
        pps = frame.pps
        contexts = .allocate(capacity: HEVCCABACTables.count)
        wppContexts = .allocate(capacity: HEVCCABACTables.count)
        sliceEndContexts = .allocate(capacity: HEVCCABACTables.count)
        contexts.initialize(repeating: 0, count: HEVCCABACTables.count)
        wppContexts.initialize(repeating: 0, count: HEVCCABACTables.count)
        sliceEndContexts.initialize(repeating: 0, count: HEVCCABACTables.count)
        coefficients = .allocate(capacity: 32 * 32)
        coefficients.initialize(repeating: 0, count: 32 * 32)
        residual = .allocate(capacity: 32 * 32)
        residual.initialize(repeating: 0, count: 32 * 32)
        references = .allocate(capacity: 4 * 64 + 1)
        references.initialize(repeating: 0, count: 4 * 64 + 1)
        filteredReferences = .allocate(capacity: 4 * 64 + 1)
        filteredReferences.initialize(repeating: 0, count: 4 * 64 + 1)
        referenceAvailable = .allocate(capacity: 4 * 64 + 1)
        referenceAvailable.initialize(repeating: false, count: 4 * 64 + 1)
        significant = .allocate(capacity: 16)
        angularLine = .allocate(capacity: 3 * 32 + 1)
        angularLine.initialize(repeating: 0, count: 3 * 32 + 1)
        significant.initialize(repeating: 0, count: 16)
        cabac = .allocate(capacity: 1)
        cabac.initialize(to: HEVCCABACEngine(base: HEVCSliceDecoder.emptyByte, position: 0, end: 0))
        log2MinCuQpDeltaSize = sps.log2CtbSize - pps.diffCuQpDeltaDepth
        let (subWidth, subHeight) = sps.chromaFormat.subsampling
        chromaShiftX = subWidth == 2 ? 1 : 0
        chromaShiftY = subHeight == 2 ? 1 : 0
        chromaArrayType = sps.chromaFormat.rawValue
        qpBdOffsetY = 6 * (sps.bitDepthLuma - 8)
        qpBdOffsetC = 6 * (sps.bitDepthChroma - 8)
        if let list = pps.scalingList ?? sps.scalingList {
            let total = HEVCSliceDecoder.scalingFactorOffset(log2Size: 6, component: 0)
            let flat = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
            flat.initialize(repeating: 16, count: total)
            for log2Size in 2...5 {
                for component in 0..<3 {
                    let start = HEVCSliceDecoder.scalingFactorOffset(log2Size: log2Size, component: component)
                    for (i, m) in list.factors[log2Size - 2][component].enumerated() { flat[start + i] = m }
                }
            }
            flatScalingFactors = flat
        } else {
            flatScalingFactors = nil
        }
    }

    deinit {
        contexts.deallocate()
        cabac.deallocate()
        wppContexts.deallocate()
        sliceEndContexts.deallocate()
        coefficients.deallocate()
        residual.deallocate()
        references.deallocate()
        filteredReferences.deallocate()
        referenceAvailable.deallocate()
        significant.deallocate()
        angularLine.deallocate()
        flatScalingFactors?.deallocate()
    }

    nonisolated(unsafe) private static let emptyByte: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    /// Decodes one slice segment NAL unit whose header is `header`. `unit.rbsp` must stay
    /// alive for the call (the engine reads it through a pointer).
    func decode(_ unit: HEVCNALUnit, header: HEVCSliceHeader) throws {
        let layout = frame.layout
        let ctbCount = layout.widthInCtbs * layout.heightInCtbs
        if !header.dependent {
            sliceAddress = header.segmentAddress
            sliceIndex += 1
            sliceQp = header.sliceQp
            cbQpOffset = pps.cbQpOffset + header.cbQpOffset
            crQpOffset = pps.crQpOffset + header.crQpOffset
            frame.sliceFilterParameters.append(HEVCSliceFilterParameters(
                deblockingDisabled: header.deblockingDisabled, betaOffsetDiv2: header.betaOffsetDiv2,
                tcOffsetDiv2: header.tcOffsetDiv2, loopFilterAcrossSlices: header.loopFilterAcrossSlices,
                saoLuma: header.saoLuma, saoChroma: header.saoChroma))
            lastQpY = sliceQp
        } else if sliceIndex < 0 {
            throw ImageCodecError(.corrupt, "HEVC dependent slice segment starts the picture")
        }
        self.header = header
        var ctbAddrTs = layout.rsToTs[header.segmentAddress]
        guard frame.ctbSliceAddress[header.segmentAddress] < 0 else {
            throw ImageCodecError(.corrupt, "HEVC slice segment overlaps decoded CTBs")
        }
        try unit.rbsp.withUnsafeBufferPointer { rbsp in
            guard let base = rbsp.baseAddress, header.dataOffset < rbsp.count else {
                throw ImageCodecError(.truncated, "HEVC slice segment has no data")
            }
            if let plan = HEVCWavefront.plan(for: self, unit: unit, header: header) {
                if try HEVCWavefront.decode(plan, decoder: self, rbsp: base) {
                    wavefrontSegments += 1
                    return
                }
                frame.resetRows(plan.firstRow..<(plan.firstRow + plan.rows))
            }
            cabac.pointee = HEVCCABACEngine(base: base, position: header.dataOffset, end: rbsp.count)
            var ctbAddrRs = header.segmentAddress
            try enterRow(of: ctbAddrRs)
            initialiseContexts(ctbAddrRs: ctbAddrRs, ctbAddrTs: ctbAddrTs, sliceStart: true)
            while true {
                guard frame.ctbSliceAddress[ctbAddrRs] < 0 else {
                    throw ImageCodecError(.corrupt, "HEVC CTB decoded twice")
                }
                if ctbAddrRs % layout.widthInCtbs == 0, let stop, stop() {
                    throw ImageCodecError(.invalidArgument, "HEVC decode stopped by its caller")
                }
                try decodeCodingTreeUnit(ctbAddrRs: ctbAddrRs, ctbAddrTs: ctbAddrTs)
                let endOfSlice = cabac.pointee.decodeTerminate() == 1
                let w = layout.widthInCtbs
                // 9.3.2.4: wavefront storage after the second CTB of a row of a tile.
                if pps.entropyCodingSync && (ctbAddrRs % w == 1 || (ctbAddrRs > 1 &&
                    layout.tileIdOfTs[ctbAddrTs] != layout.tileIdOfTs[layout.rsToTs[ctbAddrRs - 2]])) {
                    wppContexts.update(from: contexts, count: HEVCCABACTables.count)
                }
                if endOfSlice {
                    if pps.dependentSliceSegmentsEnabled {
                        sliceEndContexts.update(from: contexts, count: HEVCCABACTables.count)
                    }
                    break
                }
                ctbAddrTs += 1
                guard ctbAddrTs < ctbCount else { throw ImageCodecError(.corrupt, "HEVC slice runs past the picture") }
                let nextRs = layout.tsToRs[ctbAddrTs]
                let newTile = layout.tileIdOfTs[ctbAddrTs] != layout.tileIdOfTs[ctbAddrTs - 1]
                let newRow = pps.entropyCodingSync && (nextRs % w == 0 || layout.tileColumnStart(nextRs % w) == nextRs % w)
                ctbAddrRs = nextRs
                try enterRow(of: ctbAddrRs)
                if (pps.tilesEnabled && newTile) || newRow {
                    guard cabac.pointee.decodeTerminate() == 1 else {
                        throw ImageCodecError(.corrupt, "HEVC substream does not end where it should")
                    }
                    cabac.pointee.start(at: cabac.pointee.position)
                    initialiseContexts(ctbAddrRs: ctbAddrRs, ctbAddrTs: ctbAddrTs, sliceStart: false)
                }
            }
        }
    }

    /// Tells `startRow` when CTB `ctbAddrRs` lies in another CTB row than the last one, before
    /// anything of that CTB (contexts, availability) is looked at: a windowed frame only holds
    /// the row being decoded and the one above it.
    private func enterRow(of ctbAddrRs: Int) throws {
        let row = ctbAddrRs / frame.layout.widthInCtbs
        guard row != decodingRow else { return }
        try startRow?(row)
        decodingRow = row
    }

    /// 9.3.2.2 at the start of a slice segment or substream: fresh contexts at a tile start,
    /// the wavefront copy at a row start when the CTB above and to the right is available,
    /// the previous segment's final state for a dependent slice segment.
    func initialiseContexts(ctbAddrRs: Int, ctbAddrTs: Int, sliceStart: Bool) {
        let layout = frame.layout
        let w = layout.widthInCtbs
        let firstInTile = ctbAddrTs == 0 || layout.tileIdOfTs[ctbAddrTs] != layout.tileIdOfTs[ctbAddrTs - 1]
        let column = ctbAddrRs % w
        if firstInTile {
            HEVCCABACTables.initialise(contexts, sliceQp: sliceQp)
            lastQpY = sliceQp
        } else if pps.entropyCodingSync && column == layout.tileColumnStart(column) {
            let size = sps.ctbSize
            let x = column * size, y = (ctbAddrRs / w) * size
            // The CTB above-right is decoded and in this slice: inherit its row's contexts.
            frame.ctbSliceAddress[ctbAddrRs] = Int32(sliceAddress)
            let syncAvailable = frame.available(xCur: x, yCur: y, xN: x + size, yN: y - size)
            frame.ctbSliceAddress[ctbAddrRs] = -1
            if syncAvailable {
                contexts.update(from: wppContexts, count: HEVCCABACTables.count)
            } else {
                HEVCCABACTables.initialise(contexts, sliceQp: sliceQp)
            }
            lastQpY = sliceQp
        } else if sliceStart {
            if header.dependent {
                contexts.update(from: sliceEndContexts, count: HEVCCABACTables.count)
            } else {
                HEVCCABACTables.initialise(contexts, sliceQp: sliceQp)
            }
        }
    }

    func decodeCodingTreeUnit(ctbAddrRs: Int, ctbAddrTs: Int) throws {
        let w = frame.layout.widthInCtbs
        frame.ctbSliceAddress[ctbAddrRs] = Int32(sliceAddress)
        frame.ctbSliceIndex[ctbAddrRs] = Int32(sliceIndex)
        currentCtbAddrRs = ctbAddrRs
        let rx = ctbAddrRs % w, ry = ctbAddrRs / w
        if header.saoLuma || header.saoChroma { decodeSAO(rx: rx, ry: ry, ctbAddrRs: ctbAddrRs, ctbAddrTs: ctbAddrTs) }
        try decodeCodingQuadtree(x0: rx << sps.log2CtbSize, y0: ry << sps.log2CtbSize, log2CbSize: sps.log2CtbSize, depth: 0)
    }

    /// sao() (7.3.8.3), storing SaoTypeIdx, SaoOffsetVal (scaled), band position and edge class.
    private func decodeSAO(rx: Int, ry: Int, ctbAddrRs: Int, ctbAddrTs: Int) {
        let layout = frame.layout
        let w = layout.widthInCtbs
        let tile = layout.tileIdOfTs[ctbAddrTs]
        if rx > 0 {
            let left = ctbAddrRs - 1
            if left >= sliceAddress, layout.tileIdOfTs[layout.rsToTs[left]] == tile,
               cabac.pointee.decodeBin(&contexts[HEVCCABACTables.saoMerge]) == 1 {
                frame.sao[ctbAddrRs] = frame.sao[left]
                return
            }
        }
        if ry > 0 {
            let up = ctbAddrRs - w
            if up >= sliceAddress, layout.tileIdOfTs[layout.rsToTs[up]] == tile,
               cabac.pointee.decodeBin(&contexts[HEVCCABACTables.saoMerge]) == 1 {
                frame.sao[ctbAddrRs] = frame.sao[up]
                return
            }
        }
        var p = HEVCSAOParameters()
        var types: [UInt8] = [0, 0, 0], bands: [UInt8] = [0, 0, 0], classes: [UInt8] = [0, 0, 0]
        var offsets: [SIMD4<Int16>] = [.zero, .zero, .zero]
        let components = sps.chromaFormat == .monochrome ? 1 : 3
        for c in 0..<components {
            guard (c == 0 && header.saoLuma) || (c > 0 && header.saoChroma) else { continue }
            if c == 2 {
                types[2] = types[1]
                classes[2] = classes[1]
            } else if cabac.pointee.decodeBin(&contexts[HEVCCABACTables.saoTypeIdx]) == 0 {
                types[c] = 0
            } else {
                types[c] = cabac.pointee.decodeBypass() == 0 ? 1 : 2
            }
            guard types[c] != 0 else { continue }
            let bitDepth = c == 0 ? sps.bitDepthLuma : sps.bitDepthChroma
            let cMax = (1 << (min(bitDepth, 10) - 5)) - 1
            var abs = [Int](repeating: 0, count: 4)
            for i in 0..<4 {
                while abs[i] < cMax && cabac.pointee.decodeBypass() == 1 { abs[i] += 1 }
            }
            let scale = c == 0 ? pps.log2SaoOffsetScaleLuma : pps.log2SaoOffsetScaleChroma
            var v = SIMD4<Int16>.zero
            if types[c] == 1 {
                for i in 0..<4 where abs[i] != 0 {
                    if cabac.pointee.decodeBypass() == 1 { abs[i] = -abs[i] }
                }
                bands[c] = UInt8(cabac.pointee.decodeBypassBits(5))
                for i in 0..<4 { v[i] = Int16(abs[i] << scale) }
            } else {
                if c == 0 { classes[0] = UInt8(cabac.pointee.decodeBypassBits(2)) }
                if c == 1 { classes[1] = UInt8(cabac.pointee.decodeBypassBits(2)) }
                v = SIMD4(Int16(abs[0] << scale), Int16(abs[1] << scale), Int16(-(abs[2] << scale)), Int16(-(abs[3] << scale)))
            }
            offsets[c] = v
        }
        p.typeIndex = (types[0], types[1], types[2])
        p.offsets = (offsets[0], offsets[1], offsets[2])
        p.bandPosition = (bands[0], bands[1], bands[2])
        p.edgeClass = (classes[0], classes[1], classes[2])
        frame.sao[ctbAddrRs] = p
    }
}
