/// The work bound of a HEIF decode (`DecodeLimits.maxPixelsPerCodedByte`), checked while the
/// item graph is resolved, before anything is decoded.
///
/// Work is counted in decoded pixels: every grid cell, overlay input and alpha tile is one
/// full HEVC decode of its `ispe` size, whether or not its coded item was decoded before (the
/// renderers keep no decoded tile: a cache would cost the memory the tile-by-tile design
/// saves). Coded bytes are counted once: the union of the file ranges the decoded items'
/// `iloc` extents cover, so naming one item many times, giving many items one range, or
/// letting ranges overlap adds work but no bytes. The bound compares the two:
///
///     pixels <= DecodeLimits.freeDecodedPixels + maxPixelsPerCodedByte × coded bytes
///
/// Rejected alternatives: refusing repeated `dimg` references alone (many items can share one
/// byte range, or overlapping ranges that start at different bytes); decoding a repeated
/// item once and keeping it (more memory per distinct item, and still no bound on shared
/// ranges); libheif's approach, limits on counts only (`max_items` 1,000, `max_number_of_tiles`
/// 4096², 32768² pixels), which does not bound repeated decodes.
enum HEIFDecodeWork {
    /// Pixels the pictures of `plans` decode and the coded bytes behind them.
    struct Tally: Equatable {
        var pixels: Int
        var codedBytes: Int
        /// Items with an extent past their data or no location: they count no bytes.
        var unreadableItems: Set<Int> = []
    }

    /// Throws `.limitExceeded` when decoding `plans` (the primary image and its alpha, or one
    /// thumbnail) would break the work bound.
    static func check(_ plans: [HEIFPicturePlan], container: HEIFContainer, limits: DecodeLimits) throws {
        guard let tally = tally(plans, container: container) else {
            throw ImageCodecError(.limitExceeded, "HEIF image decodes more pixels than an Int holds")
        }
        if tally.pixels <= DecodeLimits.freeDecodedPixels { return }
        let (perBytes, o1) = max(0, limits.maxPixelsPerCodedByte).multipliedReportingOverflow(by: tally.codedBytes)
        let (allowed, o2) = DecodeLimits.freeDecodedPixels.addingReportingOverflow(perBytes)
        guard o1 || o2 || tally.pixels <= allowed else {
            // Bytes that cannot be read counted nothing; the decode would fail on them first
            // (`.truncated` for a file cut short), so that is the error to give.
            for id in tally.unreadableItems.sorted() { _ = try container.data(of: id, limits: limits) }
            throw ImageCodecError(.limitExceeded, "HEIF image decodes \(tally.pixels) pixels from \(tally.codedBytes) bytes of coded data "
                                  + "(at most \(DecodeLimits.freeDecodedPixels) + \(limits.maxPixelsPerCodedByte) per byte)")
        }
    }

    /// The decoded pixels of every coded picture in `plans` (overlay inputs included) and the
    /// bytes of the union of their items' ranges; nil when the pixels overflow `Int`.
    static func tally(_ plans: [HEIFPicturePlan], container: HEIFContainer) -> Tally? {
        var pixels = 0
        var items = Set<Int>()
        func visit(_ plan: HEIFPicturePlan) -> Bool {
            if let overlay = plan.overlay {
                return overlay.inputs.allSatisfy { visit($0.plan) }
            }
            let (perTile, o1) = plan.tileWidth.multipliedReportingOverflow(by: plan.tileHeight)
            let (all, o2) = perTile.multipliedReportingOverflow(by: plan.tiles.count)
            let (sum, o3) = pixels.addingReportingOverflow(all)
            guard !o1, !o2, !o3 else { return false }
            pixels = sum
            for tile in plan.tiles { items.insert(tile.itemID) }
            return true
        }
        guard plans.allSatisfy(visit) else { return nil }
        let (bytes, unreadable) = unionBytes(items, container: container)
        return Tally(pixels: pixels, codedBytes: bytes, unreadableItems: unreadable)
    }

    /// Bytes of the file covered by the extents of `items`, each byte once, and the items
    /// whose bytes cannot be read (an extent past the data, no location, another file): those
    /// count nothing, since decoding them fails.
    static func unionBytes(_ items: Set<Int>, container: HEIFContainer) -> (bytes: Int, unreadable: Set<Int>) {
        var ranges: [Range<Int>] = []
        var unreadable = Set<Int>()
        for id in items {
            guard let location = container.locations[id] else { unreadable.insert(id); continue }
            let region: Range<Int>
            switch location.constructionMethod {
            case 0: region = 0..<container.bytes.count
            case 1:
                guard let idat = container.idat else { unreadable.insert(id); continue }
                region = idat
            default:
                unreadable.insert(id)
                continue
            }
            for (offset, length) in location.extents {
                let (far, overflow) = offset.addingReportingOverflow(length)
                let end = length == 0 ? region.count : far
                guard offset >= 0, offset <= region.count, !overflow, end <= region.count else {
                    unreadable.insert(id)
                    continue
                }
                if offset < end { ranges.append((region.lowerBound + offset)..<(region.lowerBound + end)) }
            }
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var total = 0
        var covered = 0  // the end of the bytes counted so far
        for range in ranges {
            let start = max(range.lowerBound, covered)
            if range.upperBound > start {
                total += range.upperBound - start
                covered = range.upperBound
            }
        }
        return (total, unreadable)
    }
}
