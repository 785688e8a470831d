/// A decoded poster picture to an RGB (or gray) bitmap reduced by 1/f: each row is converted
/// (`HEIFColourConverter` for SDR, `VideoToneMapper` for HLG/PQ) into one row buffer and added
/// into the block sums of its output row, which become means once its f rows are in. Blocks
/// are anchored at the top left in stored orientation, as JPEG's and PNG's reductions are:
/// output size ceil(size / f), the last row and column averaging what is there.
enum VideoPosterRows {
    static func render(_ picture: HEVCPicture, expected: HEVCStreamInfo, codePoints: ColourCodePoints?, reduction f: Int) throws -> Bitmap {
        try check(picture, expected: expected)
        let w = picture.width, h = picture.height
        let mono = picture.chromaFormat == .monochrome
        let c = mono ? 1 : 3
        let outW = (w + f - 1) / f, outH = (h + f - 1) / f
        var output = try Bitmap(width: outW, height: outH, layout: mono ? .gray : .rgb)
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
