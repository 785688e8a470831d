/// The block structure of a GIF file: the logical screen, the global palette and every
/// frame's descriptor, read in one pass that skips image data sub-block by sub-block (so a
/// probe of a 500-frame animation decodes nothing). Each step consumes input, so the walk
/// ends within the file whatever the bytes say.
struct GIFStructure {
    struct Frame {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var interlaced: Bool
        /// Offset and entry count of the local palette, when there is one.
        var palette: (offset: Int, count: Int)?
        /// The Graphic Control Extension before the frame: transparent index and delay (1/100 s).
        var transparentIndex: Int?
        var delay: Int
        /// Offset of the LZW minimum code size byte.
        var dataOffset: Int
    }

    let screenWidth: Int
    let screenHeight: Int
    let globalPalette: (offset: Int, count: Int)?
    let frames: [Frame]
    /// True when the walk stopped at damage or the end of the file instead of a trailer.
    let truncated: Bool

    /// Walks `bytes`; throws only when not even the first frame's descriptor can be read.
    init(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        let n = bytes.count
        guard n >= 13, bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46, bytes[3] == 0x38,
              bytes[4] == 0x37 || bytes[4] == 0x39, bytes[5] == 0x61 else {
            throw ImageCodecError(.notAnImage, "not a GIF file")
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        screenWidth = u16(6)
        screenHeight = u16(8)
        let flags = bytes[10]
        var pos = 13
        if flags & 0x80 != 0 {
            let count = 2 << Int(flags & 7)
            guard pos + 3 * count <= n else { throw ImageCodecError(.truncated, "GIF global colour table runs past the end") }
            globalPalette = (pos, count)
            pos += 3 * count
        } else {
            globalPalette = nil
        }
        var frames: [Frame] = []
        var transparent: Int?
        var delay = 0
        var ended = false
        /// Skips data sub-blocks from `pos`; false when the file ends first.
        func skipSubBlocks(_ pos: inout Int) -> Bool {
            while pos < n {
                let size = Int(bytes[pos])
                pos += 1 + size
                if size == 0 { return true }
            }
            return false
        }
        walk: while pos < n {
            switch bytes[pos] {
            case 0x21:
                guard pos + 2 <= n else { break walk }
                let label = bytes[pos + 1]
                pos += 2
                if label == 0xF9, pos + 6 <= n, bytes[pos] >= 4 {
                    let packed = bytes[pos + 1]
                    delay = u16(pos + 2)
                    transparent = packed & 1 != 0 ? Int(bytes[pos + 4]) : nil
                }
                guard skipSubBlocks(&pos) else { break walk }
            case 0x2C:
                guard pos + 10 <= n else { break walk }
                let packed = bytes[pos + 9]
                var frame = Frame(left: u16(pos + 1), top: u16(pos + 3), width: u16(pos + 5), height: u16(pos + 7),
                                  interlaced: packed & 0x40 != 0, palette: nil, transparentIndex: transparent,
                                  delay: delay, dataOffset: 0)
                pos += 10
                if packed & 0x80 != 0 {
                    let count = 2 << Int(packed & 7)
                    guard pos + 3 * count <= n else { break walk }
                    frame.palette = (pos, count)
                    pos += 3 * count
                }
                guard pos < n else { break walk }
                frame.dataOffset = pos
                pos += 1
                frames.append(frame)
                transparent = nil
                delay = 0
                guard skipSubBlocks(&pos) else { break walk }
            case 0x3B:
                ended = true
                break walk
            default:
                break walk
            }
        }
        guard !frames.isEmpty else { throw ImageCodecError(.truncated, "GIF without a complete image descriptor") }
        self.frames = frames
        truncated = !ended
    }

    /// Display time of all frames in seconds, with browsers' rule that a delay under 2/100 s
    /// shows for 1/10 s.
    var duration: Double {
        Double(frames.reduce(0) { $0 + ($1.delay < 2 ? 10 : $1.delay) }) / 100
    }

    /// The canvas the first frame is shown on: the logical screen, or the frame itself placed
    /// at 0,0 when it does not fit (Chromium and Firefox enlarge the screen for the first frame).
    var canvas: (width: Int, height: Int, left: Int, top: Int) {
        let f = frames[0]
        if f.left + f.width > screenWidth || f.top + f.height > screenHeight || screenWidth == 0 || screenHeight == 0 {
            return (max(f.width, screenWidth), max(f.height, screenHeight), 0, 0)
        }
        return (screenWidth, screenHeight, f.left, f.top)
    }
}
