/// NAL unit framing (H.265 7.3.1, Annex B): splitting a byte stream or a length-prefixed
/// sample into NAL units and removing emulation prevention bytes.

/// One NAL unit with its two-byte header decoded and its payload turned into RBSP bytes.
struct HEVCNALUnit {
    /// nal_unit_type (H.265 table 7-1): 32 VPS, 33 SPS, 34 PPS, 0...21 coded slice segments.
    let type: Int
    let layerId: Int
    /// The payload after the NAL header with emulation prevention bytes removed.
    let rbsp: [UInt8]
    /// Where the removed emulation prevention bytes stood in the escaped payload (after the
    /// header), ascending: entry points count escaped bytes (`rbspPosition(escaped:)`).
    let escapes: [Int]

    static let vps = 32, sps = 33, pps = 34

    init(_ bytes: ArraySlice<UInt8>) throws {
        guard bytes.count >= 2 else { throw ImageCodecError(.corrupt, "HEVC NAL unit shorter than its header") }
        let b0 = Int(bytes[bytes.startIndex]), b1 = Int(bytes[bytes.startIndex + 1])
        guard b0 & 0x80 == 0 else { throw ImageCodecError(.corrupt, "HEVC NAL forbidden_zero_bit set") }
        type = (b0 >> 1) & 0x3F
        layerId = ((b0 & 1) << 5) | (b1 >> 3)
        var removed: [Int] = []
        rbsp = HEVCNALSplitter.unescaped(bytes, headerBytes: 2, removed: &removed)
        escapes = removed
    }

    /// The RBSP position of the byte at `escaped` in the escaped payload (the next kept byte
    /// when `escaped` is an emulation prevention byte itself).
    func rbspPosition(escaped: Int) -> Int {
        var removedBefore = 0
        for e in escapes {
            guard e < escaped else { break }
            removedBefore += 1
        }
        return escaped - removedBefore
    }

    /// The escaped payload position of RBSP byte `position`.
    func escapedPosition(rbsp position: Int) -> Int {
        var e = position
        for x in escapes {
            guard x <= e else { break }
            e += 1
        }
        return e
    }
}

enum HEVCNALSplitter {
    /// The NAL units of an Annex B byte stream: the bytes between 00 00 01 start codes, with
    /// trailing zero bytes (the next start code's leading zero, trailing_zero_8bits) dropped.
    static func annexB(_ stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start = -1
        let n = stream.count
        // Start code offsets; a byte above 1 rules out a start code at itself and the two
        // positions before it, so the scan steps three bytes past it.
        var codes: [Int] = []
        stream.withUnsafeBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return }
            var i = 0
            while i &+ 2 < n {
                let b = p[i &+ 2]
                if b > 1 { i &+= 3; continue }
                if b == 1 && p[i] == 0 && p[i &+ 1] == 0 {
                    codes.append(i)
                    i &+= 3
                } else {
                    i &+= 1
                }
            }
        }
        for i in codes {
            if start >= 0 { units.append(trimmed(stream[start..<i])) }
            start = i + 3
        }
        if start >= 0 && start < n { units.append(trimmed(stream[start..<n])) }
        return units.filter { !$0.isEmpty }
    }

    private static func trimmed(_ unit: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = unit.endIndex
        while end > unit.startIndex && unit[end - 1] == 0 { end -= 1 }
        return unit[unit.startIndex..<end]
    }

    /// A NAL unit's payload after its `headerBytes` header bytes, with every 03 that follows
    /// two zero bytes removed (H.264 7.4.1, H.265 7.4.2: emulation_prevention_three_byte); a
    /// removed 03 starts a new count of zeros. The scan steps three bytes past any byte above 3
    /// (none of the next three positions can then be an 03 after two zeros) and copies the runs
    /// between removals in bulk: about one comparison per three bytes of a picture's megabytes.
    static func unescaped(_ bytes: ArraySlice<UInt8>, headerBytes h: Int) -> [UInt8] {
        var removed: [Int] = []
        return unescaped(bytes, headerBytes: h, removed: &removed)
    }

    /// `unescaped`, appending to `removed` where each removed byte stood in the payload after
    /// the header (escaped positions, ascending).
    static func unescaped(_ bytes: ArraySlice<UInt8>, headerBytes h: Int, removed: inout [Int]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { src -> [UInt8] in
            let n = src.count
            guard n > h, let p = src.baseAddress else { return [] }
            return [UInt8](unsafeUninitializedCapacity: n &- h) { out, written in
                let o = out.baseAddress!
                var count = 0
                var runStart = h
                var i = h &+ 2
                while i < n {
                    let b = p[i]
                    if b > 3 { i &+= 3; continue }
                    if b == 3 && p[i &- 1] == 0 && p[i &- 2] == 0 && i &- 2 >= runStart {
                        (o + count).update(from: p + runStart, count: i &- runStart)
                        removed.append(i &- h)
                        count &+= i &- runStart
                        runStart = i &+ 1
                        i &+= 3
                        continue
                    }
                    i &+= 1
                }
                (o + count).update(from: p + runStart, count: n &- runStart)
                written = count &+ n &- runStart
            }
        }
    }

    /// The NAL units of a sample whose units each follow a big-endian length of `lengthSize`
    /// bytes (ISO/IEC 14496-15, as HEIF items store them).
    static func lengthPrefixed(_ data: ArraySlice<UInt8>, lengthSize: Int) throws -> [ArraySlice<UInt8>] {
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw ImageCodecError(.invalidArgument, "HEVC NAL length size \(lengthSize) is not 1, 2 or 4")
        }
        var units: [ArraySlice<UInt8>] = []
        var p = data.startIndex
        while p < data.endIndex {
            guard data.endIndex - p >= lengthSize else {
                throw ImageCodecError(.truncated, "HEVC NAL length field cut short")
            }
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(data[p + k]) }
            p += lengthSize
            guard length <= data.endIndex - p else {
                throw ImageCodecError(.truncated, "HEVC NAL unit of \(length) bytes runs past the data")
            }
            if length > 0 { units.append(data[p..<(p + length)]) }
            p += length
        }
        return units
    }
}
