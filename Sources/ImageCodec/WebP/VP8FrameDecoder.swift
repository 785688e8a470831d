/// Decoded VP8 planes: 4:2:0 Y, U, V at macroblock-aligned size (the visible frame is the
/// top-left `width` × `height`).
struct VP8Planes {
    let width: Int
    let height: Int
    let yStride: Int
    let uvStride: Int
    var y: [UInt8]
    var u: [UInt8]
    var v: [UInt8]

    /// Bytes the planes of a `width` × `height` frame take; nil on overflow.
    static func byteCount(width: Int, height: Int) -> Int? {
        let mbw = (width + 15) >> 4, mbh = (height + 15) >> 4
        guard let luma = DecodeMemoryEstimate.product([mbw, mbh, 256]) else { return nil }
        return DecodeMemoryEstimate.sum([luma, luma / 2])
    }
}

/// Runs the macroblock loop of a VP8 key frame: modes from the first partition, tokens from
/// the token partitions (row r uses partition r mod count), prediction plus residue in a small
/// work area whose edges hold the unfiltered neighbours, then the loop filter over each
/// finished macroblock row in the planes.
///
/// Why whole planes: the loop filter reaches three rows back into the previous macroblock row
/// and the fancy chroma upsampler one chroma row forward, so rows become final with a lag;
/// keeping the 1.5 bytes per pixel of YUV (instead of a band ring) keeps this simple, and the
/// RGB(A) output is still produced and box-reduced row by row from them.
enum VP8FrameDecoder {
    private static let workStride = 32

