/// Decodes the I slices of one picture into an `H264Frame` (7.3.4 slice data, 7.3.5
/// macroblock layer), one macroblock at a time: parse (CAVLC or CABAC), then reconstruct
/// (prediction plus residual) straight into the frame. The deblocking filter runs over the
/// whole picture afterwards (`H264Deblocking`).
///
/// Scratch buffers are allocated once per picture; the macroblock loop allocates nothing.
final class H264SliceDecoder {
    let frame: H264Frame
    /// Coefficient levels of the macroblock being decoded (see the `Coeff` offsets): this
    /// decoder's own block, or a slot of the reconstruction worker's ring. Every block a
    /// macroblock's parse writes is cleared again by its reconstruction.
    @exclusivity(unchecked) var coeff: UnsafeMutablePointer<Int32>
    private let ownCoeff: UnsafeMutablePointer<Int32>
    /// Edge samples of intra prediction (`H264IntraPrediction.edgeCount`).
    let edges: UnsafeMutablePointer<Int32>
    /// LevelScale4x4 for Y, Cb, Cr (intra lists 0-2): [list][qP % 6][raster 16].
    let levelScale4: UnsafeMutablePointer<Int32>
    /// LevelScale8x8 for intra Y (list 6): [qP % 6][raster 64].
    let levelScale8: UnsafeMutablePointer<Int32>
    /// CABAC context states.
    let states: UnsafeMutablePointer<UInt8>
    /// Scan tables: zig-zag 4x4 (16), zig-zag 8x8 (64), identity (16), as UInt8.
    let scans: UnsafeMutablePointer<UInt8>
    /// `H264Tables.blockRaster` and `H264CAVLCTables.flat`, held here so that hot loops read
    /// them without the lazy-global check of a static.
    let blockRaster: UnsafeMutablePointer<Int>
    let vlc: UnsafePointer<UInt32>

    /// Offsets in `coeff`.
    enum Coeff {
        static let chroma = 256, lumaDC = 384, chromaDC = 400, count = 416
    }
    enum Scan {
        static let zigzag4 = 0, zigzag8 = 16, identity = 80, count = 96
    }

    // The slice being decoded. One decoder, one thread, no overlapping accesses: these are
    // plain values, so their dynamic exclusivity checks (a runtime call per access, 3 % of a
    // 4K picture's instructions) are turned off.
    @exclusivity(unchecked) var sliceIndex: Int32 = -1
    @exclusivity(unchecked) var pps = H264PictureParameterSet()
    @exclusivity(unchecked) var qp = 26
    /// For CABAC's mb_qp_delta context: whether the previous macroblock had a non-zero delta.
    @exclusivity(unchecked) var previousQPDeltaNonZero = false
    /// Scaling lists the level scales were built from (rebuilt when a slice changes them).
    private var builtLists: [[UInt8]]?? = .none

    // The macroblock being decoded.
    @exclusivity(unchecked) var mbAddr = 0
    @exclusivity(unchecked) var mbX = 0
    @exclusivity(unchecked) var mbY = 0
    @exclusivity(unchecked) var availableA = false
    @exclusivity(unchecked) var availableB = false
    @exclusivity(unchecked) var availableC = false
    @exclusivity(unchecked) var availableD = false
    @exclusivity(unchecked) var kind: UInt8 = 0
    @exclusivity(unchecked) var transform8x8 = false
    @exclusivity(unchecked) var intra16Mode = 0
    @exclusivity(unchecked) var chromaMode = 0
    @exclusivity(unchecked) var cbp = 0

    /// Cb and Cr QP offsets of the slice's PPS (chroma reconstruction).
    @exclusivity(unchecked) var cbQPOffset = 0
    @exclusivity(unchecked) var crQPOffset = 0

    /// The second thread reconstructing and filtering behind this decoder, when there is one:
    /// this decoder then only parses.
    var worker: H264ReconstructionWorker?

