/// A track's sample tables (ISO/IEC 14496-12 §8.6-8.7): `stts` (decode times), `stss` (sync
/// samples), `stsc` (samples per chunk), `stsz` (sizes) and `stco`/`co64` (chunk offsets).
/// Only each table's place and entry count are kept: entries are read from the `moov` bytes
/// one at a time while looking for a sample, so a two-hour video's tables are never copied
/// and every loop is bounded by entries that are physically there (each count is checked
/// against its box before anything is read).

struct MP4SampleTables {
    /// Entries of one table: `count` entries of `entrySize` bytes from offset `start` of the
    /// `moov` bytes.
    struct Table {
        var start = 0
        var count = 0
        var entrySize = 0
    }

    var stts: Table?
    var stss: Table?
    var stsc: Table?
    /// Per-sample sizes; nil with a constant `sampleSize`.
    var stsz: Table?
    var chunkOffsets: Table?
    /// `stsz` sample_size: the size of every sample when not 0.
    var sampleSize = 0
    var sampleCount = 0

    /// Most samples a track may claim: 2^31 (over 400 days at 60 fps).
    static let maxSamples = Int(Int32.max)

    mutating func add(_ bytes: [UInt8], _ box: HEIFBox) throws {
        var r = HEIFByteReader(bytes, box: box)
        switch box.type {
        case FourCC("stts"): stts = try Self.table(&r, box, entrySize: 8)
        case FourCC("stss"): stss = try Self.table(&r, box, entrySize: 4)
        case FourCC("stsc"): stsc = try Self.table(&r, box, entrySize: 12)
        case FourCC("stco"): chunkOffsets = try Self.table(&r, box, entrySize: 4)
        case FourCC("co64"): chunkOffsets = try Self.table(&r, box, entrySize: 8)
        case FourCC("stsz"):
            _ = try r.fullBoxHeader()
            sampleSize = try r.u32()
            sampleCount = try r.u32()
            guard sampleCount <= Self.maxSamples else { throw ImageCodecError(.limitExceeded, "'stsz' claims \(sampleCount) samples") }
            if sampleSize == 0 {
                guard sampleCount <= r.remaining / 4 else {
                    throw ImageCodecError(.corrupt, "'stsz' lists \(sampleCount) sizes but holds \(r.remaining / 4)")
                }
                stsz = Table(start: r.position, count: sampleCount, entrySize: 4)
            }
        case FourCC("stz2"):
            throw ImageCodecError(.unsupported, "compact sample sizes ('stz2')")
        default: break
        }
    }

    private static func table(_ r: inout HEIFByteReader, _ box: HEIFBox, entrySize: Int) throws -> Table {
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        guard count <= r.remaining / entrySize else {
            throw ImageCodecError(.corrupt, "'\(box.type)' lists \(count) entries but holds \(r.remaining / entrySize)")
        }
        return Table(start: r.position, count: count, entrySize: entrySize)
    }

    private static func entry(_ bytes: [UInt8], _ t: Table, _ index: Int, field: Int = 0, size: Int = 4) -> Int {
        let at = t.start + index * t.entrySize + field
        var v = 0
        for i in 0..<size { v = v << 8 | Int(bytes[at + i]) }
        return v
    }

    /// Number of samples and their total decode duration (`stts`), in media time units.
    func timing(_ bytes: [UInt8]) -> (samples: Int, duration: Int) {
        guard let stts else { return (0, 0) }
        var samples = 0, duration = 0
        for i in 0..<stts.count {
            let n = Self.entry(bytes, stts, i), delta = Self.entry(bytes, stts, i, field: 4)
            let (d, o1) = n.multipliedReportingOverflow(by: delta)
            let (sum, o2) = duration.addingReportingOverflow(d)
            guard !o1, !o2 else { return (samples, duration) }
            samples += n
            duration = sum
        }
        return (samples, duration)
    }

    /// The 1-based number of the sample decoded at media time `time` (`stts`), clamped to the
    /// last sample.
    func sample(at time: Int, _ bytes: [UInt8]) -> Int {
        guard let stts, time > 0 else { return 1 }
        var first = 1, start = 0
        for i in 0..<stts.count {
            let n = Self.entry(bytes, stts, i), delta = Self.entry(bytes, stts, i, field: 4)
            let (span, o1) = n.multipliedReportingOverflow(by: delta)
            let (end, o2) = start.addingReportingOverflow(span)
            if o1 || o2 || time < end {
                return delta == 0 ? first : min(first + (time - start) / delta, max(1, sampleCount))
            }
            start = end
            first += n
        }
        return max(1, sampleCount)
    }