    static func decode(_ file: UnsafeBufferPointer<UInt8>, chunk: Range<Int>) throws -> VP8Planes {
        var (header, modes) = try VP8FrameHeader.read(file, chunk: chunk)
        let mbw = header.macroblockColumns, mbh = header.macroblockRows
        let yStride = mbw * 16, uvStride = mbw * 8
        // Every byte of the planes is written by its macroblock before anything reads it (a
        // failed decode throws them away), so they are not zero-filled first: that was a
        // pass over 1.5 bytes per pixel of memory for nothing.
        func plane(_ count: Int) -> [UInt8] { [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count } }
        var planes = VP8Planes(width: header.width, height: header.height, yStride: yStride, uvStride: uvStride,
                               y: plane(yStride * mbh * 16), u: plane(uvStride * mbh * 8), v: plane(uvStride * mbh * 8))
        var tokenDecoders = header.tokenPartitions.map { VP8BoolDecoder(file, $0) }
        let reader = VP8MacroblockReader(header: header)
        let ws = workStride
        let work = UnsafeMutablePointer<UInt8>.allocate(capacity: ws * 35)
        work.initialize(repeating: 0, count: ws * 35)
        let coefficients = UnsafeMutablePointer<Int16>.allocate(capacity: 384)
        coefficients.initialize(repeating: 0, count: 384)
        let top = UnsafeMutablePointer<UInt8>.allocate(capacity: yStride + 2 * uvStride)
        top.initialize(repeating: 0, count: yStride + 2 * uvStride)
        defer { work.deallocate(); coefficients.deallocate(); top.deallocate() }
        let yw = work + ws + 4, uw = work + 18 * ws + 4, vw = work + 27 * ws + 4
        let yTop = top, uTop = top + yStride, vTop = top + yStride + uvStride
        let kernels = KernelDispatch.selected
        var filterInfo = [(strength: VP8FrameHeader.FilterStrength, inner: Bool)](
            repeating: (VP8FrameHeader.FilterStrength(limit: 0, interior: 0, hevThreshold: 0), false), count: mbw)

        try planes.y.withUnsafeMutableBufferPointer { yBuffer in
            try planes.u.withUnsafeMutableBufferPointer { uBuffer in
                try planes.v.withUnsafeMutableBufferPointer { vBuffer in
                    let yPlane = yBuffer.baseAddress!, uPlane = uBuffer.baseAddress!, vPlane = vBuffer.baseAddress!
                    for mby in 0..<mbh {
                        reader.startRow()
                        let partition = mby & (tokenDecoders.count - 1)
                        var tokens = tokenDecoders[partition]
                        startRow(yw: yw, uw: uw, vw: vw, firstRow: mby == 0)
                        for mbx in 0..<mbw {
                            var mb = VP8Macroblock()
                            reader.readModes(&modes, x: mbx, into: &mb)
                            reader.readCoefficients(&tokens, x: mbx, mb: &mb, coefficients: coefficients)
                            // Stop at the first macroblock read past its partition (libwebp refuses
                            // the frame too): a hostile header claiming 16383 pixels across would
                            // otherwise make every truncated row cost a full row of work.
                            if modes.pastEnd { throw ImageCodecError(.truncated, "VP8 first partition ends early (macroblock row \(mby))") }
                            if tokens.pastEnd { throw ImageCodecError(.truncated, "VP8 token partition ends early (macroblock row \(mby))") }
                            if mbx > 0 { shiftLeftColumns(yw: yw, uw: uw, vw: vw) }
                            if mby > 0 {
                                copy16(yw - ws, yTop + mbx &* 16)
                                copy8(uw - ws, uTop + mbx &* 8)
                                copy8(vw - ws, vTop + mbx &* 8)
                            }
                            reconstruct(mb, coefficients: coefficients, yw: yw, uw: uw, vw: vw, mbx: mbx, mby: mby,
                                        mbw: mbw, yTop: yTop)
                            if mby < mbh - 1 {
                                copy16(yTop + mbx &* 16, yw + 15 &* ws)
                                copy8(uTop + mbx &* 8, uw + 7 &* ws)
                                copy8(vTop + mbx &* 8, vw + 7 &* ws)
                            }
                            let yOut = yPlane + mby &* 16 &* yStride + mbx &* 16
                            for j in 0..<16 { copy16(yOut + j &* yStride, yw + j &* ws) }
                            let uOut = uPlane + mby &* 8 &* uvStride + mbx &* 8, vOut = vPlane + mby &* 8 &* uvStride + mbx &* 8
                            for j in 0..<8 {
                                copy8(uOut + j &* uvStride, uw + j &* ws)
                                copy8(vOut + j &* uvStride, vw + j &* ws)
                            }
                            filterInfo[mbx] = (header.filterStrengths[mb.segment * 2 + (mb.is4x4 ? 1 : 0)], mb.is4x4 || !mb.skip)
                        }
                        tokenDecoders[partition] = tokens
                        if header.loopFilter != .none {
                            for mbx in 0..<mbw where filterInfo[mbx].strength.limit > 0 {
                                let info = filterInfo[mbx]
                                let y = yPlane + mby * 16 * yStride + mbx * 16
                                if header.loopFilter == .simple {
                                    kernels.vp8SimpleFilter(y, yStride, mbx > 0, mby > 0, info.inner, info.strength.limit)
                                } else {
                                    kernels.vp8NormalFilter(y, uPlane + mby * 8 * uvStride + mbx * 8, vPlane + mby * 8 * uvStride + mbx * 8,
                                                            yStride, uvStride, mbx > 0, mby > 0, info.inner,
                                                            info.strength.limit, info.strength.interior, info.strength.hevThreshold)
                                }
                            }
                        }
                    }
                }
            }
        }
        return planes
    }

    /// Left edge 129 and, on the first row, the top edge 127 (libwebp's frame borders).
    private static func startRow(yw: UnsafeMutablePointer<UInt8>, uw: UnsafeMutablePointer<UInt8>, vw: UnsafeMutablePointer<UInt8>, firstRow: Bool) {
        let ws = workStride
        for j in 0..<16 { yw[j * ws - 1] = 129 }
        for j in 0..<8 { uw[j * ws - 1] = 129; vw[j * ws - 1] = 129 }
        if firstRow {
            (yw - ws - 1).update(repeating: 127, count: 21)
            (uw - ws - 1).update(repeating: 127, count: 9)
            (vw - ws - 1).update(repeating: 127, count: 9)
        } else {
            yw[-ws - 1] = 129; uw[-ws - 1] = 129; vw[-ws - 1] = 129
        }
    }

    /// The previous macroblock's last four columns (and its top row's) become the left context.
    private static func shiftLeftColumns(yw: UnsafeMutablePointer<UInt8>, uw: UnsafeMutablePointer<UInt8>, vw: UnsafeMutablePointer<UInt8>) {
        let ws = workStride
        for j in -1..<16 { copy4(yw + j &* ws - 4, yw + j &* ws + 12) }
        for j in -1..<8 {
            copy4(uw + j &* ws - 4, uw + j &* ws + 4)
            copy4(vw + j &* ws - 4, vw + j &* ws + 4)
        }
    }

