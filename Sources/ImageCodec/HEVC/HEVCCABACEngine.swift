/// The CABAC arithmetic decoding engine (H.265 9.3.4.3, H.264 9.3.3.2: the same engine).
///
/// `value` keeps the spec's 9-bit ivlOffset shifted left by `bits`, with the `bits` next bits
/// of the data below it, so that renormalising is a subtraction from `bits` rather than a shift
/// of the offset, and the data is read 32 bits at a time (when fewer than 8 are left: a
/// decision uses at most 6, bypass 1). A decision picks MPS or LPS without a branch: the LPS
/// mask comes from the sign of the comparison, the new range is selected by it and
/// renormalised by its leading-zero count, and the next state comes from one table indexed
/// by mask and state. Past the end of its data the engine reads zero bytes: a damaged slice
/// decodes to garbage but always ends, since the syntax above it is bounded by the picture size.
struct HEVCCABACEngine {
    let base: UnsafePointer<UInt8>
    let end: Int
    /// `HEVCCABACTables.stateTable`.
    private let tables: UnsafePointer<UInt8>
    /// The next byte to load (it runs on past `end` while zeros are read there).
    private var next: Int
    private var range: UInt32 = 510
    private var value: UInt64 = 0
    /// Data bits held below the 9-bit offset (0...39).
    private var bits = 0

    /// Starts decoding at byte `position` of `base[0..<end]` (9.3.2.5).
    init(base: UnsafePointer<UInt8>, position: Int, end: Int) {
        self.base = base
        self.end = end
        next = position
        tables = HEVCCABACTables.stateTable
        start(at: position)
    }

    /// Re-initialises at byte `newPosition`: a new substream, or after PCM samples.
    mutating func start(at newPosition: Int) {
        next = newPosition
        range = 510
        value = 0
        bits = -9
        refill()
    }

    /// The byte after the one holding the last bit the spec's engine has read (9 at the start,
    /// then one per renormalising shift), capped at the end of the data: after a terminating
    /// bin of 1 the next substream or PCM data starts there (see `decodeTerminate`).
    var position: Int {
        min(end, ((next &* 8 &- bits &- 1) >> 3) &+ 1)
    }

    /// Loads 32 more bits below the held ones.
    @inline(__always)
    private mutating func refill() {
        if next &+ 4 <= end {
            let word = UnsafeRawPointer(base + next).loadUnaligned(as: UInt32.self).bigEndian
            value = value << 32 | UInt64(word)
        } else {
            for i in 0..<4 {
                let at = next &+ i
                value = value << 8 | UInt64(at < end ? base[at] : 0)
            }
        }
        next &+= 4
        bits &+= 32
    }

    /// DecodeDecision with the context state `ctx` ((pStateIdx << 1) | valMps).
    @inline(__always)
    mutating func decodeBin(_ ctx: inout UInt8) -> Int {
        if bits < 8 { refill() }
        let s = Int(ctx)
        let lps = UInt32(tables[(s >> 1) &* 4 &+ Int((range >> 6) & 3)])
        let mpsRange = range &- lps
        let scaled = UInt64(mpsRange) << UInt64(bits)
        // All ones when the bin is the LPS (value ≥ scaled; both are below 2^48).
        let lpsMask = UInt64(bitPattern: Int64(bitPattern: scaled &- value &- 1) >> 63)
        value &-= scaled & lpsMask
        let mask = UInt32(truncatingIfNeeded: lpsMask)
        let r = mpsRange ^ ((mpsRange ^ lps) & mask)
        let shift = r.leadingZeroBitCount &- 23
        range = r << UInt32(shift)
        bits &-= shift
        // Rows 256 (after an MPS) and 384 (after an LPS) of the state table.
        ctx = tables[256 &+ Int(mask & 128) &+ s]
        return (s ^ Int(mask)) & 1
    }

    /// DecodeBypass.
    @inline(__always)
    mutating func decodeBypass() -> Int {
        if bits < 8 { refill() }
        bits &-= 1
        let scaled = UInt64(range) << UInt64(bits)
        let oneMask = UInt64(bitPattern: Int64(bitPattern: scaled &- value &- 1) >> 63)
        value &-= scaled & oneMask
        return Int(oneMask & 1)
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
        if bits < 8 { refill() }
        range &-= 2
        let scaled = UInt64(range) << UInt64(bits)
        if value >= scaled { return 1 }
        if range < 256 {
            range <<= 1
            bits &-= 1
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
