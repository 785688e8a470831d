/// Reads the fixed-length, Exp-Golomb and CAVLC codes of H.264 RBSPs (7.2, 9.1, 9.2).
///
/// The RBSP is copied once into storage with 8 zero bytes of padding, so a peek of up to 32
/// bits is one unaligned 8-byte load with no bounds check; `overrun` tells whether the reads
/// have gone past the real data, and callers check it once per macroblock (a damaged stream
/// then reads zeros, which every loop above bounds, and is reported as truncated).
struct H264BitReader {
    /// The RBSP followed by 8 zero bytes; owned by the reader's `storage`.
    let base: UnsafePointer<UInt8>
    private let storage: H264ByteStorage
    /// Bits of real data.
    let bitCount: Int
    /// Position in bits.
    var position: Int

    init(_ rbsp: [UInt8]) {
        self.init(H264ByteStorage(rbsp))
    }

    /// A reader over `storage`, which slice data decoding also reads directly (CABAC).
    init(_ storage: H264ByteStorage) {
        self.storage = storage
        base = UnsafePointer(storage.pointer)
        bitCount = storage.count &* 8
        position = 0
    }

    var overrun: Bool { position > bitCount }

    /// The next 32 bits, MSB first (zeros past the data).
    @inline(__always)
    func peek32() -> UInt32 {
        let byte = min(position >> 3, bitCount >> 3)
        let word = UnsafeRawPointer(base + byte).loadUnaligned(as: UInt64.self).bigEndian
        return UInt32(truncatingIfNeeded: (word << UInt64(position & 7)) >> 32)
    }

    @inline(__always)
    mutating func skip(_ n: Int) { position &+= n }

    /// u(n), n in 0...32.
    @inline(__always)
    mutating func bits(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let v = Int(peek32() >> UInt32(32 &- n))
        position &+= n
        return v
    }

    @inline(__always)
    mutating func flag() -> Bool { bits(1) == 1 }

    /// u(n) for header fields, throwing once the data has run out.
    mutating func u(_ n: Int) throws -> Int {
        var v = 0
        var left = n
        while left > 0 {
            let take = min(left, 16)
            v = v << take | bits(take)
            left -= take
        }
        guard !overrun else { throw ImageCodecError(.truncated, "H.264 header ends early") }
        return v
    }

    mutating func uFlag() throws -> Bool { try u(1) == 1 }

    /// ue(v) with at most 31 leading zeros; unchecked against the end (see `overrun`).
    @inline(__always)
    mutating func ueFast() throws -> Int {
        let word = peek32()
        let zeros = word.leadingZeroBitCount
        if zeros < 16 {
            let length = zeros &* 2 &+ 1
            position &+= length
            return Int(word >> UInt32(32 &- length)) &- 1
        }
        guard zeros < 32 else { throw ImageCodecError(.corrupt, "H.264 Exp-Golomb code too long") }
        position &+= zeros
        let rest = bits(zeros &+ 1)
        return rest &- 1
    }

    /// ue(v) for header fields.
    mutating func ue() throws -> Int {
        let v = try ueFast()
        guard !overrun else { throw ImageCodecError(.truncated, "H.264 header ends early") }
        return v
    }

    /// ue(v) that must lie in `range`.
    mutating func ue(in range: ClosedRange<Int>, _ name: String) throws -> Int {
        let v = try ue()
        guard range.contains(v) else { throw ImageCodecError(.corrupt, "H.264 \(name) \(v) out of range") }
        return v
    }

    /// se(v).
    mutating func se() throws -> Int {
        let k = try ue()
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }

    mutating func se(in range: ClosedRange<Int>, _ name: String) throws -> Int {
        let v = try se()
        guard range.contains(v) else { throw ImageCodecError(.corrupt, "H.264 \(name) \(v) out of range") }
        return v
    }

    /// more_rbsp_data(): whether bits other than the rbsp_stop_one_bit and its zero padding remain.
    func moreRBSPData() -> Bool {
        position < storage.stopBit
    }
}

/// The padded copy an `H264BitReader` reads, and the position of its rbsp_stop_one_bit.
final class H264ByteStorage {
    let pointer: UnsafeMutablePointer<UInt8>
    let count: Int
    /// Bit position of the last 1 bit of the data (the stop bit), or 0 when there is none.
    let stopBit: Int

    init(_ bytes: [UInt8]) {
        count = bytes.count
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 8)
        storage.initialize(repeating: 0, count: bytes.count + 8)
        bytes.withUnsafeBufferPointer { if let b = $0.baseAddress { storage.update(from: b, count: bytes.count) } }
        pointer = storage
        var last = bytes.count - 1
        while last >= 0 && bytes[last] == 0 { last -= 1 }
        stopBit = last >= 0 ? last * 8 + 7 - bytes[last].trailingZeroBitCount : 0
    }

    deinit { pointer.deallocate() }
}

/// The reading state of an `H264BitReader` without its storage reference: a residual block
/// copies it into a local (no retain, kept in registers) and hands the position back after.
struct H264Bits {
    let base: UnsafePointer<UInt8>
    let lastByte: Int
    var position: Int

    @inline(__always)
    init(_ r: H264BitReader) {
        base = r.base
        lastByte = r.bitCount >> 3
        position = r.position
    }

    @inline(__always)
    func peek32() -> UInt32 {
        let byte = min(position >> 3, lastByte)
        let word = UnsafeRawPointer(base + byte).loadUnaligned(as: UInt64.self).bigEndian
        return UInt32(truncatingIfNeeded: (word << UInt64(position & 7)) >> 32)
    }

    @inline(__always)
    mutating func skip(_ n: Int) { position &+= n }

    @inline(__always)
    mutating func bits(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let v = Int(peek32() >> UInt32(32 &- n))
        position &+= n
        return v
    }
}
