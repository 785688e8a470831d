/// GIF decoding: block walk (all frames counted, only the first decoded) → LZW into one
/// index per frame pixel → rows of the canvas composed as a browser shows frame 1 (palette
/// colours inside the frame, its transparent index and everything outside the frame
/// transparent) → written out, or box-reduced as they are produced, like a PNG.
///
/// Output is RGB when frame 1 covers the canvas and has no transparent index, RGBA
/// otherwise. Data that ends early leaves the rest of the frame transparent (what browsers
/// show while a GIF loads) and says so in the warnings.
enum GIFDecoder {
    static func probe(_ bytes: [UInt8], limits: DecodeLimits) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { file in
            let structure = try GIFStructure(file)
            return try info(structure, file, limits: limits)
        }
    }

    static func decode(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodedImage {
        try PNGDecoder.checkReduction(reduction)
        return try bytes.withUnsafeBufferPointer { file in
            let structure = try GIFStructure(file)
            let info = try info(structure, file, limits: limits)
            let sizing = try Sizing(structure, info: info, reduction: reduction)
            try limits.check(sizing.memory)
            var warnings: [String] = []
            let bitmap = try FrameComposer(structure: structure, file: file, sizing: sizing).render(warnings: &warnings)
            if structure.truncated { warnings.append("GIF ends without a trailer") }
            return DecodedImage(bitmap: bitmap, info: info, warnings: warnings)
        }
    }

    static func memoryEstimate(_ bytes: [UInt8], reduction: Int, limits: DecodeLimits) throws -> DecodeMemoryEstimate {
        try PNGDecoder.checkReduction(reduction)
        return try bytes.withUnsafeBufferPointer { file in
            let structure = try GIFStructure(file)
            return try Sizing(structure, info: try info(structure, file, limits: limits), reduction: reduction).memory
        }
    }

    static func info(_ s: GIFStructure, _ file: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) throws -> ImageInfo {
        let canvas = s.canvas
        try limits.check(width: canvas.width, height: canvas.height)
        try TIFFDecoder.checkWork(pixels: canvas.width * canvas.height, codedBytes: file.count, limits: limits, subject: "GIF")
        let f = s.frames[0]
        guard f.width > 0, f.height > 0 else { throw ImageCodecError(.corrupt, "GIF first frame is empty") }
        let covers = canvas.left == 0 && canvas.top == 0 && f.width == canvas.width && f.height == canvas.height
        let alpha = !covers || f.transparentIndex != nil
        var info = ImageInfo(format: .gif, width: canvas.width, height: canvas.height, components: alpha ? 4 : 3,
                             hasAlpha: alpha, bitDepth: 8, progressive: f.interlaced, colorSpace: "Palette")
        info.frameCount = s.frames.count
        info.duration = s.frames.count > 1 ? s.duration : nil
        return info
    }

    /// Output size and buffers of one decode (`decode` allocates by it, `memoryEstimate` reports it).
    struct Sizing {
        let layout: Bitmap.Layout
        let reduction: Int
        let outWidth: Int
        let outHeight: Int
        let memory: DecodeMemoryEstimate

        init(_ s: GIFStructure, info: ImageInfo, reduction: Int) throws {
            layout = info.hasAlpha ? .rgba : .rgb
            self.reduction = reduction
            outWidth = (info.width + reduction - 1) / reduction
            outHeight = (info.height + reduction - 1) / reduction
            var m = DecodeMemoryEstimate("GIF \(info.width)x\(info.height) at \(8 / reduction)/8")
            m.add("output", outWidth, outHeight, layout.channels)
            m.add("indices", s.frames[0].width, s.frames[0].height)
            if reduction > 1 {
                m.add("row", info.width, layout.channels)
                m.add("block sums", bytes: PNGBoxReducer.sumBytes(width: info.width, height: info.height,
                                                                    channels: layout.channels, factor: reduction, scattered: false))
            }
            memory = m
        }
    }
}