    init(frame: H264Frame) {
        self.frame = frame
        ownCoeff = .allocate(capacity: Coeff.count)
        ownCoeff.initialize(repeating: 0, count: Coeff.count)
        coeff = ownCoeff
        // The edges, then the levels (CAVLC) or coefficient positions (CABAC) of a block being parsed.
        edges = .allocate(capacity: H264IntraPrediction.edgeCount + 64)
        edges.initialize(repeating: 128, count: H264IntraPrediction.edgeCount + 64)
        levelScale4 = .allocate(capacity: 3 * 6 * 16)
        levelScale4.initialize(repeating: 0, count: 3 * 6 * 16)
        levelScale8 = .allocate(capacity: 6 * 64)
        levelScale8.initialize(repeating: 0, count: 6 * 64)
        states = .allocate(capacity: H264CABACContexts.count)
        states.initialize(repeating: 0, count: H264CABACContexts.count)
        scans = .allocate(capacity: Scan.count)
        for i in 0..<16 { scans[Scan.zigzag4 + i] = UInt8(H264Tables.zigzag4[i]) }
        for i in 0..<64 { scans[Scan.zigzag8 + i] = UInt8(H264Tables.zigzag8[i]) }
        for i in 0..<16 { scans[Scan.identity + i] = UInt8(i) }
        blockRaster = .allocate(capacity: 16)
        blockRaster.initialize(from: H264Tables.blockRaster, count: 16)
        vlc = H264CAVLCTables.flat
    }

    deinit {
        ownCoeff.deallocate()
        edges.deallocate()
        levelScale4.deallocate()
        levelScale8.deallocate()
        states.deallocate()
        scans.deallocate()
        blockRaster.deallocate()
    }

    /// Decodes one I slice whose header has been read; `rbsp` holds the whole NAL payload.
    func decodeSlice(_ header: H264SliceHeader, pps: H264PictureParameterSet, reader: H264BitReader,
                     rbsp: H264ByteStorage) throws {
        guard header.firstMb < frame.mbCount else {
            throw ImageCodecError(.corrupt, "H.264 first_mb_in_slice \(header.firstMb) is outside the picture")
        }
        guard frame.mbSlice[header.firstMb] < 0 else {
            throw ImageCodecError(.corrupt, "H.264 slice starts at an already decoded macroblock")
        }
        self.pps = pps
        sliceIndex += 1
        frame.sliceFilters.append(H264SliceFilter(disable: header.disableDeblocking, alphaOffset: header.alphaOffset,
                                                  betaOffset: header.betaOffset, cbQPOffset: pps.chromaQPOffset,
                                                  crQPOffset: pps.secondChromaQPOffset))
        let lists = pps.scalingLists(sps: frame.sps)
        cbQPOffset = pps.chromaQPOffset
        crQPOffset = pps.secondChromaQPOffset
        if let worker {
            worker.addSlice(H264ReconstructionWorker.Slice(lists: lists, cbQPOffset: cbQPOffset, crQPOffset: crQPOffset,
                                                           filter: frame.sliceFilters[Int(sliceIndex)]))
        } else {
            buildLevelScales(lists)
        }
        qp = header.qp
        previousQPDeltaNonZero = false
        if pps.cabac {
            try decodeCABACSlice(header, reader: reader, rbsp: rbsp)
        } else {
            try decodeCAVLCSlice(header, reader: reader)
        }
    }

    private func decodeCAVLCSlice(_ header: H264SliceHeader, reader: H264BitReader) throws {
        var r = reader
        var addr = header.firstMb
        while true {
            guard addr < frame.mbCount else {
                throw ImageCodecError(.corrupt, "H.264 slice data runs past the last macroblock")
            }
            guard frame.mbSlice[addr] < 0 else { throw ImageCodecError(.corrupt, "H.264 macroblock decoded twice") }
            startMacroblock(addr)
            try parseMacroblockCAVLC(&r)
            guard !r.overrun else { throw ImageCodecError(.truncated, "H.264 slice data ends inside a macroblock") }
            finishMacroblock()
            addr += 1
            if !r.moreRBSPData() { break }
        }
    }

