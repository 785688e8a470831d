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

    /// Writes filter `type` of `row` into `out` and returns Σ|byte as Int8|. The first `bpp`
    /// bytes (no left neighbour) are done apart so the main loops stay branch-free.
    private func apply(_ type: Int, _ row: UnsafePointer<UInt8>, _ prior: UnsafePointer<UInt8>,
                       _ out: UnsafeMutablePointer<UInt8>) -> Int {
        let n = count, d = min(bpp, count)
        switch type {
        case 0:
            out.update(from: row, count: n)
        case 1:
            for i in 0..<d { out[i] = row[i] }
            for i in d..<n { out[i] = row[i] &- row[i &- d] }
        case 2:
            for i in 0..<n { out[i] = row[i] &- prior[i] }
        case 3:
            for i in 0..<d { out[i] = row[i] &- (prior[i] >> 1) }
            for i in d..<n {
                out[i] = row[i] &- UInt8(truncatingIfNeeded: (UInt16(row[i &- d]) &+ UInt16(prior[i])) >> 1)
            }
        default:
            for i in 0..<d { out[i] = row[i] &- prior[i] }
            for i in d..<n {
                let p = PNGUnfilter.predict(Int(row[i &- d]), Int(prior[i]), Int(prior[i &- d]))
                out[i] = row[i] &- UInt8(truncatingIfNeeded: p)
            }
        }
        var score = 0
        for i in 0..<n {
            let v = Int(Int8(bitPattern: out[i]))
            score &+= v < 0 ? 0 &- v : v
        }
        return score
    }
}
