/// The RIFF structure of a WebP file (the WebP container specification): a simple file is one
/// `VP8 ` or `VP8L` chunk; an extended one starts with `VP8X` (flags and canvas size) and may
/// carry `ICCP`, `EXIF`, `XMP `, `ALPH`, and for animations `ANIM` and `ANMF` frames.
///
/// Every chunk size is checked against the RIFF size and the file: a chunk that runs past
/// either is `.truncated`. Odd-sized chunks are followed by one padding byte (a missing pad
/// at the very end is tolerated, as libwebp does). Only the first animation frame is kept.
struct WebPContainer {
    /// The coded image the decoder turns into pixels.
    enum Bitstream { case lossy, lossless }

    var canvasWidth = 0
    var canvasHeight = 0
    var bitstream = Bitstream.lossy
    /// Payload of the VP8 or VP8L chunk (of the first frame, for an animation).
    var image: Range<Int> = 0..<0
    /// Payload of the ALPH chunk that goes with a VP8 image.
    var alpha: Range<Int>?
    /// Where the image sits on the canvas and its size (the whole canvas unless animated).
    var frameX = 0
    var frameY = 0
    var frameWidth = 0
    var frameHeight = 0
    var animated = false
    /// The VP8X alpha flag, or for a simple VP8L file its header's alpha hint.
    var alphaFlag = false
    var iccProfile: [UInt8]?
    var exif: Range<Int>?
    var xmp: Range<Int>?

    static func read(_ file: UnsafeBufferPointer<UInt8>) throws -> WebPContainer {
        guard file.count >= 12 else { throw ImageCodecError(.truncated, "WebP file shorter than its RIFF header") }
        guard fourCC(file, 0) == "RIFF", fourCC(file, 8) == "WEBP" else { throw ImageCodecError(.notAnImage, "not a RIFF WEBP file") }
        let riffSize = u32(file, 4)
        guard riffSize >= 12 else { throw ImageCodecError(.corrupt, "RIFF size \(riffSize) is too small") }
        guard riffSize <= file.count - 8 else { throw ImageCodecError(.truncated, "file ends before its RIFF size (\(riffSize) bytes)") }
        let end = 8 + riffSize
        var container = WebPContainer()
        var chunks: [(id: String, payload: Range<Int>)] = []
        var offset = 12
        while offset < end {
            guard end - offset >= 8 else { throw ImageCodecError(.truncated, "chunk header cut short at byte \(offset)") }
            let size = u32(file, offset + 4)
            guard size <= end - offset - 8 else { throw ImageCodecError(.truncated, "\(fourCC(file, offset)) chunk runs past the file") }
            chunks.append((fourCC(file, offset), (offset + 8)..<(offset + 8 + size)))
            offset += 8 + size + (size & 1)
        }
        guard let first = chunks.first else { throw ImageCodecError(.corrupt, "WebP file has no chunks") }
        switch first.id {
        case "VP8 ", "VP8L":
            try container.setImage(file, first.id, first.payload)
            container.canvasWidth = container.frameWidth
            container.canvasHeight = container.frameHeight
        case "VP8X":
            try container.readExtended(file, chunks)
        default:
            throw ImageCodecError(.corrupt, "WebP file starts with a \(first.id) chunk")
        }
        return container
    }