    // Fixed-width row copies, each one unaligned load and one store.
    @inline(__always) private static func copy16(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>) {
        UnsafeMutableRawPointer(dst).storeBytes(of: UnsafeRawPointer(src).loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
    }
    @inline(__always) private static func copy8(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>) {
        UnsafeMutableRawPointer(dst).storeBytes(of: UnsafeRawPointer(src).loadUnaligned(as: UInt64.self), as: UInt64.self)
    }
    @inline(__always) private static func copy4(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>) {
        UnsafeMutableRawPointer(dst).storeBytes(of: UnsafeRawPointer(src).loadUnaligned(as: UInt32.self), as: UInt32.self)
    }

    private static func dcEdges(mbx: Int, mby: Int) -> VP8IntraPrediction.DCEdges {
        if mbx == 0 { return mby == 0 ? .none : .noLeft }
        return mby == 0 ? .noTop : .both
    }

    private static func reconstruct(_ mb: VP8Macroblock, coefficients: UnsafeMutablePointer<Int16>,
                                    yw: UnsafeMutablePointer<UInt8>, uw: UnsafeMutablePointer<UInt8>, vw: UnsafeMutablePointer<UInt8>,
                                    mbx: Int, mby: Int, mbw: Int, yTop: UnsafeMutablePointer<UInt8>) {
        let ws = workStride
        let bits = mb.nonZeroBlocks
        if mb.is4x4 {
            let topRight = yw - ws + 16
            if mby > 0 {
                if mbx < mbw - 1 {
                    topRight.update(from: yTop + (mbx + 1) * 16, count: 4)
                } else {
                    topRight.update(repeating: yTop[mbx * 16 + 15], count: 4)
                }
            }
            for k in 1...3 { (topRight + 4 * k * ws).update(from: topRight, count: 4) }
            for n in 0..<16 {
                let offset: Int = (n & 3) &* 4 &+ (n >> 2) &* (4 &* ws)
                let dst = yw + offset
                VP8IntraPrediction.predictSubblock(dst, stride: ws, mode: mb.lumaModes[n], top: dst - ws, left: dst - 1, leftStride: ws)
                addTransform(mb, n, coefficients, dst)
            }
        } else {
            VP8IntraPrediction.predictBlock(yw, stride: ws, size: 16, mode: mb.lumaModes[0], edges: dcEdges(mbx: mbx, mby: mby),
                                            top: yw - ws, left: yw - 1, leftStride: ws)
            for n in 0..<16 where bits & (1 << UInt32(n)) != 0 {
                let offset: Int = (n & 3) &* 4 &+ (n >> 2) &* (4 &* ws)
                addTransform(mb, n, coefficients, yw + offset)
            }
        }
        let edges = dcEdges(mbx: mbx, mby: mby)
        VP8IntraPrediction.predictBlock(uw, stride: ws, size: 8, mode: mb.chromaMode, edges: edges, top: uw - ws, left: uw - 1, leftStride: ws)
        VP8IntraPrediction.predictBlock(vw, stride: ws, size: 8, mode: mb.chromaMode, edges: edges, top: vw - ws, left: vw - 1, leftStride: ws)
        for k in 0..<4 {
            let offset = (k & 1) * 4 + (k >> 1) * 4 * ws
            addTransform(mb, 16 &+ k, coefficients, uw + offset)
            addTransform(mb, 20 &+ k, coefficients, vw + offset)
        }
    }

    /// Adds block `n`'s residue: nothing, its DC alone, or the full IDCT (libwebp's
    /// DoTransform split; most blocks of a photo at usual qualities have no AC at all).
    @inline(__always)
    private static func addTransform(_ mb: VP8Macroblock, _ n: Int, _ coefficients: UnsafeMutablePointer<Int16>,
                                      _ dst: UnsafeMutablePointer<UInt8>) {
        let bit: UInt32 = 1 << UInt32(n)
        if mb.acBlocks & bit != 0 {
            VP8InverseTransform.addIDCT(coefficients + n &* 16, to: dst, stride: workStride)
        } else if mb.nonZeroBlocks & bit != 0 {
            VP8InverseTransform.addDC(coefficients[n &* 16], to: dst, stride: workStride)
        }
    }
}
