/// ISOBMFF boxes (ISO/IEC 14496-12 §4.2): a size, a four-character type, an optional 64-bit
/// size and a body. Every size is checked against the enclosing box before it is used, so a
/// hostile header can make the walk stop with `.corrupt` but never read outside the file.

/// A four-character code as a big-endian `UInt32` (`"ftyp"` is 0x66747970).
struct FourCC: Hashable, Sendable, CustomStringConvertible {
    let value: UInt32

    init(_ value: UInt32) { self.value = value }

    init(_ text: StaticString) {
        var v: UInt32 = 0
        text.withUTF8Buffer { for b in $0.prefix(4) { v = v << 8 | UInt32(b) } }
        value = v
    }

    var description: String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
        return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
    }
}

/// One box: where its body lies in the file (`bodyStart..<end`).
struct HEIFBox {
    let type: FourCC
    /// Offset of the size field.
    let start: Int
    let bodyStart: Int
    let end: Int

    var bodyCount: Int { end - bodyStart }
}

/// Bounds-checked big-endian reads inside `start..<end` of the file bytes. Every read past
/// `end` throws `.corrupt` naming `context`.
struct HEIFByteReader {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int
    let context: String

    init(_ bytes: [UInt8], from start: Int, to end: Int, context: String) {
        self.bytes = bytes
        position = start
        self.end = end
        self.context = context
    }

    init(_ bytes: [UInt8], box: HEIFBox) {
        self.init(bytes, from: box.bodyStart, to: box.end, context: "'\(box.type)' box")
    }

    var remaining: Int { end - position }

    private func need(_ n: Int) throws {
        guard n >= 0, n <= end - position else {
            throw ImageCodecError(.corrupt, "\(context) ends early (needs \(n) more bytes at offset \(position))")
        }
    }

    mutating func u8() throws -> Int {
        try need(1)
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func u16() throws -> Int { try uint(2) }
    mutating func u32() throws -> Int { try uint(4) }

    /// An unsigned big-endian integer of 0, 1, 2, 4 or 8 bytes (0 bytes reads 0). An 8-byte
    /// value above `Int.max` throws.
    mutating func uint(_ size: Int) throws -> Int {
        guard size >= 0, size <= 8 else { throw ImageCodecError(.corrupt, "\(context): field size \(size)") }
        try need(size)
        var v: UInt64 = 0
        for i in 0..<size { v = v << 8 | UInt64(bytes[position + i]) }
        position += size
        guard v <= UInt64(Int.max) else { throw ImageCodecError(.corrupt, "\(context): value \(v) is too large") }
        return Int(v)
    }

    mutating func i32() throws -> Int { Int(Int32(truncatingIfNeeded: UInt32(try u32()))) }

    mutating func fourCC() throws -> FourCC { FourCC(UInt32(try u32())) }

    /// Version and flags of a full box (§4.2.2).
    mutating func fullBoxHeader() throws -> (version: Int, flags: Int) {
        let word = try u32()
        return (word >> 24, word & 0xFF_FFFF)
    }

    mutating func skip(_ n: Int) throws {
        try need(n)
        position += n
    }

    /// `n` bytes as a slice of the file.
    mutating func slice(_ n: Int) throws -> ArraySlice<UInt8> {
        try need(n)
        defer { position += n }
        return bytes[position..<(position + n)]
    }

    /// A NUL-terminated UTF-8 string; the rest of the range when no NUL follows.
    mutating func cString() -> String {
        var stop = position
        while stop < end, bytes[stop] != 0 { stop += 1 }
        let text = String(decoding: bytes[position..<stop], as: UTF8.self)
        position = min(end, stop + 1)
        return text
    }
}

enum HEIFBoxReader {
    /// The boxes inside `start..<end`, in order. A size of 0 runs to `end`; a size of 1 reads a
    /// 64-bit size. A box that is shorter than its header or runs past `end` throws `.corrupt`
    /// (or `.truncated` when `end` is the end of the file and `truncatedAtEnd` is set).
    static func children(_ bytes: [UInt8], from start: Int, to end: Int, truncatedAtEnd: Bool = false,
                         stopAfter stop: ((HEIFBox) -> Bool)? = nil) throws -> [HEIFBox] {
        var boxes: [HEIFBox] = []
        var at = start
        while at < end {
            var r = HEIFByteReader(bytes, from: at, to: end, context: "box header")
            guard end - at >= 8 else {
                throw ImageCodecError(truncatedAtEnd ? .truncated : .corrupt, "\(end - at) stray bytes where a box header should be at offset \(at)")
            }
            let size32 = try r.u32()
            let type = try r.fourCC()
            var size = size32
            if size32 == 1 {
                guard end - at >= 16 else { throw ImageCodecError(truncatedAtEnd ? .truncated : .corrupt, "'\(type)' box 64-bit size cut off at offset \(at)") }
                size = try r.uint(8)
            } else if size32 == 0 {
                size = end - at
            }
            var bodyStart = r.position
            if type == FourCC("uuid") { bodyStart += 16 }
            guard size >= bodyStart - at else {
                throw ImageCodecError(.corrupt, "'\(type)' box at offset \(at) has size \(size), less than its header")
            }
            guard size <= end - at else {
                throw ImageCodecError(truncatedAtEnd ? .truncated : .corrupt,
                                      "'\(type)' box at offset \(at) (\(size) bytes) runs past its container (ends at \(end))")
            }
            let box = HEIFBox(type: type, start: at, bodyStart: bodyStart, end: at + size)
            boxes.append(box)
            if let stop, stop(box) { break }
            at += size
        }
        return boxes
    }
}