/// Composes the first frame on its canvas, row by row.
private struct FrameComposer {
    let structure: GIFStructure
    let file: UnsafeBufferPointer<UInt8>
    let sizing: GIFDecoder.Sizing

    func render(warnings: inout [String]) throws -> Bitmap {
        let f = structure.frames[0]
        let canvas = structure.canvas
        guard let table = f.palette ?? structure.globalPalette else {
            throw ImageCodecError(.corrupt, "GIF frame without a colour table")
        }
        // 256 RGBA entries: indices past the table are black (as Pillow shows them), the
        // transparent index is clear.
        var palette = [UInt8](repeating: 0, count: 1024)
        for i in 0..<256 {
            if i < table.count {
                palette[4 * i] = file[table.offset + 3 * i]
                palette[4 * i + 1] = file[table.offset + 3 * i + 1]
                palette[4 * i + 2] = file[table.offset + 3 * i + 2]
            }
            palette[4 * i + 3] = i == f.transparentIndex ? 0 : 255
        }
        let pixelCount = f.width * f.height
        let indices = UnsafeMutablePointer<UInt8>.allocate(capacity: pixelCount)
        defer { indices.deallocate() }
        let minCodeSize = Int(file[f.dataOffset])
        let decoded = try GIFLZW.decode(file, offset: f.dataOffset + 1, minCodeSize: minCodeSize, into: indices, capacity: pixelCount)
        if decoded < pixelCount { warnings.append("GIF frame data ends after \(decoded) of \(pixelCount) pixels") }
        // Rows of the frame in stream order → image rows (interlaced: passes 8/0, 8/4, 4/2, 2/1).
        var rowOfLine = [Int](repeating: 0, count: f.height)
        if f.interlaced {
            var line = 0
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                for y in stride(from: start, to: f.height, by: step) { rowOfLine[line] = y; line += 1 }
            }
        } else {
            for y in 0..<f.height { rowOfLine[y] = y }
        }
        var lineOfRow = [Int](repeating: 0, count: f.height)
        for (line, y) in rowOfLine.enumerated() { lineOfRow[y] = line }

        let ch = sizing.layout.channels
        let width = canvas.width
        let reducer = sizing.reduction > 1
            ? PNGBoxReducer(width: width, height: canvas.height, layout: sizing.layout, factor: sizing.reduction) : nil
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: reducer == nil ? 1 : width * ch)
        defer { row.deallocate() }
        let count = sizing.outWidth * sizing.outHeight * ch
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Every output row is written below.
            initialized = count
            guard let out = buffer.baseAddress else { return }
            palette.withUnsafeBufferPointer { pal in
                for y in 0..<canvas.height {
                    let dst = reducer == nil ? out + y * width * ch : row
                    let fy = y - canvas.top
                    if fy < 0 || fy >= f.height {
                        dst.initialize(repeating: 0, count: width * ch)
                    } else {
                        let lineStart = lineOfRow[fy] * f.width
                        for x in 0..<width {
                            let q = dst + x &* ch
                            let fx = x &- canvas.left
                            if fx < 0 || fx >= f.width || lineStart &+ fx >= decoded {
                                for k in 0..<ch { q[k] = 0 }
                                continue
                            }
                            let p = Int(indices[lineStart &+ fx]) &* 4
                            q[0] = pal[p]; q[1] = pal[p &+ 1]; q[2] = pal[p &+ 2]
                            if ch == 4 { q[3] = pal[p &+ 3] }
                        }
                    }
                    reducer?.add(row, output: out)
                }
            }
        }
        if decoded < pixelCount && sizing.layout == .rgb {
            // Opaque output has no way to show missing pixels: they came out black.
            warnings.append("missing GIF pixels are black")
        }
        return try Bitmap(width: sizing.outWidth, height: sizing.outHeight, layout: sizing.layout, pixels: pixels)
    }
}
