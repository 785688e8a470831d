/// Writes the key frame (RFC 6386 §9, §19): the 10-byte frame header, partition 0 (frame
/// header fields, coefficient probability updates, per-macroblock segment, skip flag and
/// modes) and one token partition.
///
/// Token probabilities: a counting pass over the stored levels gives, per tree node, how
/// often it is coded and how often as 1; a node's probability is updated where the bits it
/// saves exceed the 8 bits (and flag) the update costs. The skip flag is used when it is
/// likely enough to pay (libwebp's rule: skip probability < 250).
struct VP8FrameParameters {
    var width: Int, height: Int
    /// 1 or 4 segments; with 4 the map and per-segment quantiser and filter level are sent.
    var segments: [SegmentParameters]
    var uvDCDelta: Int, uvACDelta: Int
    /// Loop-filter level when there is one segment (0...63); sharpness is always 0.
    var filterLevel: Int
}

enum VP8FrameWriter {
    /// First partition size must fit the frame tag's 19 bits.
    static let maxFirstPartition = (1 << 19) - 1

    /// `skippedCounts`: the token statistics of every macroblock not skipped, as the mode
    /// decision gathered them; they are the frame's statistics when the skip flag is used,
    /// otherwise the skipped macroblocks' end-of-block tokens are counted again here.
    static func write(_ frame: borrowing FrameStore, _ parameters: VP8FrameParameters,
                      skippedCounts: UnsafePointer<UInt32>) throws -> [UInt8] {
        let count = frame.mbw * frame.mbh
        var skipped = 0
        for i in 0..<count where frame.skip[i] != 0 { skipped += 1 }
        let skipProbability = skipped == 0 ? 255 : (count - skipped) * 255 / count
        let useSkip = skipProbability < 250

        let counts = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * 1056)
        defer { counts.deallocate() }
        if useSkip {
            counts.initialize(from: skippedCounts, count: 2 * 1056)
        } else {
            counts.initialize(repeating: 0, count: 2 * 1056)
            var statistics = TokenStatistics(counts: counts)
            codeTokens(frame, useSkip: false, into: &statistics)
        }
        let probabilities = UnsafeMutablePointer<UInt8>.allocate(capacity: 1056)
        defer { probabilities.deallocate() }
        TokenCoder.chooseProbabilities(counts: counts, into: probabilities)

        let first = headerPartition(frame, parameters, probabilities: probabilities, useSkip: useSkip, skipProbability: skipProbability)
        guard first.count <= maxFirstPartition else {
            throw ImageCodecError(.limitExceeded, "VP8 first partition of \(first.count) bytes exceeds 512 KiB")
        }
        var writer = TokenWriter(encoder: BoolEncoder(capacity: count * 64), probabilities: probabilities)
        codeTokens(frame, useSkip: useSkip, into: &writer)
        let tokens = writer.encoder.finish()

