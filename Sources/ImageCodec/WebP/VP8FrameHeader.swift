/// The key-frame header of a VP8 bitstream (RFC 6386 sections 9 and 19.2): frame tag, size,
/// then, in the first partition, segmentation, loop-filter settings, the token partitions'
/// layout, quantisers and the token probability updates.
///
/// WebP stores exactly one key frame; inter frames, invisible frames and unknown profiles are
/// refused. Parsing stops where the per-macroblock modes begin; the first partition's decoder
/// is handed on to read them.
struct VP8FrameHeader {
    /// Dequantisation factors of one segment: (DC, AC) for Y, Y2 and chroma.
    struct Quantisers {
        var y1: (dc: Int32, ac: Int32)
        var y2: (dc: Int32, ac: Int32)
        var uv: (dc: Int32, ac: Int32)
    }

    /// Loop-filter parameters of one (segment, 4×4-coded) combination (libwebp's VP8FInfo).
    struct FilterStrength {
        /// Edge limit 2·level + interior; 0 means no filtering.
        var limit: Int32
        var interior: Int32
        var hevThreshold: Int32
    }

    enum LoopFilter { case none, simple, normal }

    let width: Int
    let height: Int
    let macroblockColumns: Int
    let macroblockRows: Int
    /// Whether macroblocks carry a segment id (read with `segmentProbabilities`).
    let updateSegmentMap: Bool
    let segmentProbabilities: (UInt8, UInt8, UInt8)
    let quantisers: [Quantisers]
    /// Indexed [segment · 2 + (4×4-coded ? 1 : 0)].
    let filterStrengths: [FilterStrength]
    let loopFilter: LoopFilter
    /// Token probabilities [type][band][context][node] flattened as in `WebPTables`.
    let coefficientProbabilities: [UInt8]
    /// Probability of the per-macroblock "no non-zero coefficient" flag, or nil when absent.
    let skipProbability: UInt8?
    /// Byte ranges of the 1, 2, 4 or 8 token partitions.
    let tokenPartitions: [Range<Int>]

