/// Reads the fixed- and Exp-Golomb-coded fields of parameter sets and slice headers
/// (H.265 7.2, 9.2). Reading past the end throws instead of inventing bits.
struct HEVCBitReader {
    private let bytes: [UInt8]
    /// Position in bits from the start of `bytes`.
    private(set) var bitPosition = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var bitsLeft: Int { bytes.count * 8 - bitPosition }
    var isByteAligned: Bool { bitPosition & 7 == 0 }
    var bytePosition: Int { bitPosition >> 3 }

    /// u(n) for n in 0...32.
    mutating func bits(_ n: Int) throws -> Int {
        guard n <= bitsLeft else { throw ImageCodecError(.truncated, "HEVC header ends early") }
        var value = 0
        for _ in 0..<n {
            let byte = Int(bytes[bitPosition >> 3])
            value = value << 1 | (byte >> (7 - bitPosition & 7)) & 1
            bitPosition += 1
        }
        return value
    }

    mutating func flag() throws -> Bool { try bits(1) == 1 }

    mutating func skip(_ n: Int) throws {
        guard n >= 0, n <= bitsLeft else { throw ImageCodecError(.truncated, "HEVC header ends early") }
        bitPosition += n
    }

    /// ue(v), limited to 32 leading zeros (values up to 2^32 - 2).
    mutating func ue() throws -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros <= 32 else { throw ImageCodecError(.corrupt, "HEVC Exp-Golomb code too long") }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    /// ue(v) that must lie in `range`.
    mutating func ue(in range: ClosedRange<Int>, _ name: String) throws -> Int {
        let v = try ue()
        guard range.contains(v) else { throw ImageCodecError(.corrupt, "HEVC \(name) \(v) out of range") }
        return v
    }

    /// se(v).
    mutating func se() throws -> Int {
        let k = try ue()
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }

    mutating func se(in range: ClosedRange<Int>, _ name: String) throws -> Int {
        let v = try se()
        guard range.contains(v) else { throw ImageCodecError(.corrupt, "HEVC \(name) \(v) out of range") }
        return v
    }

    /// more_rbsp_data(): true while bits other than the final rbsp_stop_one_bit and its
    /// zero padding remain.
    func moreRBSPData() -> Bool {
        var last = bytes.count - 1
        while last >= 0 && bytes[last] == 0 { last -= 1 }
        guard last >= 0 else { return false }
        let stopBit = last * 8 + 7 - bytes[last].trailingZeroBitCount
        return bitPosition < stopBit
    }

    /// byte_alignment(): alignment_bit_equal_to_one, then zero bits to the byte boundary.
    mutating func byteAlignment() throws {
        guard try bits(1) == 1 else { throw ImageCodecError(.corrupt, "HEVC byte_alignment without its one bit") }
        while !isByteAligned { _ = try bits(1) }
    }
}