        var out: [UInt8] = []
        out.reserveCapacity(10 + first.count + tokens.count)
        // Frame tag: key frame (0), version 0, shown (bit 4), first partition size (bits 5...).
        let tag = (1 << 4) | (first.count << 5)
        out += [UInt8(tag & 0xFF), UInt8(tag >> 8 & 0xFF), UInt8(tag >> 16 & 0xFF), 0x9D, 0x01, 0x2A,
                UInt8(parameters.width & 0xFF), UInt8(parameters.width >> 8),
                UInt8(parameters.height & 0xFF), UInt8(parameters.height >> 8)]
        out += first
        out += tokens
        return out
    }

    /// Partition 0: header fields, probability updates, then each macroblock's header.
    private static func headerPartition(_ frame: borrowing FrameStore, _ parameters: VP8FrameParameters,
                                        probabilities: UnsafePointer<UInt8>, useSkip: Bool, skipProbability: Int) -> [UInt8] {
        var e = BoolEncoder(capacity: frame.mbw * frame.mbh * 4 + 1024)
        e.putFlag(false) // colour space: YUV
        e.putFlag(false) // clamping required
        let segmented = parameters.segments.count > 1
        let count = frame.mbw * frame.mbh
        var segmentProbabilities = [255, 255, 255]
        e.putFlag(segmented)
        if segmented {
            var histogram = [0, 0, 0, 0]
            for i in 0..<count { histogram[Int(frame.segment[i])] += 1 }
            func probability(_ a: Int, _ b: Int) -> Int { a + b == 0 ? 255 : (255 * a + (a + b) / 2) / (a + b) }
            segmentProbabilities = [probability(histogram[0] + histogram[1], histogram[2] + histogram[3]),
                                    probability(histogram[0], histogram[1]), probability(histogram[2], histogram[3])]
            e.putFlag(true) // update the map
            e.putFlag(true) // update the data
            e.putFlag(true) // absolute values
            for s in parameters.segments { e.putOptionalSigned(s.quantIndex, 7) }
            for s in parameters.segments { e.putOptionalSigned(s.filterLevel, 6) }
            for p in segmentProbabilities {
                e.putFlag(p != 255)
                if p != 255 { e.putLiteral(p, 8) }
            }
        }
        e.putFlag(false) // normal (not simple) loop filter
        e.putLiteral(segmented ? parameters.segments[0].filterLevel : parameters.filterLevel, 6)
        e.putLiteral(0, 3) // sharpness
        e.putFlag(false) // no loop-filter deltas
        e.putLiteral(0, 2) // one token partition
        e.putLiteral(parameters.segments[0].quantIndex, 7)
        e.putOptionalSigned(0, 4) // Y1 DC
        e.putOptionalSigned(0, 4) // Y2 DC
        e.putOptionalSigned(0, 4) // Y2 AC
        e.putOptionalSigned(parameters.uvDCDelta, 4)
        e.putOptionalSigned(parameters.uvACDelta, 4)
        e.putFlag(false) // refresh_entropy_probs: irrelevant for a single key frame
        let defaults = VP8Tables.defaultCoefficientProbabilities
        let update = VP8Tables.coefficientUpdateProbabilities
        for i in 0..<1056 {
            let changed = probabilities[i] != defaults[i]
            e.put(changed, Int(update[i]))
            if changed { e.putLiteral(Int(probabilities[i]), 8) }
        }
        e.putFlag(useSkip)
        if useSkip { e.putLiteral(skipProbability, 8) }

        let modeProbabilities = VP8Tables.subblockModeProbabilities
        var topModes = [UInt8](repeating: 0, count: frame.mbw * 4)
        var leftModes: [UInt8] = [0, 0, 0, 0]
        for my in 0..<frame.mbh {
            leftModes = [0, 0, 0, 0]
            for mx in 0..<frame.mbw {
                let i = my * frame.mbw + mx
                if segmented {
                    let s = Int(frame.segment[i])
                    e.put(s >= 2, segmentProbabilities[0])
                    e.put(s & 1 == 1, segmentProbabilities[s >= 2 ? 2 : 1])
                }
                if useSkip { e.put(frame.skip[i] != 0, skipProbability) }
                let mode = Int(frame.yMode[i])
                e.put(mode != 4, 145)
                let sub = frame.subModes + i * 16
                if mode != 4 {
                    let tmOrH = mode == IntraMode16.tm.rawValue || mode == IntraMode16.h.rawValue
                    e.put(tmOrH, 156)
                    if tmOrH { e.put(mode == IntraMode16.tm.rawValue, 128) } else { e.put(mode == IntraMode16.v.rawValue, 163) }
                } else {
                    for blk in 0..<16 {
                        let x = blk & 3, y = blk >> 2
                        let context = (Int(topModes[mx * 4 + x]) * 10 + Int(leftModes[y])) * 9
                        ModeCosts.walkSubblockTree(Int(sub[blk])) { bit, node in
                            e.put(bit, Int(modeProbabilities[context + node]))
                        }
                        topModes[mx * 4 + x] = sub[blk]
                        leftModes[y] = sub[blk]
                    }
                }
                if mode != 4 {
                    for k in 0..<4 { topModes[mx * 4 + k] = UInt8(mode); leftModes[k] = UInt8(mode) }
                }
                let uv = Int(frame.uvMode[i])
                e.put(uv != IntraMode16.dc.rawValue, 142)
                if uv != IntraMode16.dc.rawValue {
                    e.put(uv != IntraMode16.v.rawValue, 114)
                    if uv != IntraMode16.v.rawValue { e.put(uv != IntraMode16.h.rawValue, 183) }
                }
            }
        }
        return e.finish()
    }

    /// Every macroblock's tokens in bitstream order with the decoder's contexts. With the
    /// skip flag in use, skipped macroblocks code nothing and clear their contexts (except
    /// Y2's after a 4×4 macroblock, which has none).
    static func codeTokens<S: TokenSink>(_ frame: borrowing FrameStore, useSkip: Bool, into sink: inout S) {
        let mbw = frame.mbw
        let topNz = UnsafeMutablePointer<UInt8>.allocate(capacity: mbw * 9)
        defer { topNz.deallocate() }
        topNz.initialize(repeating: 0, count: mbw * 9)
        let left = UnsafeMutablePointer<UInt8>.allocate(capacity: 9)
        defer { left.deallocate() }
        for my in 0..<frame.mbh {
            left.initialize(repeating: 0, count: 9)
            for mx in 0..<mbw {
                let i = my &* mbw &+ mx
                let top = topNz + mx &* 9
                let i4 = frame.yMode[i] == 4
                if useSkip && frame.skip[i] != 0 {
                    for k in 0..<8 { top[k] = 0; left[k] = 0 }
                    if !i4 { top[8] = 0; left[8] = 0 }
                    continue
                }
                TokenCoder.codeMacroblock(frame.levels + i &* 400, i4: i4, top: top, left: left, into: &sink)
            }
        }
    }
}