    /// Reads the header of the VP8 payload `chunk` of `file`. Returns it with the first
    /// partition's decoder positioned at the first macroblock's modes.
    static func read(_ file: UnsafeBufferPointer<UInt8>, chunk: Range<Int>) throws -> (VP8FrameHeader, VP8BoolDecoder) {
        guard chunk.count >= 10 else { throw ImageCodecError(.truncated, "VP8 frame header is cut short") }
        let s = chunk.lowerBound
        let tag = Int(file[s]) | Int(file[s + 1]) << 8 | Int(file[s + 2]) << 16
        guard tag & 1 == 0 else { throw ImageCodecError(.unsupported, "VP8 inter frame in a WebP file") }
        guard (tag >> 1) & 7 <= 3 else { throw ImageCodecError(.unsupported, "VP8 profile \((tag >> 1) & 7)") }
        guard (tag >> 4) & 1 == 1 else { throw ImageCodecError(.unsupported, "VP8 frame is not meant to be shown") }
        let firstPartitionSize = tag >> 5
        guard file[s + 3] == 0x9D, file[s + 4] == 0x01, file[s + 5] == 0x2A else {
            throw ImageCodecError(.corrupt, "VP8 start code missing")
        }
        let width = (Int(file[s + 6]) | Int(file[s + 7]) << 8) & 0x3FFF
        let height = (Int(file[s + 8]) | Int(file[s + 9]) << 8) & 0x3FFF
        guard width > 0, height > 0 else { throw ImageCodecError(.corrupt, "VP8 frame size \(width)x\(height)") }
        let partitionStart = s + 10
        guard firstPartitionSize <= chunk.upperBound - partitionStart else {
            throw ImageCodecError(.truncated, "VP8 first partition runs past the chunk")
        }
        var d = VP8BoolDecoder(file, partitionStart..<(partitionStart + firstPartitionSize))
        _ = d.bit(128)  // colour space: only 0 (YUV) exists
        _ = d.bit(128)  // clamping type: the decoder always clamps

        // Segmentation.
        var useSegments = false, updateMap = false, absoluteDeltas = false
        var segmentQuantiser = [Int](repeating: 0, count: 4), segmentFilter = [Int](repeating: 0, count: 4)
        var segmentProbabilities: (UInt8, UInt8, UInt8) = (255, 255, 255)
        if d.bit(128) == 1 {
            useSegments = true
            updateMap = d.bit(128) == 1
            if d.bit(128) == 1 {  // segment data update
                absoluteDeltas = d.bit(128) == 1
                for i in 0..<4 { segmentQuantiser[i] = d.optionalSigned(7) }
                for i in 0..<4 { segmentFilter[i] = d.optionalSigned(6) }
            }
            if updateMap {
                var p = [UInt8](repeating: 255, count: 3)
                for i in 0..<3 where d.bit(128) == 1 { p[i] = UInt8(d.literal(8)) }
                segmentProbabilities = (p[0], p[1], p[2])
            }
        }

        // Loop filter.
        let simple = d.bit(128) == 1
        let level = d.literal(6)
        let sharpness = d.literal(3)
        var referenceDelta = 0, modeDelta = 0
        if d.bit(128) == 1, d.bit(128) == 1 {  // deltas enabled and updated in this frame
            // Only the intra-frame reference delta [0] and the B_PRED mode delta [0] apply to a key frame.
            for i in 0..<4 where d.bit(128) == 1 { let v = d.signedLiteral(6); if i == 0 { referenceDelta = v } }
            for i in 0..<4 where d.bit(128) == 1 { let v = d.signedLiteral(6); if i == 0 { modeDelta = v } }
        }

        // Token partitions: sizes of all but the last as 3-byte little-endian numbers.
        let partitionCount = 1 << d.literal(2)
        var cursor = partitionStart + firstPartitionSize
        let sizesEnd = cursor + 3 * (partitionCount - 1)
        guard sizesEnd <= chunk.upperBound else { throw ImageCodecError(.truncated, "VP8 partition sizes run past the chunk") }
        cursor = sizesEnd
        var partitions: [Range<Int>] = []
        for i in 0..<partitionCount {
            let size: Int
            if i < partitionCount - 1 {
                let p = partitionStart + firstPartitionSize + 3 * i
                size = Int(file[p]) | Int(file[p + 1]) << 8 | Int(file[p + 2]) << 16
            } else {
                size = chunk.upperBound - cursor
            }
            guard size <= chunk.upperBound - cursor else { throw ImageCodecError(.truncated, "VP8 token partition \(i) runs past the chunk") }
            partitions.append(cursor..<(cursor + size))
            cursor += size
        }

        // Quantisers.
        let base = d.literal(7)
        let y1DC = d.optionalSigned(4), y2DC = d.optionalSigned(4), y2AC = d.optionalSigned(4)
        let uvDC = d.optionalSigned(4), uvAC = d.optionalSigned(4)
        var quantisers: [Quantisers] = []
        for segment in 0..<4 {
            var q = base
            if useSegments { q = segmentQuantiser[segment] + (absoluteDeltas ? 0 : base) }
            func dc(_ delta: Int, _ top: Int) -> Int32 { WebPTables.dcQuant[min(max(q + delta, 0), top)] }
            func ac(_ delta: Int) -> Int32 { WebPTables.acQuant[min(max(q + delta, 0), 127)] }
            // x · 155 / 100 for every table value (libwebp's form); note Swift's >> binds tighter than *.
            let y2ac = max((ac(y2AC) * 101_581) >> 16, 8)
            quantisers.append(Quantisers(y1: (dc(y1DC, 127), ac(0)), y2: (dc(y2DC, 127) * 2, y2ac), uv: (dc(uvDC, 117), ac(uvAC))))
        }

        _ = d.bit(128)  // refresh_entropy_probs: meaningless for a single frame
        var probabilities = WebPTables.defaultCoefficientProbabilities
        for i in 0..<probabilities.count where d.bit(WebPTables.coefficientUpdateProbabilities[i]) == 1 {
            probabilities[i] = UInt8(d.literal(8))
        }
        let skipProbability: UInt8? = d.bit(128) == 1 ? UInt8(d.literal(8)) : nil

        let filter: LoopFilter = level == 0 ? .none : (simple ? .simple : .normal)
        var strengths: [FilterStrength] = []
        for segment in 0..<4 {
            var baseLevel = level
            if useSegments { baseLevel = segmentFilter[segment] + (absoluteDeltas ? 0 : level) }
            for subblocks in 0..<2 {
                var l = baseLevel + referenceDelta + (subblocks == 1 ? modeDelta : 0)
                l = min(max(l, 0), 63)
                guard l > 0 else {
                    strengths.append(FilterStrength(limit: 0, interior: 0, hevThreshold: 0))
                    continue
                }
                var interior = l
                if sharpness > 0 {
                    interior >>= sharpness > 4 ? 2 : 1
                    interior = min(interior, 9 - sharpness)
                }
                interior = max(interior, 1)
                strengths.append(FilterStrength(limit: Int32(2 * l + interior), interior: Int32(interior),
                                                hevThreshold: l >= 40 ? 2 : (l >= 15 ? 1 : 0)))
            }
        }
        if d.pastEnd { throw ImageCodecError(.truncated, "VP8 frame header runs past its partition") }
        let header = VP8FrameHeader(width: width, height: height, macroblockColumns: (width + 15) >> 4,
                                    macroblockRows: (height + 15) >> 4, updateSegmentMap: updateMap,
                                    segmentProbabilities: segmentProbabilities, quantisers: quantisers,
                                    filterStrengths: strengths, loopFilter: filter,
                                    coefficientProbabilities: probabilities, skipProbability: skipProbability,
                                    tokenPartitions: partitions)
        return (header, d)
    }

    /// Width and height from the first ten bytes alone (for probing).
    static func size(_ file: UnsafeBufferPointer<UInt8>, chunk: Range<Int>) throws -> (width: Int, height: Int) {
        guard chunk.count >= 10 else { throw ImageCodecError(.truncated, "VP8 frame header is cut short") }
        let s = chunk.lowerBound
        guard file[s] & 1 == 0, file[s + 3] == 0x9D, file[s + 4] == 0x01, file[s + 5] == 0x2A else {
            throw ImageCodecError(.corrupt, "VP8 key frame start code missing")
        }
        let width = (Int(file[s + 6]) | Int(file[s + 7]) << 8) & 0x3FFF
        let height = (Int(file[s + 8]) | Int(file[s + 9]) << 8) & 0x3FFF
        guard width > 0, height > 0 else { throw ImageCodecError(.corrupt, "VP8 frame size \(width)x\(height)") }
        return (width, height)
    }
}