    private mutating func readExtended(_ file: UnsafeBufferPointer<UInt8>, _ chunks: [(id: String, payload: Range<Int>)]) throws {
        let header = chunks[0].payload
        guard header.count >= 10 else { throw ImageCodecError(.corrupt, "VP8X chunk of \(header.count) bytes") }
        let flags = file[header.lowerBound]
        alphaFlag = flags & 0x10 != 0
        animated = flags & 0x02 != 0
        canvasWidth = 1 + u24(file, header.lowerBound + 4)
        canvasHeight = 1 + u24(file, header.lowerBound + 7)
        var foundImage = false
        for chunk in chunks.dropFirst() {
            switch chunk.id {
            case "ICCP" where iccProfile == nil:
                iccProfile = Array(file[chunk.payload])
            case "EXIF" where exif == nil:
                exif = chunk.payload
            case "XMP " where xmp == nil:
                xmp = chunk.payload
            case "ALPH" where !foundImage && !animated:
                alpha = chunk.payload
            case "VP8 ", "VP8L":
                guard !animated, !foundImage else { continue }
                try setImage(file, chunk.id, chunk.payload)
                foundImage = true
            case "ANMF" where animated && !foundImage:
                try readFirstFrame(file, chunk.payload)
                foundImage = true
            default:
                continue
            }
        }
        guard foundImage else {
            throw ImageCodecError(animated ? .corrupt : .corrupt, animated ? "animated WebP without frames" : "WebP file has no image chunk")
        }
        if !animated {
            guard frameWidth == canvasWidth, frameHeight == canvasHeight else {
                throw ImageCodecError(.corrupt, "image \(frameWidth)x\(frameHeight) does not fill the \(canvasWidth)x\(canvasHeight) canvas")
            }
        } else {
            guard frameX + frameWidth <= canvasWidth, frameY + frameHeight <= canvasHeight else {
                throw ImageCodecError(.corrupt, "first frame leaves the \(canvasWidth)x\(canvasHeight) canvas")
            }
        }
        if bitstream == .lossless { alpha = nil }
    }

    /// An ANMF payload: 16 bytes of placement, then the frame's own ALPH / VP8 / VP8L chunks.
    private mutating func readFirstFrame(_ file: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws {
        guard payload.count >= 16 else { throw ImageCodecError(.corrupt, "ANMF chunk of \(payload.count) bytes") }
        let s = payload.lowerBound
        let x = 2 * u24(file, s), y = 2 * u24(file, s + 3)
        let width = 1 + u24(file, s + 6), height = 1 + u24(file, s + 9)
        var offset = s + 16
        var found = false
        while offset < payload.upperBound, !found {
            guard payload.upperBound - offset >= 8 else { throw ImageCodecError(.truncated, "frame chunk header cut short") }
            let size = u32(file, offset + 4)
            guard size <= payload.upperBound - offset - 8 else { throw ImageCodecError(.truncated, "frame chunk runs past its ANMF") }
            let id = fourCC(file, offset), body = (offset + 8)..<(offset + 8 + size)
            switch id {
            case "ALPH": alpha = body
            case "VP8 ", "VP8L":
                try setImage(file, id, body)
                found = true
            default: break
            }
            offset += 8 + size + (size & 1)
        }
        guard found else { throw ImageCodecError(.corrupt, "first animation frame has no image") }
        guard frameWidth == width, frameHeight == height else {
            throw ImageCodecError(.corrupt, "frame \(frameWidth)x\(frameHeight) differs from its ANMF size \(width)x\(height)")
        }
        frameX = x
        frameY = y
    }

    private mutating func setImage(_ file: UnsafeBufferPointer<UInt8>, _ id: String, _ payload: Range<Int>) throws {
        image = payload
        if id == "VP8L" {
            bitstream = .lossless
            let header = try VP8LHeader.read(file, payload)
            frameWidth = header.width
            frameHeight = header.height
            if !animated && canvasWidth == 0 { alphaFlag = header.alphaHint }
        } else {
            bitstream = .lossy
            (frameWidth, frameHeight) = try VP8FrameHeader.size(file, chunk: payload)
        }
    }

    private static func fourCC(_ file: UnsafeBufferPointer<UInt8>, _ at: Int) -> String {
        String(decoding: file[at..<(at + 4)], as: UTF8.self)
    }
    private static func u32(_ file: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int {
        Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16 | Int(file[at + 3]) << 24
    }
    private static func u24(_ file: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int {
        Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16
    }
    private func fourCC(_ file: UnsafeBufferPointer<UInt8>, _ at: Int) -> String { Self.fourCC(file, at) }
    private func u32(_ file: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int { Self.u32(file, at) }
    private func u24(_ file: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int { Self.u24(file, at) }
}
