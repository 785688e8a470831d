/// The 5-byte VP8L header: signature 0x2F, 14-bit width − 1, 14-bit height − 1, alpha hint,
/// 3-bit version (must be 0).
struct VP8LHeader {
    let width: Int
    let height: Int
    /// Whether the encoder says some alpha is not 255 (a hint only).
    let alphaHint: Bool

    static func read(_ file: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws -> VP8LHeader {
        guard payload.count >= 5 else { throw ImageCodecError(.truncated, "VP8L header cut short") }
        guard file[payload.lowerBound] == 0x2F else { throw ImageCodecError(.corrupt, "VP8L signature missing") }
        var r = VP8LBitReader(file, (payload.lowerBound + 1)..<(payload.lowerBound + 5))
        let width = Int(r.read(14)) + 1, height = Int(r.read(14)) + 1
        let alpha = r.read(1) == 1
        guard r.read(3) == 0 else { throw ImageCodecError(.unsupported, "VP8L version is not 0") }
        return VP8LHeader(width: width, height: height, alphaHint: alpha)
    }
}

/// Decodes VP8L image streams (lossless specification sections 4-6): transforms, colour
/// cache, meta prefix codes and the LZ77-coded ARGB pixels, then the inverse transforms.
///
/// Memory: the whole ARGB image (4 bytes per pixel) is held, because the predictor transform
/// and backward references reach into earlier rows anywhere in the image; a reduced decode
/// box-reduces from it afterwards.
enum VP8LDecoder {
    /// Bytes `decode` allocates for a `width` × `height` image (ARGB pixels); nil on overflow.
    static func byteCount(width: Int, height: Int) -> Int? { DecodeMemoryEstimate.product([width, height, 4]) }

    /// A whole VP8L chunk payload to ARGB pixels, row after row.
    static func decode(_ file: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws -> (header: VP8LHeader, argb: [UInt32]) {
        let header = try VP8LHeader.read(file, payload)
        var r = VP8LBitReader(file, (payload.lowerBound + 5)..<payload.upperBound)
        let argb = try decodeMainImage(&r, width: header.width, height: header.height)
        return (header, argb)
    }

    /// A header-less image stream (ALPH compression 1) of `width` × `height` pixels.
    static func decodeStream(_ file: UnsafeBufferPointer<UInt8>, _ bytes: Range<Int>, width: Int, height: Int) throws -> [UInt32] {
        var r = VP8LBitReader(file, bytes)
        return try decodeMainImage(&r, width: width, height: height)
    }

    private static func decodeMainImage(_ r: inout VP8LBitReader, width: Int, height: Int) throws -> [UInt32] {
        var transforms: [VP8LTransforms.Transform] = []
        var seen = Set<UInt32>()
        var codedWidth = width
        while r.read(1) == 1 {
            let kindBits = r.read(2)
            guard seen.insert(kindBits).inserted, let kind = VP8LTransforms.Transform.Kind(rawValue: kindBits) else {
                throw ImageCodecError(.corrupt, "VP8L transform \(kindBits) used twice")
            }
            switch kind {
            case .predictor, .colour:
                let bits = Int(r.read(3)) + 2
                let data = try decodeImage(&r, width: divideRoundingUp(codedWidth, bits), height: divideRoundingUp(height, bits), allowMeta: false)
                transforms.append(.init(kind: kind, bits: bits, width: codedWidth, data: data))
            case .subtractGreen:
                transforms.append(.init(kind: kind, bits: 0, width: codedWidth, data: []))
            case .colourIndexing:
                let colours = Int(r.read(8)) + 1
                let bits = colours > 16 ? 0 : (colours > 4 ? 1 : (colours > 2 ? 2 : 3))
                var palette = try decodeImage(&r, width: colours, height: 1, allowMeta: false)
                for i in 1..<colours { palette[i] = VP8LTransforms.add(palette[i], palette[i - 1]) }
                // Indices past the palette give transparent black, as in libwebp.
                palette += [UInt32](repeating: 0, count: 256 - colours)
                transforms.append(.init(kind: kind, bits: bits, width: codedWidth, data: palette))
                codedWidth = divideRoundingUp(codedWidth, bits)
            }
            if r.pastEnd { throw ImageCodecError(.truncated, "VP8L data ends inside a transform") }
        }
        // Room for the full width: colour indexing expands bundled pixels in place.
        var pixels = try decodeImage(&r, width: codedWidth, height: height, allowMeta: true, capacity: width * height)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for transform in transforms.reversed() { VP8LTransforms.undo(transform, buffer.baseAddress!, height: height) }
        }
        return pixels
    }

