#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The block sums of a reduced HEIF decode, whose memory is given back band by band as the
/// tiles above it finish.
///
/// A 480 px thumbnail of a 200 MP grid reduces at 1/8 into 2040×1530 blocks: 37 MB of UInt32
/// sums held to the end, the largest buffer of the decode. But tiles arrive in rows (grid
/// order), so once every tile covering an output row has been drawn that row is final: it is
/// turned into means in the output at once (`HEIFRowProgress` says when) and its pages are
/// handed back with `madvise(MADV_DONTNEED)`. The sums live in their own anonymous mapping, so
/// pages never written are never resident either: only the rows of the tile rows in flight
/// are. Measured on a 16320×12240 grid (768 tiles): peak RSS of `gallery thumb --size 480`
/// fell from 56 MB above the idle process to the figure in docs/heif-hevc.md.
///
/// The memory estimate still counts the whole buffer: a thread may run ahead of a slow tile by
/// any number of rows (`HEIFTileWorkers` has no window), and the estimate is an upper bound.
final class HEIFBlockSums {
    let pointer: UnsafeMutablePointer<UInt32>
    private let byteCount: Int
    private static let pageSize = Int(getpagesize())

    /// Zeroed sums for `count` values; `.limitExceeded` when the mapping is refused.
    init(count: Int) throws {
        let (bytes, overflow) = max(1, count).multipliedReportingOverflow(by: MemoryLayout<UInt32>.stride)
        guard !overflow, let raw = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw ImageCodecError(.limitExceeded, "cannot map \(count) block sums")
        }
        byteCount = bytes
        pointer = raw.bindMemory(to: UInt32.self, capacity: max(1, count))
    }

    deinit { munmap(UnsafeMutableRawPointer(pointer), byteCount) }

    /// Gives back the whole pages inside values `range` (they read as zero afterwards; the
    /// caller never reads them again).
    func release(_ range: Range<Int>) {
        let page = Self.pageSize
        let start = (range.lowerBound * MemoryLayout<UInt32>.stride + page - 1) / page * page
        let end = min(byteCount, range.upperBound * MemoryLayout<UInt32>.stride) / page * page
        guard start < end else { return }
        _ = madvise(UnsafeMutableRawPointer(pointer) + start, end - start, MADV_DONTNEED)
    }
}

/// Which output rows of a reduced picture are final: every tile that covers any of their
/// stored rows has been drawn. Tiles outside the crop are never drawn and never waited for.
struct HEIFRowProgress {
    private let factor: Int
    private let phaseY: Int
    private let cropY: Int
    private let cropHeight: Int
    private let tileHeight: Int
    private let columns: Int
    private let outHeight: Int
    /// Per grid row: tiles still to draw.
    private var remaining: [Int]
    /// Output rows below this one are final.
    private(set) var finalRows = 0

    init(_ plan: HEIFPicturePlan, factor: Int, phaseY: Int, outHeight: Int) {
        let t = plan.transform
        self.factor = factor
        self.phaseY = phaseY
        cropY = t.cropY
        cropHeight = t.cropHeight
        tileHeight = max(1, plan.tileHeight)
        columns = max(1, plan.columns)
        self.outHeight = outHeight
        var remaining = [Int](repeating: 0, count: (plan.tiles.count + columns - 1) / columns)
        for (index, tile) in plan.tiles.enumerated() {
            let x0 = max(tile.x, t.cropX), x1 = min(tile.x + plan.tileWidth, t.cropX + t.cropWidth)
            let y0 = max(tile.y, t.cropY), y1 = min(tile.y + plan.tileHeight, t.cropY + t.cropHeight)
            if x0 < x1, y0 < y1 { remaining[index / columns] += 1 }
        }
        self.remaining = remaining
    }

    /// Records tile `index` as drawn; returns the output rows that became final.
    mutating func drawn(_ index: Int) -> Range<Int> {
        let row = index / columns
        if remaining.indices.contains(row), remaining[row] > 0 { remaining[row] -= 1 }
        let first = finalRows
        while finalRows < outHeight, isFinal(finalRows) { finalRows += 1 }
        return first..<finalRows
    }

    /// Output row `by` covers stored rows [by·f − phaseY, (by+1)·f − phaseY) of the crop.
    private func isFinal(_ by: Int) -> Bool {
        let top = max(0, by * factor - phaseY) + cropY
        let bottom = min(cropHeight, (by + 1) * factor - phaseY) - 1 + cropY
        guard top <= bottom else { return true }
        for gridRow in (top / tileHeight)...(bottom / tileHeight) where remaining.indices.contains(gridRow) {
            if remaining[gridRow] > 0 { return false }
        }
        return true
    }
}
