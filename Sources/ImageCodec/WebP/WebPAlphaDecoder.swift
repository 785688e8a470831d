/// The ALPH chunk of a lossy WebP (container specification, "Alpha"): a header byte
/// (compression in bits 0-1, filter in bits 2-3, pre-processing in bits 4-5), then the alpha
/// plane either raw or as a header-less VP8L stream whose green channel is the alpha, then
/// undone spatial prediction. The pre-processing flag only says the encoder reduced levels;
/// there is nothing to undo.
enum WebPAlphaDecoder {
    /// The `width` × `height` alpha plane of `payload`.
    static func decode(_ file: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>, width: Int, height: Int) throws -> [UInt8] {
        guard payload.count >= 1 else { throw ImageCodecError(.truncated, "ALPH chunk is empty") }
        let flags = file[payload.lowerBound]
        let compression = flags & 3, filter = (flags >> 2) & 3
        guard flags >> 6 == 0, (flags >> 4) & 3 <= 1 else { throw ImageCodecError(.corrupt, "ALPH reserved bits are set") }
        let data = (payload.lowerBound + 1)..<payload.upperBound
        let count = width * height
        var alpha: [UInt8]
        switch compression {
        case 0:
            guard data.count >= count else { throw ImageCodecError(.truncated, "raw ALPH data is short") }
            alpha = Array(file[data.lowerBound..<(data.lowerBound + count)])
        case 1:
            let argb = try VP8LDecoder.decodeStream(file, data, width: width, height: height)
            alpha = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                for i in 0..<count { buffer[i] = UInt8(truncatingIfNeeded: argb[i] >> 8) }
                initialized = count
            }
        default:
            throw ImageCodecError(.corrupt, "ALPH compression \(compression)")
        }
        if filter != 0 { unfilter(&alpha, width: width, height: height, method: Int(filter)) }
        return alpha
    }

    /// Undoes horizontal (1), vertical (2) or gradient (3) prediction. Pixel (0, 0) is coded
    /// as is; the first row always predicts from the left; the first column from above, except
    /// that the vertical filter predicts every later row entirely from above.
    private static func unfilter(_ alpha: inout [UInt8], width: Int, height: Int, method: Int) {
        alpha.withUnsafeMutableBufferPointer { buffer in
            let a = buffer.baseAddress!
            for x in 1..<max(width, 1) { a[x] = a[x] &+ a[x - 1] }
            for y in 1..<max(height, 1) {
                let row = a + y * width, above = row - width
                switch method {
                case 1:
                    row[0] = row[0] &+ above[0]
                    for x in 1..<max(width, 1) { row[x] = row[x] &+ row[x - 1] }
                case 2:
                    for x in 0..<width { row[x] = row[x] &+ above[x] }
                default:
                    row[0] = row[0] &+ above[0]
                    for x in 1..<max(width, 1) {
                        let g = Int(row[x - 1]) + Int(above[x]) - Int(above[x - 1])
                        row[x] = row[x] &+ UInt8(truncatingIfNeeded: g < 0 ? 0 : (g > 255 ? 255 : g))
                    }
                }
            }
        }
    }
}