    private func decodeCABACSlice(_ header: H264SliceHeader, reader: H264BitReader, rbsp: H264ByteStorage) throws {
        let start = (header.dataBitPosition + 7) >> 3
        guard start < rbsp.count else { throw ImageCodecError(.truncated, "H.264 slice has no data") }
        H264CABACContexts.initialise(states, sliceQP: header.qp)
        var engine = HEVCCABACEngine(base: UnsafePointer(rbsp.pointer), position: start, end: rbsp.count)
        var addr = header.firstMb
        while true {
            // The engine reads zeros past the data: a cut slice decodes garbage until it runs
            // into the end of the picture or a decoded macroblock, reported as truncated.
            let exhausted = engine.position >= rbsp.count
            guard addr < frame.mbCount, frame.mbSlice[addr] < 0 else {
                throw ImageCodecError(exhausted ? .truncated : .corrupt,
                                      exhausted ? "H.264 slice data ends early" : "H.264 slice data runs past its macroblocks")
            }
            startMacroblock(addr)
            try parseMacroblockCABAC(&engine)
            finishMacroblock()
            addr += 1
            if engine.decodeTerminate() == 1 { break }
        }
    }

    /// Reconstructs the parsed macroblock here, or hands it to the worker with its
    /// coefficients (already in the worker's slot).
    @inline(__always)
    private func finishMacroblock() {
        guard let worker else { return reconstructMacroblock() }
        worker.publish(H264ReconstructionWorker.Job(
            addr: Int32(mbAddr), slice: sliceIndex, qp: Int8(qp), kind: kind, intra16Mode: UInt8(intra16Mode),
            chromaMode: UInt8(chromaMode), cbp: UInt8(cbp), availability: (availableA ? 1 : 0) | (availableB ? 2 : 0)
                | (availableC ? 4 : 0) | (availableD ? 8 : 0)))
    }

    /// Takes the fields of a macroblock the parsing decoder handed over (`H264ReconstructionWorker`).
    @inline(__always)
    func load(_ job: H264ReconstructionWorker.Job, coefficients: UnsafeMutablePointer<Int32>) {
        mbAddr = Int(job.addr)
        mbX = mbAddr % frame.widthInMbs
        mbY = mbAddr / frame.widthInMbs
        qp = Int(job.qp)
        kind = job.kind
        intra16Mode = Int(job.intra16Mode)
        chromaMode = Int(job.chromaMode)
        cbp = Int(job.cbp)
        availableA = job.availability & 1 != 0
        availableB = job.availability & 2 != 0
        availableC = job.availability & 4 != 0
        availableD = job.availability & 8 != 0
        coeff = coefficients
    }

    /// Marks `addr` as the current macroblock of the current slice and finds its neighbours (6.4.9).
    @inline(__always)
    private func startMacroblock(_ addr: Int) {
        if let worker { coeff = worker.slotForParsing() }
        let w = frame.widthInMbs
        mbAddr = addr
        mbX = addr % w
        mbY = addr / w
        frame.mbSlice[addr] = sliceIndex
        let s = frame.mbSlice, me = sliceIndex
        availableA = mbX > 0 && s[addr - 1] == me
        availableB = mbY > 0 && s[addr - w] == me
        availableC = mbY > 0 && mbX < w - 1 && s[addr - w + 1] == me
        availableD = mbY > 0 && mbX > 0 && s[addr - w - 1] == me
        transform8x8 = false
        frame.mbQP[addr] = UInt8(qp)
    }

    /// The predicted Intra4x4/8x8 mode of the 4x4 block at (x4, y4) of the current macroblock (8.3.1.1).
    @inline(__always)
    func predictedIntraMode(x4: Int, y4: Int) -> Int {
        let base = mbAddr &* 16
        let w = frame.widthInMbs
        let modeA: Int, modeB: Int
        if x4 > 0 {
            modeA = Int(frame.modes[base &+ y4 &* 4 &+ x4 &- 1])
        } else if availableA {
            modeA = neighbourMode(mbAddr &- 1, y4 &* 4 &+ 3)
        } else {
            return 2
        }
        if y4 > 0 {
            modeB = Int(frame.modes[base &+ (y4 &- 1) &* 4 &+ x4])
        } else if availableB {
            modeB = neighbourMode(mbAddr &- w, 12 &+ x4)
        } else {
            return 2
        }
        return min(modeA, modeB)
    }

    @inline(__always)
    private func neighbourMode(_ addr: Int, _ block: Int) -> Int {
        let k = frame.mbKind[addr]
        return k == H264MbKind.intra4x4 || k == H264MbKind.intra8x8 ? Int(frame.modes[addr &* 16 &+ block]) : 2
    }

