/// The encoder's per-row filter choice: every one of the five filters is tried and the row
/// whose bytes, read as signed, have the smallest sum of magnitudes wins (libpng's heuristic).
/// Small residuals cluster around 0 and ±1, which deflate codes compactly.
final class PNGRowFilterChooser {
    private let count: Int
    private let bpp: Int
    /// Five candidate rows, each a filter byte followed by `count` filtered bytes.
    private let candidates: UnsafeMutablePointer<UInt8>

    /// Rows of `count` bytes whose pixels are `bpp` bytes apart.
    init(rowBytes count: Int, bpp: Int) {
        self.count = count
        self.bpp = bpp
        candidates = .allocate(capacity: 5 * (count + 1))
        candidates.initialize(repeating: 0, count: 5 * (count + 1))
    }

    deinit { candidates.deallocate() }

    /// Filters `row` against `prior` (the unfiltered row above, or zeros for the first row)
    /// and returns the best candidate: `count + 1` bytes, valid until the next call.
    func filter(_ row: UnsafePointer<UInt8>, prior: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var best = 0
        var bestScore = Int.max
        for type in 0..<5 {
            let out = candidates + type &* (count &+ 1)
            out[0] = UInt8(type)
            let score = apply(type, row, prior, out + 1)
            if score < bestScore {
                bestScore = score
                best = type
            }
        }
        return UnsafePointer(candidates + best &* (count &+ 1))
    }

    /// Writes filter `type` of `row` into `out` and returns Σ|byte as Int8|.
    private func apply(_ type: Int, _ row: UnsafePointer<UInt8>, _ prior: UnsafePointer<UInt8>,
                       _ out: UnsafeMutablePointer<UInt8>) -> Int {
        var score = 0
        @inline(__always) func put(_ i: Int, _ v: UInt8) {
            out[i] = v
            score &+= Int(PNGUnfilter.magnitude(Int(Int8(bitPattern: v))))
        }
        let n = count, d = bpp
        switch type {
        case 0:
            for i in 0..<n { put(i, row[i]) }
        case 1:
            for i in 0..<n { put(i, i < d ? row[i] : row[i] &- row[i &- d]) }
        case 2:
            for i in 0..<n { put(i, row[i] &- prior[i]) }
        case 3:
            for i in 0..<n {
                let left = i < d ? 0 : UInt16(row[i &- d])
                put(i, row[i] &- UInt8(truncatingIfNeeded: (left &+ UInt16(prior[i])) >> 1))
            }
        default:
            for i in 0..<n {
                let a = i < d ? 0 : Int(row[i &- d])
                let c = i < d ? 0 : Int(prior[i &- d])
                put(i, row[i] &- UInt8(truncatingIfNeeded: PNGUnfilter.predict(a, Int(prior[i]), c)))
            }
        }
        return score
    }
}
