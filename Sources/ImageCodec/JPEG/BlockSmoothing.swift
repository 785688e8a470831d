/// libjpeg-turbo's inter-block smoothing for progressive images whose low-frequency AC
/// coefficients are not fully known at output time (`jdcoefct.c smoothing_ok`,
/// `decompress_smooth_data`, on by default in djpeg): a truncated download, or a scan script
/// that stops before the last refinement. Zero coefficients among zigzag positions 1...9 are
/// predicted from the DC values of the 5×5 neighbouring blocks (T.81 K.8 extended); when
/// none of those positions was ever sent, the DC itself is re-estimated too.
///
/// Only positions the chosen scaled IDCT reads are predicted; the others cannot change a pixel.

/// What the scans said about each coefficient (libjpeg `coef_bits`), tracked while decoding.
struct ProgressionState {
    /// Per component, per zigzag position: the last Al sent, -1 if never.
    var coefBits: [[Int]]
    /// Per component, positions 0...9 as they were when the component's latest scan started.
    var previousBits: [[Int]]
    var scansRead = 0
    /// The last iMCU row any scan decoded with real data (libjpeg `last_good_iMCU_row`).
    var lastGoodIMCURow = 0

    init(components: Int) {
        coefBits = [[Int]](repeating: [Int](repeating: -1, count: 64), count: components)
        previousBits = [[Int]](repeating: [Int](repeating: 0, count: 10), count: components)
    }

    /// libjpeg `start_pass_phuff_decoder`'s bookkeeping for a progressive scan.
    mutating func startScan(_ scan: JPEGScanHeader) {
        scansRead += 1
        for c in scan.components {
            for k in min(scan.ss, 1)...max(scan.se, 9) where k < 10 {
                previousBits[c][k] = scansRead > 1 ? coefBits[c][k] : 0
            }
            for k in scan.ss...scan.se { coefBits[c][k] = scan.al }
        }
    }
}