    /// Coefficient count of the 4x4 luma block left of / above raster block `r` of the current
    /// macroblock, or nil when that block is not available.
    @inline(__always)
    func lumaCountLeft(_ r: Int) -> Int? {
        if r & 3 != 0 { return Int(frame.counts[mbAddr &* 24 &+ r &- 1]) }
        return availableA ? Int(frame.counts[(mbAddr &- 1) &* 24 &+ r &+ 3]) : nil
    }

    @inline(__always)
    func lumaCountAbove(_ r: Int) -> Int? {
        if r >= 4 { return Int(frame.counts[mbAddr &* 24 &+ r &- 4]) }
        return availableB ? Int(frame.counts[(mbAddr &- frame.widthInMbs) &* 24 &+ r &+ 12]) : nil
    }

    /// The same for chroma block `b` (0...3) of plane `c` (0 Cb, 1 Cr).
    @inline(__always)
    func chromaCountLeft(_ c: Int, _ b: Int) -> Int? {
        let o = 16 &+ c &* 4
        if b & 1 != 0 { return Int(frame.counts[mbAddr &* 24 &+ o &+ b &- 1]) }
        return availableA ? Int(frame.counts[(mbAddr &- 1) &* 24 &+ o &+ b &+ 1]) : nil
    }

    @inline(__always)
    func chromaCountAbove(_ c: Int, _ b: Int) -> Int? {
        let o = 16 &+ c &* 4
        if b >= 2 { return Int(frame.counts[mbAddr &* 24 &+ o &+ b &- 2]) }
        return availableB ? Int(frame.counts[(mbAddr &- frame.widthInMbs) &* 24 &+ o &+ b &+ 2]) : nil
    }

    /// Records an I_PCM macroblock's side information: counts of 16, all blocks coded, qP 0
    /// for the deblocking filter, and no QP change for the next macroblock.
    func finishPCM() {
        kind = H264MbKind.pcm
        frame.mbKind[mbAddr] = kind
        frame.mbQP[mbAddr] = 0
        frame.mbCBP[mbAddr] = 0x72F
        frame.mbChromaMode[mbAddr] = 0
        (frame.modes + mbAddr * 16).update(repeating: 2, count: 16)
        (frame.counts + mbAddr * 24).update(repeating: 16, count: 24)
        previousQPDeltaNonZero = false
    }

    /// LevelScale4x4 and LevelScale8x8 (8.5.9) of the intra lists, rebuilt only when they change.
    func buildLevelScales(_ lists: [[UInt8]]?) {
        if case .some(let built) = builtLists, built == lists { return }
        builtLists = .some(lists)
        for list in 0..<3 {
            for m in 0..<6 {
                for k in 0..<16 {
                    let raster = H264Tables.zigzag4[k]
                    let i = raster >> 2, j = raster & 3
                    let v = H264Tables.normAdjust4[m][(i & 1) == 0 && (j & 1) == 0 ? 0 : (i & 1) == 1 && (j & 1) == 1 ? 1 : 2]
                    let weight = lists.map { Int($0[list][k]) } ?? 16
                    levelScale4[(list * 6 + m) * 16 + raster] = Int32(weight * v)
                }
            }
        }
        for m in 0..<6 {
            for k in 0..<64 {
                let raster = H264Tables.zigzag8[k]
                let i = raster >> 3, j = raster & 7
                let cls: Int
                if i % 4 == 0 && j % 4 == 0 { cls = 0 }
                else if i % 2 == 1 && j % 2 == 1 { cls = 1 }
                else if i % 4 == 2 && j % 4 == 2 { cls = 2 }
                else if (i % 4 == 0 && j % 2 == 1) || (i % 2 == 1 && j % 4 == 0) { cls = 3 }
                else if (i % 4 == 0 && j % 4 == 2) || (i % 4 == 2 && j % 4 == 0) { cls = 4 }
                else { cls = 5 }
                let weight = lists.map { Int($0[6][k]) } ?? 16
                levelScale8[m * 64 + raster] = Int32(weight * H264Tables.normAdjust8[m][cls])
            }
        }
    }
}
