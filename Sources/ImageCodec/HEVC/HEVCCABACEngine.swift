/// The CABAC arithmetic decoding engine (H.265 9.3.4.3).
///
/// `value` keeps the spec's 9-bit ivlOffset scaled by 2^7 plus up to 7 bits read ahead, so
/// bytes are fetched one at a time instead of bit by bit; `bitsNeeded` (-8...-1 between calls)
/// counts the shifts left before the next byte. Past the end of its data the engine reads
/// zero bytes: a damaged slice decodes to garbage but always ends, since the syntax above it
/// is bounded by the picture size.
struct HEVCCABACEngine {
    let base: UnsafePointer<UInt8>
    /// The next byte to read, and the end of the data.
    private(set) var position: Int
    let end: Int
    /// `HEVCCABACTables.stateTable`.
    private let tables: UnsafePointer<UInt8>
    private var range: UInt32 = 510
    private var value: UInt32 = 0
    private var bitsNeeded: Int32 = -8

    /// Starts decoding at byte `position` of `base[0..<end]` (9.3.2.5).
    init(base: UnsafePointer<UInt8>, position: Int, end: Int) {
        self.base = base
        self.position = position
        self.end = end
        tables = HEVCCABACTables.stateTable
        start(at: position)
    }

    /// Re-initialises at byte `newPosition`: a new substream, or after PCM samples.
    mutating func start(at newPosition: Int) {
        position = newPosition
        range = 510
        value = UInt32(nextByte()) << 8
        value |= UInt32(nextByte())
        bitsNeeded = -8
    }

    @inline(__always)
    private mutating func nextByte() -> UInt8 {
        guard position < end else { return 0 }
        let b = base[position]
        position &+= 1
        return b
    }

    /// DecodeDecision with the context state `ctx` ((pStateIdx << 1) | valMps).
    @inline(__always)
    mutating func decodeBin(_ ctx: inout UInt8) -> Int {
        let state = Int(ctx >> 1)
        let mps = Int(ctx & 1)
        let lps = UInt32(tables[state &* 4 &+ Int((range >> 6) & 3)])
        range &-= lps
        let scaled = range << 7
        if value < scaled {
            ctx = tables[256 &+ Int(ctx)]
            if scaled < 256 << 7 {
                range <<= 1
                value <<= 1
                bitsNeeded &+= 1
                if bitsNeeded == 0 {
                    bitsNeeded = -8
                    value |= UInt32(nextByte())
                }
            }
            return mps
        }
        value &-= scaled
        let shift = Int32(lps.leadingZeroBitCount &- 23)
        value <<= UInt32(shift)
        range = lps << UInt32(shift)
        ctx = tables[384 &+ Int(ctx)]
        bitsNeeded &+= shift
        if bitsNeeded >= 0 {
            value |= UInt32(nextByte()) << UInt32(bitsNeeded)
            bitsNeeded &-= 8
        }
        return 1 &- mps
    }

    /// DecodeBypass.
    @inline(__always)
    mutating func decodeBypass() -> Int {
        value <<= 1
        bitsNeeded &+= 1
        if bitsNeeded >= 0 {
            bitsNeeded = -8
            value |= UInt32(nextByte())
        }
        let scaled = range << 7
        if value >= scaled {
            value &-= scaled
            return 1
        }
        return 0
    }

    /// `count` bypass bins, first bin in the most significant position.
    @inline(__always)
    mutating func decodeBypassBits(_ count: Int) -> Int {
        var v = 0
        var i = 0
        while i < count {
            v = v << 1 | decodeBypass()
            i &+= 1
        }
        return v
    }

    /// DecodeTerminate. After a 1 the next substream, or PCM data, starts at `position`: the
    /// bits the spec's engine has consumed end inside the byte before it, and the syntax
    /// aligns to the next byte boundary.
    mutating func decodeTerminate() -> Int {
        range &-= 2
        let scaled = range << 7
        if value >= scaled { return 1 }
        if scaled < 256 << 7 {
            range <<= 1
            value <<= 1
            bitsNeeded &+= 1
            if bitsNeeded == 0 {
                bitsNeeded = -8
                value |= UInt32(nextByte())
            }
        }
        return 0
    }
}

extension HEVCCABACEngine {
    /// The bit at `bitPosition` of the data (0 past its end), for PCM samples.
    func bit(at bitPosition: Int) -> Int {
        let byte = bitPosition >> 3
        guard byte < end else { return 0 }
        return Int(base[byte] >> (7 - UInt8(bitPosition & 7))) & 1
    }
}
