import CZlib

/// PNG encoder for 8-bit bitmaps: gray, gray+alpha, RGB and RGBA map to colour types 0, 4, 2
/// and 6 at depth 8, never interlaced. Each row gets the adaptive filter of
/// `PNGRowFilterChooser`, and rows are deflated one at a time into 64 KiB IDAT chunks, so the
/// only buffers besides the output are a few rows and zlib's window.
public enum PNGEncoder {
    /// Encodes an 8-bit bitmap as PNG; `compressionLevel` is zlib's 0 (store) ... 9 (smallest),
    /// 6 by default. `iccProfile`, when set, is written as an iCCP chunk (zlib-compressed)
    /// before the image data, for pixels that are not sRGB. Throws `.invalidArgument` for a
    /// level outside 0...9.
    public static func encode(_ bitmap: Bitmap, compressionLevel: Int = 6, iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        guard (0...9).contains(compressionLevel) else {
            throw ImageCodecError(.invalidArgument, "PNG compression level \(compressionLevel) is not in 0...9")
        }
        let colorType: UInt8
        switch bitmap.layout {
        case .gray: colorType = 0
        case .grayAlpha: colorType = 4
        case .rgb: colorType = 2
        case .rgba: colorType = 6
        }
        guard bitmap.width <= 0x7FFF_FFFF, bitmap.height <= 0x7FFF_FFFF,
              bitmap.pixels.count == bitmap.rowBytes * bitmap.height else {
            throw ImageCodecError(.invalidArgument, "bitmap \(bitmap.width)x\(bitmap.height) cannot be a PNG")
        }
        var writer = PNGChunkWriter()
        writer.bytes.reserveCapacity(bitmap.pixels.count / 2 + 1024)
        writer.bytes += PNGChunkReader.signature
        var ihdr = [UInt8]()
        PNGChunkWriter.appendU32(&ihdr, bitmap.width)
        PNGChunkWriter.appendU32(&ihdr, bitmap.height)
        ihdr += [8, colorType, 0, 0, 0]
        writer.chunk("IHDR", ihdr)
        if let iccProfile, !iccProfile.isEmpty {
            writer.chunk("iCCP", Array("ICC profile".utf8) + [0, 0] + (try compress(iccProfile)))
        }
        try deflateRows(of: bitmap, level: compressionLevel, into: &writer)
        writer.chunk("IEND", [])
        return writer.bytes
    }

    /// One zlib stream of `bytes` at the best compression (profiles are small).
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var bound = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let status = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in compress2(o.baseAddress, &bound, i.baseAddress, uLong(i.count), 9) }
        }
        guard status == Z_OK else { throw ImageCodecError(.invalidArgument, "zlib compress failed (status \(status))") }
        return Array(out[0..<Int(bound)])
    }

    private static func deflateRows(of bitmap: Bitmap, level: Int, into writer: inout PNGChunkWriter) throws {
        let z = try ZlibStream(.deflate(level: level))
        let rowBytes = bitmap.rowBytes
        let chooser = PNGRowFilterChooser(rowBytes: rowBytes, bpp: bitmap.channels)
        let zeros = [UInt8](repeating: 0, count: rowBytes)
        var idat = [UInt8](repeating: 0, count: 64 << 10)
        try bitmap.pixels.withUnsafeBufferPointer { pixels in
            try zeros.withUnsafeBufferPointer { zeroRow in
                try idat.withUnsafeMutableBufferPointer { outBuffer in
                    // Both buffers are non-empty (width, height ≥ 1), so the base addresses exist.
                    let base = pixels.baseAddress!
                    let out = outBuffer.baseAddress!
                    z.setOutput(out, count: outBuffer.count)
                    // Deflates until the input is consumed (or, finishing, the stream ends),
                    // emitting an IDAT chunk whenever the 64 KiB output buffer fills.
                    func drain(_ flush: Int32) throws {
                        while true {
                            let status = deflate(z.stream, flush)
                            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                                throw ImageCodecError(.invalidArgument, "zlib deflate failed: \(z.describe(status))")
                            }
                            if z.availableOut == 0 {
                                writer.chunk("IDAT", UnsafeBufferPointer(outBuffer))
                                z.setOutput(out, count: outBuffer.count)
                                continue
                            }
                            if flush == Z_NO_FLUSH ? z.availableIn == 0 : status == Z_STREAM_END { return }
                        }
                    }
                    for y in 0..<bitmap.height {
                        let row = base + y * rowBytes
                        let prior = y == 0 ? zeroRow.baseAddress! : row - rowBytes
                        z.setInput(chooser.filter(row, prior: prior), count: rowBytes + 1)
                        try drain(Z_NO_FLUSH)
                    }
                    try drain(Z_FINISH)
                    let pending = outBuffer.count - z.availableOut
                    if pending > 0 {
                        writer.chunk("IDAT", UnsafeBufferPointer(rebasing: outBuffer[0..<pending]))
                    }
                }
            }
        }
    }
}

/// Appends chunks (length, type, data, CRC-32 of type + data) to a growing PNG file.
struct PNGChunkWriter {
    var bytes: [UInt8] = []

    mutating func chunk(_ type: String, _ data: [UInt8]) {
        data.withUnsafeBufferPointer { chunk(type, $0) }
    }

    mutating func chunk(_ type: String, _ data: UnsafeBufferPointer<UInt8>) {
        let name = Array(type.utf8)
        PNGChunkWriter.appendU32(&bytes, data.count)
        bytes += name
        bytes.append(contentsOf: data)
        var crc = name.withUnsafeBufferPointer { PNGChunkReader.crc($0.baseAddress!, count: 4) }
        if let base = data.baseAddress, data.count > 0 {
            crc = PNGChunkReader.crc(base, count: data.count, seed: crc)
        }
        PNGChunkWriter.appendU32(&bytes, Int(crc))
    }

    static func appendU32(_ bytes: inout [UInt8], _ v: Int) {
        bytes += [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                  UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }
}
