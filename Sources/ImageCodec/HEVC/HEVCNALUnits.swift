/// NAL unit framing (H.265 7.3.1, Annex B): splitting a byte stream or a length-prefixed
/// sample into NAL units and removing emulation prevention bytes.

/// One NAL unit with its two-byte header decoded and its payload turned into RBSP bytes.
struct HEVCNALUnit {
    /// nal_unit_type (H.265 table 7-1): 32 VPS, 33 SPS, 34 PPS, 0...21 coded slice segments.
    let type: Int
    let layerId: Int
    /// The payload after the NAL header with emulation prevention bytes removed.
    let rbsp: [UInt8]

    static let vps = 32, sps = 33, pps = 34

    init(_ bytes: ArraySlice<UInt8>) throws {
        guard bytes.count >= 2 else { throw ImageCodecError(.corrupt, "HEVC NAL unit shorter than its header") }
        let b0 = Int(bytes[bytes.startIndex]), b1 = Int(bytes[bytes.startIndex + 1])
        guard b0 & 0x80 == 0 else { throw ImageCodecError(.corrupt, "HEVC NAL forbidden_zero_bit set") }
        type = (b0 >> 1) & 0x3F
        layerId = ((b0 & 1) << 5) | (b1 >> 3)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for b in bytes.dropFirst(2) {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        rbsp = out
    }
}

enum HEVCNALSplitter {
    /// The NAL units of an Annex B byte stream: the bytes between 00 00 01 start codes, with
    /// trailing zero bytes (the next start code's leading zero, trailing_zero_8bits) dropped.
    static func annexB(_ stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start = -1
        var i = 0
        let n = stream.count
        while i + 2 < n {
            if stream[i] == 0 && stream[i + 1] == 0 && stream[i + 2] == 1 {
                if start >= 0 { units.append(trimmed(stream[start..<i])) }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if start >= 0 && start < n { units.append(trimmed(stream[start..<n])) }
        return units.filter { !$0.isEmpty }
    }

    private static func trimmed(_ unit: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = unit.endIndex
        while end > unit.startIndex && unit[end - 1] == 0 { end -= 1 }
        return unit[unit.startIndex..<end]
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
