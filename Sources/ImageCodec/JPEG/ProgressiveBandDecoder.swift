/// Decodes a progressive file one iMCU row at a time: every scan keeps its own bit reader
/// (`ProgressiveScanDecoder`, started where `ProgressiveScanLayout` found its data) and, band
/// after band, each scan in file order decodes that band's blocks into a store holding only
/// the band, which is then transformed and output. The coefficients of a block go through the
/// scans in the same order as in the whole-image decode, so the pixels are the same; the store
/// is one iMCU row instead of the whole image (a 16.8 MP 4:4:4 file at 2/8: 90 kB instead of
/// 46 MB), and it stays in cache while all the scans work on it.
///
/// Scans that can change no position the scaled IDCTs read are not decoded at all
/// (`ProgressiveScanLayout.scansNeeded`): at 1/8 that is every AC scan, most of the file.
enum ProgressiveBandDecoder {
    /// Decodes every band into `renderer`'s output and appends the warnings the whole-image
    /// decode would give, in its order, except those about the data of skipped scans. Returns false, with the output incomplete, if a scan's
    /// data did not end at the marker the layout found (which a well-formed layout rules out:
    /// a guard, after which the caller decodes the whole-image way).
    static func decode(_ layout: ProgressiveScanLayout, _ h: JPEGDecoder.Headers, plan: DecodePlan,
                       store: CoefficientStore, renderer: MCURowRenderer, warnings: inout [String]) throws -> Bool {
        let data = h.marker.data
        guard let base = data.baseAddress else { return false }
        var decoders: [ProgressiveScanDecoder] = []
        decoders.reserveCapacity(layout.entries.count)
        for e in layout.entries {
            try JPEGDecoder.latchQuantTables(e.scan, h.frame, e.tables, renderer)
            let reader = BitReader(base: base, count: data.count, pos: e.start)
            // Built for skipped scans too: an undefined Huffman table is an error either way.
            decoders.append(try ProgressiveScanDecoder(scan: e.scan, tables: e.tables, reader: reader))
        }
        let needed = ProgressiveScanLayout.scansNeeded(layout.entries.map(\.scan), kept: store.planes.map(\.keptMask))
        let read = decoders.indices.filter { needed[$0] }
        // Only smoothing reads it, and a layout exists only where smoothing does not apply.
        var lastGoodIMCURow = 0
        for band in 0..<plan.bands {
            store.clear()
            for s in read {
                decoders[s].decode(throughBand: band, frame: h.frame, plan: plan, store: store, lastGoodIMCURow: &lastGoodIMCURow)
            }
            renderer.fill(band: band, from: store, smoother: nil)
            if band > 0 { try renderer.emit(band: band - 1) }
        }
        try renderer.emit(band: plan.bands - 1)
        var found: [String] = []
        for ((e, decoder), wasRead) in zip(zip(layout.entries, decoders), needed) {
            // A skipped scan reports nothing about its own data (corrupt codes, restart
            // markers, stray bytes before its end marker): none of it can change a pixel.
            guard wasRead else {
                found += e.followingWarnings
                continue
            }
            found += decoder.warnings
            guard let between = markerWalk(from: decoder.reader, to: e, data) else { return false }
            found += between + e.followingWarnings
        }
        warnings += found
        return true
    }

    /// The whole-image decode's walk from where a scan's reader stopped to its end marker:
    /// restart markers on the way are ignored and stray bytes reported. Nil when the walk does
    /// not arrive at the layout's end marker.
    static func markerWalk(from reader: BitReader, to e: ProgressiveScanLayout.Entry, _ data: UnsafeBufferPointer<UInt8>) -> [String]? {
        var walker = JPEGMarkerReader(data)
        walker.pos = reader.pos
        var pending: UInt8? = reader.marker != 0 ? reader.marker : nil
        var warnings: [String] = []
        while walker.pos <= e.end {
            let code: UInt8
            if let p = pending {
                code = p
                pending = nil
            } else {
                var skipped = 0
                guard let m = walker.nextMarker(skipped: &skipped) else { return nil }
                if skipped > 0 { warnings.append("corrupt JPEG data: \(skipped) extraneous bytes before marker 0x\(JPEGDecoder.hex(m))") }
                code = m
            }
            if walker.pos == e.end && code == e.endMarker { return warnings }
            guard (0xD0...0xD7).contains(code) else { return nil }
        }
        return nil
    }
}