    /// The poster: the last sync sample at or before sample `target` (the first sync sample
    /// when none is), 1-based. Without `stss` every sample is a sync sample.
    func syncSample(atOrBefore target: Int, _ bytes: [UInt8]) throws -> Int {
        guard let stss else { return target }
        guard stss.count > 0 else { throw ImageCodecError(.corrupt, "'stss' lists no sync sample") }
        var chosen = Self.entry(bytes, stss, 0)
        for i in 1..<max(1, stss.count) {
            let s = Self.entry(bytes, stss, i)
            guard s <= target, s > chosen else { break }
            chosen = s
        }
        guard chosen >= 1, chosen <= sampleCount else {
            throw ImageCodecError(.corrupt, "sync sample \(chosen) of \(sampleCount)")
        }
        return chosen
    }

    /// File offset, size and 1-based sample description index of sample `n` (1-based), from
    /// `stsc` + `stco`/`co64` + `stsz`. Overflowing sums are `.corrupt`.
    func location(of n: Int, _ bytes: [UInt8]) throws -> (offset: Int, size: Int, description: Int) {
        guard let stsc, let chunkOffsets else { throw ImageCodecError(.corrupt, "no 'stsc' or chunk offsets") }
        guard n >= 1, n <= sampleCount else { throw ImageCodecError(.corrupt, "sample \(n) of \(sampleCount)") }
        guard stsc.count > 0 else { throw ImageCodecError(.corrupt, "'stsc' is empty") }
        // Walk the runs of chunks: run i covers chunks first[i] ..< first[i+1], each holding
        // perChunk[i] samples.
        var firstSample = 1
        for i in 0..<stsc.count {
            let firstChunk = Self.entry(bytes, stsc, i)
            let perChunk = Self.entry(bytes, stsc, i, field: 4)
            let description = Self.entry(bytes, stsc, i, field: 8)
            let nextChunk = i + 1 < stsc.count ? Self.entry(bytes, stsc, i + 1) : chunkOffsets.count + 1
            guard firstChunk >= 1, nextChunk > firstChunk, perChunk > 0 else {
                throw ImageCodecError(.corrupt, "'stsc' entry \(i) (first chunk \(firstChunk), \(perChunk) samples per chunk) is invalid")
            }
            let (runSamples, o1) = (nextChunk - firstChunk).multipliedReportingOverflow(by: perChunk)
            let (runEnd, o2) = firstSample.addingReportingOverflow(runSamples)
            if o1 || o2 || n < runEnd {
                let chunk = firstChunk + (n - firstSample) / perChunk
                let firstInChunk = firstSample + (chunk - firstChunk) * perChunk
                guard chunk <= chunkOffsets.count else {
                    throw ImageCodecError(.corrupt, "sample \(n) lies in chunk \(chunk) of \(chunkOffsets.count)")
                }
                var offset = Self.entry(bytes, chunkOffsets, chunk - 1, size: chunkOffsets.entrySize)
                guard offset >= 0 else { throw ImageCodecError(.corrupt, "chunk offset overflows") }
                if stsz == nil {
                    let (before, o1) = (n - firstInChunk).multipliedReportingOverflow(by: sampleSize)
                    let (next, o2) = offset.addingReportingOverflow(before)
                    guard !o1, !o2 else { throw ImageCodecError(.corrupt, "sample offsets overflow") }
                    offset = next
                } else {
                    // Bounded by the `stsz` entries, which are physically in the box.
                    for s in firstInChunk..<n {
                        let (next, overflow) = offset.addingReportingOverflow(try size(of: s, bytes))
                        guard !overflow else { throw ImageCodecError(.corrupt, "sample offsets overflow") }
                        offset = next
                    }
                }
                return (offset, try size(of: n, bytes), description)
            }
            firstSample = runEnd
        }
        throw ImageCodecError(.corrupt, "'stsc' covers fewer than \(n) samples")
    }

    /// Size in bytes of sample `n` (1-based).
    func size(of n: Int, _ bytes: [UInt8]) throws -> Int {
        guard n >= 1, n <= sampleCount else { throw ImageCodecError(.corrupt, "sample \(n) of \(sampleCount)") }
        guard let stsz else { return sampleSize }
        return Self.entry(bytes, stsz, n - 1)
    }
}