/// The smoothing plan for one decode, or nil from `init` when libjpeg would not smooth.
/// Per-block work uses inline storage only: no allocation in the block loop.
struct BlockSmoother {
    /// Natural indices of zigzag positions 0...9.
    static let positions = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24]

    struct Component {
        /// Latched coef_bits[0...9] for iMCU rows up to the last good one, and after it.
        var bits = InlineArray<10, Int>(repeating: 0)
        var previousBits = InlineArray<10, Int>(repeating: 0)
        /// Quantiser of zigzag positions 0...9.
        var quant = InlineArray<10, Int>(repeating: 1)
        /// Zigzag positions 1...9 whose value the scaled IDCT reads (bit i).
        var kept: UInt16 = 0
    }

    let components: [Component]
    let lastGoodIMCURow: Int
    let totalIMCURows: Int

    init?(progression: ProgressionState, plan: DecodePlan, store: CoefficientStore, renderer: MCURowRenderer) {
        var useful = false
        var made: [Component] = []
        for c in plan.components.indices {
            guard renderer.quantLatched[c], progression.coefBits[c][0] >= 0 else { return nil }
            var info = Component()
            let plane = store.planes[c]
            for i in 0..<10 {
                let q = Int(renderer.quant[c][BlockSmoother.positions[i]])
                guard q != 0 else { return nil }
                info.quant[i] = q
                info.bits[i] = progression.coefBits[c][i]
                info.previousBits[i] = progression.scansRead > 1 ? progression.previousBits[c][i] : -1
                if i > 0 && info.bits[i] != 0 { useful = true }
                if i > 0 && plane.slotOfZigzag[i] >= 0 { info.kept |= UInt16(1) << UInt16(i) }
            }
            made.append(info)
        }
        guard useful else { return nil }
        components = made
        lastGoodIMCURow = progression.lastGoodIMCURow
        totalIMCURows = plan.bands
    }

    /// libjpeg's rounded division of a prediction numerator, limited to below 2^Al when Al > 0.
    @inline(__always)
    static func predict(_ num: Int, _ q: Int, _ al: Int) -> Int16 {
        var pred = ((q << 7) + (num >= 0 ? num : -num)) / (q << 8)
        if al > 0 && pred >= (1 << al) { pred = (1 << al) - 1 }
        return Int16(truncatingIfNeeded: num >= 0 ? pred : -pred)
    }

    /// Predicts the unknown low-frequency coefficients of block (`bx`, block row `by` of iMCU
    /// row `band`) into `coef` (natural order, the block's stored values).
    func apply(component c: Int, plan p: ComponentPlan, band: Int, by: Int, bx: Int,
               store: CoefficientStore, coef: UnsafeMutablePointer<Int16>) {
        let info = components[c]
        let bits = band > lastGoodIMCURow ? info.previousBits : info.bits
        let plane = store.planes[c]
        // Neighbour rows as libjpeg-turbo 2.1.5 picks them, quirks included (a block in the
        // first row of iMCU row 1 uses the row above twice).
        let lastRows = p.dataBlocksHigh % p.v == 0 ? p.v : p.dataBlocksHigh % p.v
        let lastIMCURow = totalIMCURows - 1
        let blockRows = band < lastIMCURow ? p.v : lastRows
        let row = band * p.v + by
        let prev = by > 0 || band > 0 ? row - 1 : row
        let prevPrev = by > 1 || band > 1 ? row - 2 : prev
        let next = by < blockRows - 1 || band < lastIMCURow ? row + 1 : row
        let nextNext = by < blockRows - 2 || band + 1 < lastIMCURow ? row + 2 : next
        var rows = InlineArray<5, Int>(repeating: 0)
        rows[0] = prevPrev
        rows[1] = prev
        rows[2] = row
        rows[3] = next
        rows[4] = nextNext
        let lastCol = p.dataBlocksWide - 1
        // dc[5i + j] = libjpeg's DC(5i + j + 1): i - 2 block rows and j - 2 columns away.
        var dc = InlineArray<25, Int>(repeating: 0)
        for i in 0..<5 {
            let r = min(max(rows[i], 0), plane.blocksHigh - 1) * plane.blocksWide
            for j in 0..<5 {
                let col = min(max(bx + j - 2, 0), lastCol)
                dc[i * 5 + j] = Int(plane.values[(r + col) * plane.slots])
            }
        }
        var changeDC = true
        for i in 1...9 where bits[i] != -1 { changeDC = false }
        let q00 = info.quant[0]
        func wanted(_ i: Int) -> Bool {
            bits[i] != 0 && info.kept & (UInt16(1) << UInt16(i)) != 0 && coef[BlockSmoother.positions[i]] == 0
        }
        func set(_ i: Int, _ n: Int) {
            coef[BlockSmoother.positions[i]] = BlockSmoother.predict(q00 * n, info.quant[i], bits[i])
        }
        if wanted(1) {
            set(1, changeDC
                ? -dc[0] - dc[1] + dc[3] + dc[4] - 3 * dc[5] + 13 * dc[6] - 13 * dc[8] + 3 * dc[9] - 3 * dc[10]
                    + 38 * dc[11] - 38 * dc[13] + 3 * dc[14] - 3 * dc[15] + 13 * dc[16] - 13 * dc[18] + 3 * dc[19]
                    - dc[20] - dc[21] + dc[23] + dc[24]
                : -7 * dc[10] + 50 * dc[11] - 50 * dc[13] + 7 * dc[14])
        }
        if wanted(2) {
            set(2, changeDC
                ? -dc[0] - 3 * dc[1] - 3 * dc[2] - 3 * dc[3] - dc[4] - dc[5] + 13 * dc[6] + 38 * dc[7] + 13 * dc[8]
                    - dc[9] + dc[15] - 13 * dc[16] - 38 * dc[17] - 13 * dc[18] + dc[19] + dc[20] + 3 * dc[21]
                    + 3 * dc[22] + 3 * dc[23] + dc[24]
                : -7 * dc[2] + 50 * dc[7] - 50 * dc[17] + 7 * dc[22])
        }
        if wanted(3) {
            set(3, changeDC
                ? dc[2] + 2 * dc[6] + 7 * dc[7] + 2 * dc[8] - 5 * dc[11] - 14 * dc[12] - 5 * dc[13] + 2 * dc[16]
                    + 7 * dc[17] + 2 * dc[18] + dc[22]
                : -dc[2] + 13 * dc[7] - 24 * dc[12] + 13 * dc[17] - dc[22])
        }
        if wanted(4) {
            set(4, changeDC
                ? -dc[0] + dc[4] + 9 * dc[6] - 9 * dc[8] - 9 * dc[16] + 9 * dc[18] + dc[20] - dc[24]
                : dc[9] + dc[15] - 10 * dc[16] + 10 * dc[18] - dc[1] - dc[19] + dc[21] - dc[23] + dc[3] - dc[5]
                    + 10 * dc[6] - 10 * dc[8])
        }
        if wanted(5) {
            set(5, changeDC
                ? 2 * dc[6] - 5 * dc[7] + 2 * dc[8] + dc[10] + 7 * dc[11] - 14 * dc[12] + 7 * dc[13] + dc[14]
                    + 2 * dc[16] - 5 * dc[17] + 2 * dc[18]
                : -dc[10] + 13 * dc[11] - 24 * dc[12] + 13 * dc[13] - dc[14])
        }
        guard changeDC else { return }
        if wanted(6) { set(6, dc[6] - dc[8] + 2 * dc[11] - 2 * dc[13] + dc[16] - dc[18]) }
        if wanted(7) { set(7, dc[6] - 3 * dc[7] + dc[8] - dc[16] + 3 * dc[17] - dc[18]) }
        if wanted(8) { set(8, dc[6] - dc[8] - 3 * dc[11] + 3 * dc[13] + dc[16] - dc[18]) }
        if wanted(9) { set(9, dc[6] + 2 * dc[7] + dc[8] - dc[16] - 2 * dc[17] - dc[18]) }
        let n = -2 * dc[0] - 6 * dc[1] - 8 * dc[2] - 6 * dc[3] - 2 * dc[4] - 6 * dc[5] + 6 * dc[6] + 42 * dc[7]
            + 6 * dc[8] - 6 * dc[9] - 8 * dc[10] + 42 * dc[11] + 152 * dc[12] + 42 * dc[13] - 8 * dc[14]
            - 6 * dc[15] + 6 * dc[16] + 42 * dc[17] + 6 * dc[18] - 6 * dc[19] - 2 * dc[20] - 6 * dc[21]
            - 8 * dc[22] - 6 * dc[23] - 2 * dc[24]
        coef[0] = BlockSmoother.predict(q00 * n, q00, 0)
    }
}
