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
struct BlockSmoother {
    /// Natural indices of zigzag positions 1...9.
    static let positions = [1, 8, 16, 9, 2, 3, 10, 17, 24]

    struct Component {
        /// Latched coef_bits[0...9] for rows up to the last good iMCU row, and after it.
        let bits: [Int]
        let previousBits: [Int]
        let quant: [Int]
        let kept: [Bool]
    }

    let components: [Component]
    let lastGoodIMCURow: Int
    let totalIMCURows: Int

    init?(progression: ProgressionState, plan: DecodePlan, store: CoefficientStore, renderer: MCURowRenderer) {
        var useful = false
        var made: [Component] = []
        for c in plan.components.indices {
            guard renderer.quantLatched[c] else { return nil }
            let q = (0..<64).map { Int(renderer.quant[c][$0]) }
            guard ([0] + BlockSmoother.positions).allSatisfy({ q[$0] != 0 }) else { return nil }
            let bits = Array(progression.coefBits[c][0..<10])
            guard bits[0] >= 0 else { return nil }
            if bits[1...].contains(where: { $0 != 0 }) { useful = true }
            var previous = progression.scansRead > 1 ? progression.previousBits[c] : [Int](repeating: -1, count: 10)
            previous[0] = bits[0]
            let plane = store.planes[c]
            let kept = (0..<64).map { k in (0..<plane.slots).contains { plane.naturalOfSlot[$0] == k } }
            made.append(Component(bits: bits, previousBits: previous, quant: q, kept: kept))
        }
        guard useful else { return nil }
        components = made
        lastGoodIMCURow = progression.lastGoodIMCURow
        totalIMCURows = plan.bands
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
        let rows = [prevPrev, prev, row, next, nextNext].map { min(max($0, 0), plane.blocksHigh - 1) }
        let lastCol = p.dataBlocksWide - 1
        // dc[i][j]: DC of the block i-2 rows and j-2 columns away (libjpeg DC01...DC25).
        var dc = [Int](repeating: 0, count: 25)
        for i in 0..<5 {
            for j in 0..<5 {
                let col = min(max(bx + j - 2, 0), lastCol)
                dc[i * 5 + j] = Int(plane.values[(rows[i] * plane.blocksWide + col) * plane.slots])
            }
        }
        func d(_ n: Int) -> Int { dc[n - 1] }
        let changeDC = bits[1...9].allSatisfy { $0 == -1 }
        let q00 = info.quant[0]
        func predict(_ pos: Int, _ al: Int, _ num: Int, limited: Bool) {
            let qq = info.quant[pos]
            var pred: Int
            if num >= 0 {
                pred = ((qq << 7) + num) / (qq << 8)
                if limited && al > 0 && pred >= (1 << al) { pred = (1 << al) - 1 }
            } else {
                pred = ((qq << 7) - num) / (qq << 8)
                if limited && al > 0 && pred >= (1 << al) { pred = (1 << al) - 1 }
                pred = -pred
            }
            coef[pos] = Int16(truncatingIfNeeded: pred)
        }
        func wanted(_ i: Int) -> Bool {
            let pos = BlockSmoother.positions[i - 1]
            return bits[i] != 0 && info.kept[pos] && coef[pos] == 0
        }
        if wanted(1) {
            let n = changeDC
                ? -d(1) - d(2) + d(4) + d(5) - 3 * d(6) + 13 * d(7) - 13 * d(9) + 3 * d(10) - 3 * d(11) + 38 * d(12)
                    - 38 * d(14) + 3 * d(15) - 3 * d(16) + 13 * d(17) - 13 * d(19) + 3 * d(20) - d(21) - d(22) + d(24) + d(25)
                : -7 * d(11) + 50 * d(12) - 50 * d(14) + 7 * d(15)
            predict(1, bits[1], q00 * n, limited: true)
        }
        if wanted(2) {
            let n = changeDC
                ? -d(1) - 3 * d(2) - 3 * d(3) - 3 * d(4) - d(5) - d(6) + 13 * d(7) + 38 * d(8) + 13 * d(9) - d(10) + d(16)
                    - 13 * d(17) - 38 * d(18) - 13 * d(19) + d(20) + d(21) + 3 * d(22) + 3 * d(23) + 3 * d(24) + d(25)
                : -7 * d(3) + 50 * d(8) - 50 * d(18) + 7 * d(23)
            predict(8, bits[2], q00 * n, limited: true)
        }
        if wanted(3) {
            let n = changeDC
                ? d(3) + 2 * d(7) + 7 * d(8) + 2 * d(9) - 5 * d(12) - 14 * d(13) - 5 * d(14) + 2 * d(17) + 7 * d(18)
                    + 2 * d(19) + d(23)
                : -d(3) + 13 * d(8) - 24 * d(13) + 13 * d(18) - d(23)
            predict(16, bits[3], q00 * n, limited: true)
        }
        if wanted(4) {
            let n = changeDC
                ? -d(1) + d(5) + 9 * d(7) - 9 * d(9) - 9 * d(17) + 9 * d(19) + d(21) - d(25)
                : d(10) + d(16) - 10 * d(17) + 10 * d(19) - d(2) - d(20) + d(22) - d(24) + d(4) - d(6) + 10 * d(7) - 10 * d(9)
            predict(9, bits[4], q00 * n, limited: true)
        }
        if wanted(5) {
            let n = changeDC
                ? 2 * d(7) - 5 * d(8) + 2 * d(9) + d(11) + 7 * d(12) - 14 * d(13) + 7 * d(14) + d(15) + 2 * d(17)
                    - 5 * d(18) + 2 * d(19)
                : -d(11) + 13 * d(12) - 24 * d(13) + 13 * d(14) - d(15)
            predict(2, bits[5], q00 * n, limited: true)
        }
        guard changeDC else { return }
        if wanted(6) { predict(3, bits[6], q00 * (d(7) - d(9) + 2 * d(12) - 2 * d(14) + d(17) - d(19)), limited: true) }
        if wanted(7) { predict(10, bits[7], q00 * (d(7) - 3 * d(8) + d(9) - d(17) + 3 * d(18) - d(19)), limited: true) }
        if wanted(8) { predict(17, bits[8], q00 * (d(7) - d(9) - 3 * d(12) + 3 * d(14) + d(17) - d(19)), limited: true) }
        if wanted(9) { predict(24, bits[9], q00 * (d(7) + 2 * d(8) + d(9) - d(17) - 2 * d(18) - d(19)), limited: true) }
        let n = -2 * d(1) - 6 * d(2) - 8 * d(3) - 6 * d(4) - 2 * d(5) - 6 * d(6) + 6 * d(7) + 42 * d(8) + 6 * d(9)
            - 6 * d(10) - 8 * d(11) + 42 * d(12) + 152 * d(13) + 42 * d(14) - 8 * d(15) - 6 * d(16) + 6 * d(17)
            + 42 * d(18) + 6 * d(19) - 6 * d(20) - 2 * d(21) - 6 * d(22) - 8 * d(23) - 6 * d(24) - 2 * d(25)
        predict(0, 0, q00 * n, limited: false)
    }
}