    @inline(__always) private static func divideRoundingUp(_ value: Int, _ bits: Int) -> Int { (value + (1 << bits) - 1) >> bits }

    /// One entropy-coded image: optional colour cache, meta codes (main image only), prefix
    /// code groups, then the pixels. The result has `max(capacity, width × height)` entries.
    private static func decodeImage(_ r: inout VP8LBitReader, width: Int, height: Int, allowMeta: Bool, capacity: Int = 0) throws -> [UInt32] {
        var cacheBits = 0
        if r.read(1) == 1 {
            cacheBits = Int(r.read(4))
            guard (1...11).contains(cacheBits) else { throw ImageCodecError(.corrupt, "VP8L colour cache of \(cacheBits) bits") }
        }
        var metaBits = 0
        var metaImage: [UInt32] = []
        var groupCount = 1
        var groupOf: [Int32] = [0]
        if allowMeta && r.read(1) == 1 {
            metaBits = Int(r.read(3)) + 2
            metaImage = try decodeImage(&r, width: divideRoundingUp(width, metaBits), height: divideRoundingUp(height, metaBits), allowMeta: false)
            // Only groups the meta image uses get tables; the others are read and dropped.
            var largest = 0
            for i in metaImage.indices {
                metaImage[i] = (metaImage[i] >> 8) & 0xFFFF
                largest = max(largest, Int(metaImage[i]))
            }
            groupCount = largest + 1
            groupOf = [Int32](repeating: -1, count: groupCount)
            for value in metaImage { groupOf[Int(value)] = 0 }
            // Compact indices in group order: the tables are stored in the order they are read.
            var next: Int32 = 0
            for group in 0..<groupCount where groupOf[group] == 0 {
                groupOf[group] = next
                next += 1
            }
        }
        let alphabet = [256 + 24 + (cacheBits > 0 ? 1 << cacheBits : 0), 256, 256, 256, 40]
        var tables: [UInt32] = []
        var offsets: [Int] = []
        for group in 0..<groupCount {
            for k in 0..<5 {
                let code = try VP8LHuffmanCode.read(&r, alphabetSize: alphabet[k])
                if groupOf[group] >= 0 {
                    offsets.append(tables.count)
                    tables += code.table
                    guard tables.count <= VP8LHuffmanCode.maxTableEntries else {
                        throw ImageCodecError(.limitExceeded, "VP8L prefix codes need more than \(VP8LHuffmanCode.maxTableEntries) table entries")
                    }
                }
            }
        }
        let count = width * height
        var pixels = [UInt32](repeating: 0, count: max(count, capacity))
        // Group of each meta-image block, compacted to the tables kept.
        let groupIndex = metaBits > 0 ? metaImage.map { groupOf[Int($0)] } : [0]
        let groups = UnsafeMutablePointer<VP8LPixelDecoder.Group>.allocate(capacity: max(offsets.count / 5, 1))
        defer { groups.deallocate() }
        try tables.withUnsafeBufferPointer { t in
            try offsets.withUnsafeBufferPointer { o in
                for g in 0..<(offsets.count / 5) {
                    (groups + g).initialize(to: VP8LPixelDecoder.Group(tables: t.baseAddress!, offsets: o.baseAddress! + g * 5))
                }
                try pixels.withUnsafeMutableBufferPointer { out in
                    try groupIndex.withUnsafeBufferPointer { index in
                        try VP8LPixelDecoder.run(&r, out: out.baseAddress!, width: width, height: height, cacheBits: cacheBits,
                                                 metaBits: metaBits, groupIndex: index.baseAddress!,
                                                 groups: groups)
                    }
                }
            }
        }
        return pixels
    }
}
