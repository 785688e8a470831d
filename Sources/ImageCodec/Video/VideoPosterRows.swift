/// A decoded poster picture to an RGB (or gray) bitmap reduced by 1/f. Blocks are anchored at
/// the top left in stored orientation, as JPEG's and PNG's reductions are: output size
/// ceil(size / f), the last row and column averaging what is there.
///
/// - SDR at 1/f < 1: the Y, Cb and Cr samples of each block are averaged first (chroma
///   repeated over the luma samples it covers, as the conversion repeats it) and only the
///   means are converted (`HEIFColourConverter`), as ffmpeg's scaler and JPEG's DCT scaling
///   reduce in YCbCr: a 4K poster at 1/8 converts 64 times fewer pixels. The result differs
///   from averaging converted pixels only by rounding, and where a block mixes clipped colours.
/// - HLG/PQ (`VideoToneMapper`, not linear) and full size: each row is converted into one row
///   buffer and added into the block sums of its output row, which become means once its f
///   rows are in.
enum VideoPosterRows {
    static func render(_ picture: HEVCPicture, expected: HEVCStreamInfo, codePoints: ColourCodePoints?, reduction f: Int) throws -> Bitmap {
        try check(picture, expected: expected)
        let w = picture.width, h = picture.height
        let mono = picture.chromaFormat == .monochrome
        let c = mono ? 1 : 3
        let outW = (w + f - 1) / f, outH = (h + f - 1) / f
        var output = try Bitmap(width: outW, height: outH, layout: mono ? .gray : .rgb)
        if f > 1 && (mono || !VideoPosterDecoder.isHDR(codePoints)) {
            reduceThenConvert(picture, codePoints: codePoints, reduction: f, into: &output)
            return output
        }
        var row = [UInt8](repeating: 0, count: w * c)
        var sums = [UInt32](repeating: 0, count: f > 1 ? outW * c : 0)
        let hdr = !mono && VideoPosterDecoder.isHDR(codePoints)
        let sdr = HEIFColourConverter(chroma: picture.chromaFormat, bitDepthLuma: picture.bitDepthLuma, bitDepthChroma: picture.bitDepthChroma,
                                      nclx: codePoints, signal: picture.videoSignal)
        let tone = hdr ? VideoToneMapper(transfer: codePoints!.transfer, primaries: codePoints!.primaries, matrix: codePoints!.matrix,
                                         fullRange: codePoints!.fullRange, bitDepthLuma: picture.bitDepthLuma,
                                         bitDepthChroma: picture.bitDepthChroma) : nil
        let chromaWidth = mono ? 0 : picture.planes[1].width
        let empty: [UInt16] = []
        let yPlane = picture.planes[0].samples
        let cbPlane = mono ? empty : picture.planes[1].samples
        let crPlane = mono ? empty : picture.planes[2].samples
        yPlane.withUnsafeBufferPointer { yp in
            cbPlane.withUnsafeBufferPointer { cbp in
                crPlane.withUnsafeBufferPointer { crp in
                    row.withUnsafeMutableBufferPointer { rowBuf in
                        sums.withUnsafeMutableBufferPointer { sumBuf in
                            output.pixels.withUnsafeMutableBufferPointer { outBuf in
                                let rp = rowBuf.baseAddress!, op = outBuf.baseAddress!
                                for y in 0..<h {
                                    if let tone {
                                        tone.convertRow(y: yp.baseAddress!, cb: cbp.baseAddress!, cr: crp.baseAddress!, row: y, x0: 0, count: w,
                                                        width: w, chromaWidth: chromaWidth, subsampling: picture.chromaFormat.subsampling, out: rp)
                                    } else {
                                        sdr.convertRow(y: yp.baseAddress!, cb: cbp.baseAddress, cr: crp.baseAddress, row: y, x0: 0, count: w,
                                                       width: w, chromaWidth: chromaWidth, out: rp, stride: c)
                                    }
                                    guard f > 1, let sp = sumBuf.baseAddress else {
                                        (op + y &* w &* c).update(from: rp, count: w &* c)
                                        continue
                                    }
                                    for x in 0..<w {
                                        let s = sp + (x / f) &* c, p = rp + x &* c
                                        for k in 0..<c { s[k] &+= UInt32(p[k]) }
                                    }
                                    let oy = y / f
                                    guard (y + 1) % f == 0 || y == h - 1 else { continue }
                                    let rows = UInt32(y + 1 - oy * f)
                                    let o = op + oy &* outW &* c
                                    for bx in 0..<outW {
                                        let n = rows * UInt32(min(w, (bx + 1) * f) - bx * f)
                                        for k in 0..<c {
                                            let i = bx &* c &+ k
                                            o[i] = UInt8(truncatingIfNeeded: (sp[i] + n / 2) / n)
                                            sp[i] = 0
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return output
    }

    /// The SDR reduction: block means of Y, Cb and Cr (at the coded depth, rounded), then one
    /// conversion per output pixel by a 4:4:4 converter with the picture's depths and colour.
    private static func reduceThenConvert(_ picture: HEVCPicture, codePoints: ColourCodePoints?, reduction f: Int,
                                          into output: inout Bitmap) {
        let w = picture.width, h = picture.height, outW = output.width
        let mono = picture.chromaFormat == .monochrome
        let c = mono ? 1 : 3
        let planes = mono ? 1 : 3
        let (sx, sy) = picture.chromaFormat.subsampling
        let shiftX = sx == 2 ? 1 : 0, shiftY = sy == 2 ? 1 : 0
        let chromaWidth = mono ? 0 : picture.planes[1].width
        let converter = HEIFColourConverter(chroma: mono ? .monochrome : .yuv444, bitDepthLuma: picture.bitDepthLuma,
                                            bitDepthChroma: picture.bitDepthChroma, nclx: codePoints, signal: picture.videoSignal)
        // Sums then means of one output row: Y, Cb, Cr runs of outW each; after the sums, the
        // Cb and Cr block sums of one chroma row (a 4:2:0 chroma row serves two luma rows,
        // mostly of the same output row, so it is summed once).
        var sums = [UInt32](repeating: 0, count: outW * planes + (mono ? 0 : 2 * outW))
        var means = [UInt16](repeating: 0, count: outW * planes)
        let empty: [UInt16] = []
        let yPlane = picture.planes[0].samples
        let cbPlane = mono ? empty : picture.planes[1].samples
        let crPlane = mono ? empty : picture.planes[2].samples
        yPlane.withUnsafeBufferPointer { yb in
            cbPlane.withUnsafeBufferPointer { cbb in
                crPlane.withUnsafeBufferPointer { crb in
                    sums.withUnsafeMutableBufferPointer { sumBuf in
                        means.withUnsafeMutableBufferPointer { meanBuf in
                            output.pixels.withUnsafeMutableBufferPointer { outBuf in
                                let sp = sumBuf.baseAddress!, mp = meanBuf.baseAddress!, op = outBuf.baseAddress!
                                let cp = sp + outW &* planes
                                let yp = yb.baseAddress!
                                var chromaRowOfSums = -1
                                for y in 0..<h {
                                    let yRow = yp + y &* w
                                    var x = 0
                                    for bx in 0..<outW {
                                        let x1 = min(w, x &+ f)
                                        var s: UInt32 = 0
                                        while x < x1 { s &+= UInt32(yRow[x]); x &+= 1 }
                                        sp[bx] &+= s
                                    }
                                    if !mono {
                                        let cy = y >> shiftY
                                        let rowSums = cp + outW
                                        if cy != chromaRowOfSums {
                                            chromaRowOfSums = cy
                                            let cbRow = cbb.baseAddress! + cy &* chromaWidth, crRow = crb.baseAddress! + cy &* chromaWidth
                                            var x = 0
                                            for bx in 0..<outW {
                                                let x1 = min(w, x &+ f)
                                                var u: UInt32 = 0, v: UInt32 = 0
                                                while x < x1 {
                                                    u &+= UInt32(cbRow[x >> shiftX])
                                                    v &+= UInt32(crRow[x >> shiftX])
                                                    x &+= 1
                                                }
                                                cp[bx] = u
                                                rowSums[bx] = v
                                            }
                                        }
                                        let cbSums = sp + outW, crSums = sp + 2 &* outW
                                        for bx in 0..<outW {
                                            cbSums[bx] &+= cp[bx]
                                            crSums[bx] &+= rowSums[bx]
                                        }
                                    }
                                    guard (y + 1) % f == 0 || y == h - 1 else { continue }
                                    let oy = y / f
                                    let rows = UInt32(y + 1 - oy * f)
                                    for bx in 0..<outW {
                                        let n = rows &* UInt32(min(w, (bx + 1) * f) - bx * f)
                                        for k in 0..<planes {
                                            let i = k &* outW &+ bx
                                            mp[i] = UInt16(truncatingIfNeeded: (sp[i] &+ n / 2) / n)
                                            sp[i] = 0
                                        }
                                    }
                                    converter.convertRow(y: mp, cb: mono ? nil : UnsafePointer(mp + outW), cr: mono ? nil : UnsafePointer(mp + 2 &* outW),
                                                         row: 0, x0: 0, count: outW, width: outW, chromaWidth: outW,
                                                         out: op + oy &* outW &* c, stride: c)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Throws `.corrupt` unless the decoded picture is the one the SPS promised (size and
    /// format) and its planes hold every sample the conversion reads.
    static func check(_ p: HEVCPicture, expected: HEVCStreamInfo) throws {
        guard p.width == expected.width, p.height == expected.height, p.chromaFormat == expected.chromaFormat,
              p.planes.count == p.chromaFormat.planeCount, p.planes[0].width == p.width,
              p.planes[0].samples.count >= p.width * p.height, (8...16).contains(p.bitDepthLuma), (8...16).contains(p.bitDepthChroma) else {
            throw ImageCodecError(.corrupt, "poster decodes to \(p.width)x\(p.height) \(p.chromaFormat), expected \(expected.width)x\(expected.height) \(expected.chromaFormat)")
        }
        guard p.planes.count == 3 else { return }
        let (sx, sy) = p.chromaFormat.subsampling
        let need = ((p.width + sx - 1) / sx, (p.height + sy - 1) / sy)
        guard p.planes[1].width >= need.0, p.planes[2].width == p.planes[1].width,
              p.planes[1].samples.count >= p.planes[1].width * need.1, p.planes[2].samples.count >= p.planes[1].width * need.1 else {
            throw ImageCodecError(.corrupt, "poster chroma planes are too small")
        }
    }
}
